"""swe.Index: documents and vectors, files shared with the swe program, bad input."""
import json
import pickle
import threading

import numpy as np
import pytest

import swe
from conftest import ROOT

DOCS = [{"id": "cat", "text": "a cat sits on the mat", "metadata": {"topic": "pets"}},
        {"id": "kitten", "text": "a kitten rests on a rug"},
        {"id": "market", "text": "the stock market fell", "metadata": [1, "two"]},
        {"id": "shares", "text": "shares dropped sharply", "metadata": None}]


def build(model, dtype="f32"):
    index = swe.Index(model, dtype=dtype)
    index.add([d["id"] for d in DOCS], [d["text"] for d in DOCS], [d.get("metadata") for d in DOCS])
    return index


def test_documents_search_get_remove(model):
    index = build(model)
    assert len(index) == 4 and index.doc_count == 4 and index.dims == model.dims
    hits = index.search("kitten", 2)
    assert [h["id"] for h in hits] == ["kitten", "cat"]
    assert hits[0]["text"] == "a kitten rests on a rug" and "metadata" not in hits[0]
    assert hits[1]["metadata"] == {"topic": "pets"}
    assert index.get("market") == {"id": "market", "text": "the stock market fell", "metadata": [1, "two"]}
    assert "cat" in index and "dog" not in index
    assert index.remove("cat") and not index.remove("cat") and "cat" not in index
    with pytest.raises(KeyError):
        index.get("cat")
    assert sorted(index.ids()) == ["kitten", "market", "shares"]  # storage order: removing moves entries


def test_search_options(model):
    index = build(model)
    assert index.search("!!! ...", 3) == []  # no known word: the zero vector matches nothing
    assert all(h["score"] >= 0.5 for h in index.search("kitten", 4, min_score=0.5))
    assert len(index.search("kitten", 100)) == 4 and index.search("kitten", 0) == []
    batch = index.search(["kitten", "stocks"], 1)
    assert [b[0]["id"] for b in batch] == ["kitten", "market"]
    vector_hits = index.search(model.encode("kitten"), 2)
    assert vector_hits == index.search("kitten", 2)
    assert index.search("kitten", 2, candidates=4) == index.search("kitten", 2)
    with pytest.raises(ValueError):
        index.search("kitten", -1)
    with pytest.raises(ValueError):
        index.search("kitten", 2, min_score=float("nan"))
    with pytest.raises(swe.Error):
        index.search("kitten", 3, candidates=2)  # candidates below k: the library refuses
    with pytest.raises(ValueError):
        index.search(np.zeros(5, dtype=np.float32))


def test_integer_ids_and_vectors(model):
    index = swe.Index(model, dtype="int8")
    index.add([10, 20], ["a cat", "the stock market"])
    index.add(30, vectors=model.encode(["a kitten"]))
    assert index.dtype == "int8" and index.ids() == [10, 20, 30] and 30 in index
    assert [h["id"] for h in index.search("a cat", 3)][:2] == [10, 30]
    with pytest.raises(TypeError):
        index.add([None], ["x"])
    with pytest.raises(ValueError):
        index.add([-1], ["x"])
    with pytest.raises(ValueError):
        index.add([1, 2], ["only one"])
    bad = model.encode(["a"])
    bad[0, 0] = np.nan
    with pytest.raises(swe.Error):
        index.add([40], vectors=bad)


def test_files_round_trip_and_pickle(model, tmp_path):
    index = build(model)
    index.save(tmp_path / "docs.swi")
    again = swe.Index.load(tmp_path / "docs.swi", model)
    assert again.search("kitten", 4) == index.search("kitten", 4)
    from_bytes = swe.Index.load(index.save(), model)
    assert from_bytes.ids() == index.ids()
    assert pickle.loads(pickle.dumps(index)).search(model.encode("kitten"), 4) == index.search("kitten", 4)


def test_a_pickled_index_keeps_its_model(model):
    unpickled = pickle.loads(pickle.dumps(build(model)))
    assert unpickled.model is not None and unpickled.model.info["checksum"] == model.info["checksum"]
    assert unpickled.search("kitten", 2) == build(model).search("kitten", 2)  # a text query needs the model
    unpickled.add(["dog"], ["a dog barks"])
    assert unpickled.search("a dog barks", 1)[0]["id"] == "dog"
    vectors_only = pickle.loads(pickle.dumps(swe.Index(dims=8)))
    assert vectors_only.model is None and vectors_only.dims == 8


def test_a_vector_added_under_a_documents_entry_is_refused(model, cli, tmp_path):
    # Integer ids and documents share the entry numbers: entry 0 is "cat-doc" here. Replacing only its
    # vector would leave the document's id and text on "the stock market crashed"'s vector.
    index = swe.Index(model)
    index.add(["cat-doc"], ["a cat sat on the mat"])
    with pytest.raises(swe.Error, match="cat-doc"):
        index.add([0], ["the stock market crashed"])
    with pytest.raises(swe.Error):
        index.add([7, 0], ["a fresh entry", "the stock market crashed"])  # nothing of the batch goes in
    assert len(index) == 1 and 7 not in index
    hit = index.search("the stock market crashed", 1)[0]
    assert hit["id"] == "cat-doc" and hit["score"] < 0.9  # still the cat's vector
    index.save(tmp_path / "docs.swi")
    answer = json.loads(cli("index", "query", swe.default_model_path(), tmp_path / "docs.swi", "--json", "-k", 1,
                            "a cat sat on the mat"))
    assert answer["hits"][0]["id"] == "cat-doc" and answer["hits"][0]["score"] > 0.99
    assert index.remove("cat-doc")
    index.add([0], ["the stock market crashed"])  # once the document is gone, the entry is free
    assert index.search("the stock market crashed", 1)[0] == {"id": 0, "score": pytest.approx(1.0, abs=1e-5)}


def test_add_is_all_or_nothing(model):
    index = build(model)
    before = index.search("kitten", 4)
    with pytest.raises(swe.Error, match="duplicate"):
        index.add(["new-1", "cat", "new-1"], ["one", "replaces cat", "two"])
    with pytest.raises(swe.Error):
        index.add(["new-2", "new-3"], ["one", "two"], [{"ok": 1}, float("nan")])  # NaN is not JSON
    assert len(index) == 4 and "new-1" not in index and "new-2" not in index
    assert index.get("cat")["text"] == "a cat sits on the mat" and index.search("kitten", 4) == before
    vectors = model.encode(["a", "b"])
    vectors[1, 0] = np.inf
    with pytest.raises(swe.Error):
        index.add([100, 101], vectors=vectors)
    assert 100 not in index and len(index) == 4


def test_corrupt_index_and_wrong_model(model, tmp_path):
    data = build(model).save()
    for bad in (b"", b"junk", data[: len(data) // 2]):
        with pytest.raises(swe.Error):
            swe.Index.load(bad)
    small = swe.Index(dims=8)
    with pytest.raises(TypeError):
        small.search("text needs a model")
    with pytest.raises(swe.Error) as caught:
        swe.Index.load(tmp_path / "missing.swi")
    assert caught.value.code == "io"
    other = swe.load(ROOT / "models" / "swe-multi-en-de-ja-zh.swe")
    with pytest.raises(swe.Error) as caught:
        swe.Index.load(build(model).save(), other)  # built with another model
    assert "swe-en-use-lite-large-para" in str(caught.value)


def test_an_index_of_the_swe_program_loads_and_answers_the_same(model, model_path, cli, tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    cli("index", "build", model_path, "--docs", docs, "-o", tmp_path / "cli.swi")
    index = swe.Index.load(tmp_path / "cli.swi", model)
    expected = json.loads(cli("index", "query", model_path, tmp_path / "cli.swi", "--json", "-k", 3, "kitten"))
    hits = index.search("kitten", 3)
    assert [h["id"] for h in hits] == [h["id"] for h in expected["hits"]]
    assert [f"{h['score']:.6g}" for h in hits] == [f"{h['score']:.6g}" for h in expected["hits"]]
    assert index.get("cat")["metadata"] == {"topic": "pets"}


def test_the_swe_program_reads_an_index_written_here(model, model_path, cli, tmp_path):
    build(model).save(tmp_path / "py.swi")
    assert cli("index", "ids", tmp_path / "py.swi").split() == ["cat", "kitten", "market", "shares"]
    got = json.loads(cli("index", "get", tmp_path / "py.swi", "market"))
    assert got["text"] == "the stock market fell" and got["metadata"] == [1, "two"]
    answer = json.loads(cli("index", "query", model_path, tmp_path / "py.swi", "--json", "-k", 1, "kitten"))
    assert answer["hits"][0]["id"] == "kitten"


def test_searching_threads_while_other_threads_add_and_remove(model, sentences):
    vectors = model.encode(sentences)
    index = swe.Index(model)
    index.add(list(range(100)), vectors=vectors[:100])
    index.add(["kept"], ["a document no thread changes"], [{"n": 1}], vectors=vectors[:1])
    index.add([f"doc-{d}" for d in range(10)], sentences[:10], vectors=vectors[:10])  # the writers replace these
    stop = threading.Event()
    failures = []

    def search():  # the GIL is released while searching and changing: the library's lock orders them
        while not stop.is_set():
            counts = index.search_arrays(vectors[:20], 5)[2]
            if not (counts == 5).all():
                failures.append(counts)
            if index.get("kept") != {"id": "kept", "text": "a document no thread changes", "metadata": {"n": 1}}:
                failures.append("get")
            if len(index.ids()) < 101:
                failures.append("ids")

    def change(first):  # the writers' ids interleave: 1000 + first, 1000 + first + 2, ...
        for i in range(first, len(sentences), 2):
            index.add(1000 + i, vectors=vectors[i:i + 1])
            if i % 3 == 0 and i >= 150:
                assert index.remove(1000 + i - 50)  # this writer's own
            index.add([f"doc-{i % 10}"], [sentences[i]], vectors=vectors[i:i + 1])
    searchers = [threading.Thread(target=search) for _ in range(3)]
    writers = [threading.Thread(target=change, args=(first,)) for first in (100, 101)]
    for t in searchers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in searchers:
        t.join()
    removed = len(range(150, len(sentences), 3))
    assert not failures and len(index) == 100 + 1 + 10 + len(sentences) - 100 - removed
    assert [index.get(f"doc-{d}")["text"] for d in range(10)] == [sentences[i] for i in range(len(sentences) - 10, len(sentences))]


def test_stored_metadata_that_cannot_be_shown_is_said_so():
    # tests/fixtures/stored-metadata.swi: metadata 200 levels deep, not JSON, and {"k": 1}, written by core
    # as no swe writer would; shown as the swe program, swe serve and the npm package show it.
    index = swe.Index.load(ROOT / "tests/fixtures/stored-metadata.swi")
    assert index.get("deep") == {"id": "deep", "text": "text of deep",
                                 "metadata_error": "the stored metadata cannot be shown: JSON nested deeper than 128 levels"}
    assert index.get("bad")["metadata_error"] == "the stored metadata cannot be shown: not JSON"
    assert index.get("fine") == {"id": "fine", "text": "text of fine", "metadata": {"k": 1}}
    hits = index.search(np.array([0.1, 0.2, 1, 0], dtype=np.float32), 3)
    assert [(h["id"], "metadata_error" in h) for h in hits] == [("fine", False), ("bad", True), ("deep", True)]


def test_saves_append_their_changes_to_the_file(model, tmp_path):
    # A save to the file the index came from appends one change record (docs/FORMAT.md): the file grows
    # by the change, and loads with it.
    path = tmp_path / "log.swi"
    build(model).save(path)
    before = path.stat().st_size
    index = swe.Index.load(path, model)
    index.add(["new"], ["a new document about cats"])
    index.save(path)
    assert 0 < path.stat().st_size - before < 2048
    assert swe.Index.load(path, model).get("new")["text"] == "a new document about cats"
