"""Written as a Model2Vec user writes it: the import swapped, the rest of the code unchanged (the calls
of its README: from_pretrained, encode, encode_as_sequence, and the model's embedding, tokenizer, dim
and normalize)."""
import numpy as np
import pytest

from swe import Model as StaticModel

MODEL = "swe-en-use-lite-large-para"
SENTENCES = ["It's dangerous to go alone!", "It's a secret to everybody."]


@pytest.fixture(scope="module")
def model():
    return StaticModel.from_pretrained(MODEL)


def test_encode(model):
    embeddings = model.encode(SENTENCES)
    assert embeddings.shape == (2, model.dim) and embeddings.dtype == np.float32
    assert model.normalize is True  # the shipped models' vectors have unit length
    np.testing.assert_allclose(np.linalg.norm(embeddings, axis=1), 1, atol=1e-5)
    assert model.encode(SENTENCES, show_progress_bar=True, batch_size=1).tobytes() == embeddings.tobytes()


def test_encode_as_sequence_gives_the_vectors_a_sentence_is_the_mean_of(model):
    token_embeddings = model.encode_as_sequence(SENTENCES)
    assert len(token_embeddings) == 2 and all(t.shape[1] == model.dim for t in token_embeddings)
    plain = StaticModel.from_pretrained(MODEL, normalize=False)
    assert plain.normalize is False
    means = plain.encode(SENTENCES)
    for tokens, mean, unit in zip(token_embeddings, means, model.encode(SENTENCES)):
        # int8 rows are summed in integers with fixed-point weights: close to the float mean, not equal
        np.testing.assert_allclose(tokens.mean(axis=0), mean, atol=2e-4)
        np.testing.assert_allclose(mean / np.linalg.norm(mean), unit, atol=1e-5)
    # normalize=False changes the shipped models' vectors: their length says how much the words agree.
    assert not np.allclose(np.linalg.norm(means, axis=1), 1, atol=1e-3)


def test_the_embedding_matrix_and_the_tokenizer(model):
    vocab = model.tokenizer.get_vocab()
    assert len(vocab) == model.tokenizer.get_vocab_size() == model.embedding.shape[0] == model.vocab_size
    assert model.embedding.shape == (model.vocab_size, model.dim) and model.embedding.dtype == np.float32
    with pytest.raises(ValueError):
        model.embedding[0, 0] = 1.0  # read-only: the model's own table
    row = vocab["guitar"]
    assert model.tokenizer.token_to_id("guitar") == row and model.tokenizer.id_to_token(row) == "guitar"
    assert model.vocabulary["guitar"] == row
    plain = StaticModel.from_pretrained(MODEL, normalize=False)
    np.testing.assert_allclose(plain.encode("guitar"), model.embedding[row], rtol=1e-5, atol=1e-6)
    encoding = model.tokenizer.encode("A Guitar, zzqqxx and drums")
    assert encoding.tokens == ["A", "Guitar", "and", "drums"]  # the known words, as written
    assert encoding.ids[1] == row and encoding.offsets[1] == (2, 8)
    np.testing.assert_array_equal(model.encode_as_sequence("A Guitar, zzqqxx and drums"), model.embedding[encoding.ids])
    assert model.weights.shape == (model.vocab_size,) and (model.weights == 1).all()  # no word weights


def test_max_length(model):
    long = "a man is playing a guitar on a stage in front of a large crowd"
    np.testing.assert_array_equal(model.encode([long], max_length=3), model.encode(["a man is"]))
    assert len(model.encode_as_sequence(long, max_length=3)) == 3
