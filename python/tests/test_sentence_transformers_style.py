"""Written as a sentence-transformers user writes it: the import swapped, the rest of the code unchanged
(the calls of its documentation's quick start, semantic search, quantization and Matryoshka pages)."""
import numpy as np
import pytest

from swe import Model as SentenceTransformer
from swe import quantize_embeddings

MODEL = "swe-en-use-lite-large-para"


@pytest.fixture(scope="module")
def model():
    return SentenceTransformer(MODEL)


def test_quick_start(model):
    sentences = [
        "The weather is lovely today.",
        "It's so sunny outside!",
        "He drove to the stadium.",
    ]
    embeddings = model.encode(sentences)
    assert embeddings.shape == (3, model.get_sentence_embedding_dimension()) == (3, 256)
    similarities = model.similarity(embeddings, embeddings)
    assert similarities.shape == (3, 3)
    np.testing.assert_allclose(np.diag(similarities), 1, atol=1e-6)
    assert similarities[0, 1] > similarities[0, 2]  # the weather sentences are the closest pair


def test_one_sentence_gives_one_vector(model):
    embedding = model.encode("A man is eating food.")
    assert embedding.shape == (256,) and embedding.dtype == np.float32
    assert np.isclose(np.linalg.norm(embedding), 1, atol=1e-5)


def test_semantic_search(model):
    corpus = ["A man is eating food.", "A man is eating a piece of bread.", "A man is riding a horse.",
              "A woman is playing violin.", "Two men pushed carts through the woods.",
              "A monkey is playing drums.", "A cheetah is running behind its prey."]
    queries = ["A man is eating pasta.", "Someone in a gorilla costume is playing a set of drums."]
    corpus_embeddings = model.encode(corpus, convert_to_numpy=True, show_progress_bar=False)
    query_embeddings = model.encode(queries, batch_size=32)
    scores = model.similarity(query_embeddings, corpus_embeddings)
    best = np.argsort(-scores, axis=1)[:, :2]
    assert best[0, 0] in (0, 1) and best[1, 0] == 5


def test_normalized_dot_product_and_the_other_similarity_functions(model):
    embeddings = model.encode(["a cat sits on the mat", "a kitten rests on a rug", "stocks fell"],
                              normalize_embeddings=True)
    cosine = model.similarity(embeddings, embeddings)
    model.similarity_fn_name = "dot"
    try:
        np.testing.assert_allclose(model.similarity(embeddings, embeddings), cosine, atol=1e-6)
        model.similarity_fn_name = "euclidean"
        distances = -model.similarity(embeddings, embeddings)
        np.testing.assert_allclose(distances, np.sqrt(np.maximum(0, 2 - 2 * cosine)), atol=1e-3)
        model.similarity_fn_name = "manhattan"
        assert model.similarity(embeddings[:1], embeddings[1:]).shape == (1, 2)
    finally:
        model.similarity_fn_name = "cosine"
    pairwise = model.similarity_pairwise(embeddings[:2], embeddings[1:])
    np.testing.assert_allclose(pairwise, [cosine[0, 1], cosine[1, 2]], atol=1e-6)
    by_name = SentenceTransformer(MODEL, similarity_fn_name="dot")
    assert by_name.similarity_fn_name == "dot"


def test_matryoshka_truncation(model):
    full = model.encode(["a cat sits on the mat"])
    small = SentenceTransformer(MODEL, truncate_dim=64)
    assert small.get_sentence_embedding_dimension() == 64
    truncated = small.encode(["a cat sits on the mat"])
    assert truncated.shape == (1, 64)
    np.testing.assert_array_equal(truncated, full[:, :64])  # cut, not renormalised
    again = model.encode(["a cat sits on the mat"], truncate_dim=64, normalize_embeddings=True)
    np.testing.assert_allclose(again, full[:, :64] / np.linalg.norm(full[:, :64]), atol=1e-6)


def test_quantized_embeddings(model):
    sentences = ["I am driving to the lake.", "It is a beautiful day.", "The stock market fell."]
    embeddings = model.encode(sentences)
    binary = model.encode(sentences, precision="binary")
    assert binary.dtype == np.int8 and binary.shape == (3, 256 // 8)
    np.testing.assert_array_equal(binary, quantize_embeddings(embeddings, precision="binary"))
    ubinary = model.encode(sentences, precision="ubinary")
    np.testing.assert_array_equal(ubinary, np.packbits(embeddings > 0, axis=1))
    int8 = model.encode(sentences, precision="int8")
    assert int8.dtype == np.int8
    # Each dimension's range over these embeddings cut into 256 steps: the minimum is -128.
    np.testing.assert_array_equal(int8.min(axis=0), -128)
    np.testing.assert_array_equal(int8, quantize_embeddings(embeddings, precision="int8"))
    calibrated = quantize_embeddings(embeddings[:1], precision="uint8", calibration_embeddings=embeddings)
    assert calibrated.dtype == np.uint8 and calibrated.shape == (1, 256)


def test_prompts(model):
    prompted = SentenceTransformer(MODEL, prompts={"query": "query: ", "passage": "passage: "},
                                   default_prompt_name="query")
    text = "a man is playing a guitar"
    np.testing.assert_array_equal(prompted.encode([text]), model.encode(["query: " + text]))
    np.testing.assert_array_equal(prompted.encode([text], prompt_name="passage"), model.encode(["passage: " + text]))
    np.testing.assert_array_equal(model.encode([text], prompt="Represent this: "), model.encode(["Represent this: " + text]))
    with pytest.raises(ValueError):
        model.encode([text], prompt_name="query")  # this model has no prompts


def test_max_seq_length(model):
    long = "a man is playing a guitar on a stage in front of a large crowd"
    assert model.max_seq_length is None  # every word counts
    short = SentenceTransformer(MODEL)
    short.max_seq_length = 5
    np.testing.assert_array_equal(short.encode([long]), model.encode(["a man is playing a"]))


def test_what_a_static_model_cannot_do_is_refused(model):
    assert model.device == "cpu"
    model.encode(["a"], device="cpu")
    with pytest.raises(ValueError, match="CPU"):
        model.encode(["a"], device="cuda")
    with pytest.raises(ValueError, match="CPU"):
        SentenceTransformer(MODEL, device="cuda")
    with pytest.raises(ValueError, match="sentence embeddings"):
        model.encode(["a"], output_value="token_embeddings")
    with pytest.raises(ValueError):
        model.encode(["a"], precision="float16")
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="torch"):
            model.encode(["a"], convert_to_tensor=True)
        with pytest.raises(ImportError, match="torch"):
            model.encode(["a"], convert_to_numpy=False)
    else:
        assert model.encode(["a"], convert_to_tensor=True).shape == (1, 256)
