"""rank, topk, dedupe and cluster: one implementation in the library (swe.h's swe_vectors_*), so the
swe program's results for the same texts and seed, exactly."""
import json

import numpy as np
import pytest

import swe


def write_docs(tmp_path, texts):
    path = tmp_path / "docs.txt"
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    return path


def test_rank_and_topk_match_swe_search(model, model_path, cli, sentences, tmp_path):
    texts = sentences[:200]
    docs = write_docs(tmp_path, texts)
    for query in ("a man is playing a guitar", "the stock market"):
        expected = json.loads(cli("search", model_path, "--docs", docs, "--json", "-k", 10, query))["hits"]
        ranked = model.topk(query, texts, 10)
        assert [h["index"] + 1 for h in ranked] == [int(h["id"]) for h in expected]  # CLI ids: line numbers
        # The same float32 scores (the CLI prints each as the shortest text that reads back as it).
        assert [np.float32(h["score"]) for h in ranked] == [np.float32(h["score"]) for h in expected]
        assert model.rank(query, texts)[:10] == ranked
    assert model.rank("!!! ...", texts) == []
    strong = model.rank("a man", texts, min_score=0.5)
    assert strong and all(h["score"] >= 0.5 for h in strong)
    assert strong == [h for h in model.rank("a man", texts) if h["score"] >= np.float32(0.5)]
    assert model.topk("a man", texts, 0) == [] and model.rank("a man", []) == []


def test_dedupe_matches_swe_dedupe(model, model_path, cli, sentences, tmp_path):
    texts = sentences[:300]
    docs = write_docs(tmp_path, texts)
    for threshold in (0.8, 0.95):
        lines = cli("dedupe", model_path, "--docs", docs, "--json", "--threshold", threshold).splitlines()
        expected = [[int(g["id"]) - 1] + [int(d["id"]) - 1 for d in g["duplicates"]] for g in map(json.loads, lines)]
        result = model.dedupe(texts, threshold)
        assert result.groups == expected
        assert result.texts == [texts[g[0]] for g in expected]


def test_cluster_matches_swe_cluster(model, model_path, cli, sentences, tmp_path):
    texts = sentences[:300] + ["!!! ..."]  # a text with no known word: in no cluster
    docs = write_docs(tmp_path, texts)
    for seed, restarts in ((0, 4), (7, 1)):
        lines = cli("cluster", model_path, "--docs", docs, "-k", 5, "--json", "--seed", seed, "--restarts", restarts)
        expected = [-1 if c["cluster"] is None else c["cluster"] for c in map(json.loads, lines.splitlines())]
        result = model.cluster(texts, 5, seed=seed, restarts=restarts)
        assert result.labels.tolist() == expected
        assert result.centroids.shape == (5, model.dims)


def test_vector_helpers_check_their_arguments(model):
    vectors = model.encode(["a cat", "a cat", "dogs bark"])
    assert swe.near_duplicate_groups(vectors, 0.99) == [[0, 1], [2]]
    assert swe.kmeans(vectors, 2).labels.tolist() in ([0, 0, 1], [1, 1, 0])
    with pytest.raises(ValueError):
        swe.kmeans(vectors, 4)
    with pytest.raises(ValueError, match="nonzero rows"):
        swe.kmeans(np.vstack([vectors, np.zeros((2, model.dims), np.float32)]), 4)  # 5 rows, 3 of them nonzero
    labels = swe.kmeans(np.vstack([vectors, np.zeros((1, model.dims), np.float32)]), 2).labels.tolist()
    assert labels[3] == -1 and labels[:3] in ([0, 0, 1], [1, 1, 0])
    with pytest.raises(ValueError):
        swe.near_duplicate_groups(np.array([[1.0, np.nan]], np.float32), 0.5)
    with pytest.raises(ValueError):
        swe.near_duplicate_groups(vectors, 2)
    with pytest.raises(TypeError):
        swe.kmeans("not vectors", 1)
    with pytest.raises(ValueError):
        model.dedupe(["a"], threshold=float("nan"))
    with pytest.raises(ValueError):
        model.topk("a", ["b"], -1)
