"""swe.load and swe.Model: shapes, parity with the swe program, threads, the GIL, bad input."""
import json
import os
import pickle
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import swe
from conftest import ROOT


def test_encode_is_float32_rows_owned_by_the_array(model):
    v = model.encode(["a man is playing a guitar", "a cat"])
    assert v.shape == (2, model.dims) and v.dtype == np.float32
    assert v.flags["C_CONTIGUOUS"] and v.flags["OWNDATA"] and v.base is None  # no intermediate copy
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, rtol=1e-5)


def test_one_str_gives_one_vector(model):
    one = model.encode("a man is playing a guitar")
    assert one.shape == (model.dims,)
    assert one.tobytes() == model.encode(["a man is playing a guitar"])[0].tobytes()


def test_encode_matches_the_swe_program_byte_for_byte(model, model_path, cli, sentences, tmp_path):
    docs = tmp_path / "texts.txt"
    docs.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    for dims, extra in ((None, []), (64, ["--dims", "64"])):
        cli("encode", model_path, docs, "-o", tmp_path / "out.npy", *extra)
        expected = np.load(tmp_path / "out.npy")
        assert model.encode(sentences, dims=dims).tobytes() == expected.tobytes()


def test_threads_batches_and_out_give_the_same_bytes(model, sentences):
    texts = sentences * 8  # 4,800 texts: enough for two threads
    one = model.encode(texts, threads=1)
    assert model.encode(texts, threads=2).tobytes() == one.tobytes()
    assert model.encode(texts, batch_size=333).tobytes() == one.tobytes()
    out = np.empty_like(one)
    assert model.encode(texts, out=out) is out and out.tobytes() == one.tobytes()
    assert model.encode(tuple(texts)).tobytes() == one.tobytes()


def test_progress_bar_goes_to_stderr(model, sentences, capsys):
    model.encode(sentences, show_progress_bar=True, batch_size=200)
    assert f"encoded {len(sentences)}/{len(sentences)} texts" in capsys.readouterr().err


def test_encode_releases_the_gil(model, sentences):
    # With a long switch interval a thread keeps the GIL until it lets it go itself: this thread's loop
    # runs during the encoding only if encode() releases the GIL (else it first runs when the thread ends).
    texts = sentences * 100  # ~60k texts, one thread
    done = threading.Event()
    worker = threading.Thread(target=lambda: (model.encode(texts, threads=1), done.set()))
    ticks = 0
    interval = sys.getswitchinterval()
    sys.setswitchinterval(5)
    try:
        worker.start()
        while not done.is_set():
            ticks += 1
            time.sleep(0)  # hands the GIL back when the encoding thread asks for it
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert ticks > 10


def test_encode_with_info_counts_known_words(model):
    vectors, known = model.encode_with_info(["a cat sat", "", "zzzqqqxxx 12"])
    assert vectors.shape == (3, model.dims) and known.dtype == np.uint32
    assert known[0] == 3 and known[1] == 0
    assert not vectors[1].any()


def test_similarity_matches_the_swe_program(model, model_path, cli):
    score = model.similarity("a cat sits on the mat", "a kitten rests on a rug")
    assert f"{score:.6f}" == cli("similarity", model_path, "a cat sits on the mat", "a kitten rests on a rug").strip()
    matrix = model.similarity(["a cat", "a dog"], ["a kitten", "stocks fell", "a puppy"])
    assert matrix.shape == (2, 3) and matrix[0, 0] > matrix[0, 1] and matrix[1, 2] > matrix[1, 1]


def test_tokenize_gives_str_offsets(model):
    text = "Ünïcödé words: a Cat, zzzqqq"
    tokens = model.tokenize(text)
    assert [t["word"] for t in tokens] == [text[t["start"]:t["end"]] for t in tokens]
    assert [t["word"] for t in tokens][-3:] == ["a", "Cat", "zzzqqq"]
    cat = tokens[-2]
    assert cat["match"] == "folded" and cat["row"] >= 0


def test_info_dims_and_repr(model):
    assert model.info["dims"] == model.dims == 256
    assert model.info["name"] == "swe-en-use-lite-large-para"
    assert model.vocab_size == model.info["vocab_size"] > 1000
    assert repr(model).startswith("swe.Model(name='swe-en-use-lite-large-para', dims=256")


def test_load_from_path_and_bytes_gives_the_same_vectors(model, model_path):
    with open(model_path, "rb") as f:
        data = f.read()
    for other in (swe.load(model_path), swe.load(data), swe.load(bytearray(data)), swe.load(memoryview(data))):
        assert other.encode("a cat").tobytes() == model.encode("a cat").tobytes()
        assert pickle.loads(pickle.dumps(other)).encode("a cat").tobytes() == model.encode("a cat").tobytes()


@pytest.mark.parametrize("texts, error", [
    ([None], TypeError), (["a", None], TypeError), (b"bytes", TypeError), ([b"bytes"], TypeError),
    (42, TypeError), ([1.5], TypeError), (None, TypeError),
])
def test_bad_texts_raise_type_error(model, texts, error):
    with pytest.raises(error):
        model.encode(texts)


def test_hostile_strings_are_encoded(model):
    huge = "word " * 2_000_000  # 10 MB in one text
    assert model.encode(huge).shape == (model.dims,)
    lone = model.encode(["a cat \ud800 sat", "\udfff"])  # lone surrogates: U+FFFD, as JS's TextEncoder
    assert lone.tobytes() == model.encode(["a cat \ufffd sat", "\ufffd"]).tobytes()
    assert model.tokenize("\ud800x")[0]["end"] == 1
    assert model.encode([]).shape == (0, model.dims)
    assert model.encode(["\x00", "\u0301" * 100]).shape == (2, model.dims)


@pytest.mark.parametrize("dims, error", [(0, ValueError), (257, ValueError), (-1, ValueError), (1.5, TypeError),
                                         (True, TypeError), (2**70, ValueError)])
def test_dims_out_of_range(model, dims, error):
    with pytest.raises(error):
        model.encode("a cat", dims=dims)


def test_dims_truncates_and_renormalises(model):
    v = model.encode(["a cat sat"], dims=32)
    assert v.shape == (1, 32)
    np.testing.assert_allclose(np.linalg.norm(v), 1, rtol=1e-5)


def test_corrupt_and_missing_models_raise_swe_error(model_path, tmp_path):
    with open(model_path, "rb") as f:
        data = f.read()
    for bad in (b"", b"garbage", data[: len(data) // 2], data[:100] + bytes(1000)):
        with pytest.raises(swe.Error) as caught:
            swe.load(bad)
        assert caught.value.code in ("corrupt", "too large", "unsupported") and str(caught.value)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    with pytest.raises(swe.Error):
        swe.load(bytes(flipped))  # the checksum catches a flipped byte
    with pytest.raises(swe.Error) as caught:
        swe.load(tmp_path / "missing.swe")
    assert caught.value.code == "io" and "missing.swe" in str(caught.value)
    with pytest.raises(TypeError):
        swe.load(42)


def test_model_is_shared_by_threads(model, sentences):
    expected = model.encode(sentences)
    results = [None] * 4

    def run(i):
        results[i] = model.encode(sentences, threads=1)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.tobytes() == expected.tobytes() for r in results)


def test_info_is_json_of_the_library(model, model_path, cli):
    assert json.loads(cli("info", model_path, "--json"))["checksum"] == model.info["checksum"]


# ---- defects: each of these failed on the package before it was fixed --------------------------------

def run_python(code, **kwargs):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, **kwargs).stdout


def test_default_threads_follow_the_cpu_affinity(model):
    # Counted once from os.sched_getaffinity (taskset, container limits), not the machine's CPUs.
    assert swe._checks.CPUS == len(os.sched_getaffinity(0))
    pinned = run_python("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); import swe._checks; "
                        "print(swe._checks.CPUS)")
    assert pinned.strip() == "1"


def test_encode_does_not_count_the_cpus_per_call(tmp_path):
    # The thread count was read from /sys/devices/system/cpu/online on every encode(list) call (a
    # seventh of a short text's time); now it is counted once, at import. (strace: scripts/install-deps.sh)
    code = ("import swe; m = swe.load(); m.encode(['warm up'])\n"
            "for _ in range(200): m.encode(['a man is playing a guitar'])")
    trace = tmp_path / "trace"
    subprocess.run(["strace", "-f", "-e", "trace=openat", "-o", str(trace), sys.executable, "-c", code], check=True,
                   capture_output=True)
    opens = trace.read_text().count("/sys/devices/system/cpu/online")
    assert opens < 20, f"{opens} reads of the CPU count for 200 calls"


def test_encode_one_str_refuses_an_out_of_another_type(model):
    for out in (np.zeros(model.dims, np.int32), np.zeros(model.dims, np.float64), np.zeros(model.dims + 1, np.float32),
                np.zeros((1, model.dims), np.float32), np.zeros(2 * model.dims, np.float32)[::2], [0.0] * model.dims):
        with pytest.raises(ValueError, match="float32"):
            model.encode("a cat", out=out)
    out = np.zeros(model.dims, np.float32)
    assert model.encode("a cat", out=out) is out and out.tobytes() == model.encode("a cat").tobytes()
    with pytest.raises(ValueError):
        model.encode(["a cat"], out=np.zeros((1, model.dims), np.int32))


def test_pandas_and_iterables(model):
    pd = pytest.importorskip("pandas")
    texts = ["a cat sat", "dogs bark", "the stock market"]
    expected = model.encode(texts).tobytes()
    frame = pd.DataFrame({"text": texts, "n": [1, 2, 3]}, index=[10, 20, 30])
    with pytest.raises(TypeError, match=r"frame\['text'\]"):
        model.encode(frame)  # iterating a DataFrame gives its column names
    assert model.encode(frame["text"]).tobytes() == expected  # a Series: its values, whatever its index
    assert model.encode(t for t in texts).tobytes() == expected
    assert model.encode(iter(texts), batch_size=2).tobytes() == expected
    assert model.encode(np.array(texts)).tobytes() == expected
    assert model.encode({"a cat sat": 1, "dogs bark": 2, "the stock market": 3}.keys()).tobytes() == expected
    for refused in ({"a": 1}, {"a", "b"}, np.array([texts]), pd.Series([1.5, 2.5])):
        with pytest.raises(TypeError):
            model.encode(refused)


@pytest.mark.parametrize("call", [
    lambda m: m.encode(["a"], threads=2**70), lambda m: m.encode(["a"], batch_size=2**70),
    lambda m: m.encode(["a"], truncate_dim=2**70), lambda m: m.encode(["a"], max_length=2**70),
    lambda m: m.encode(["a"], threads=0), lambda m: m.topk("a", ["b"], 2**70), lambda m: m.topk("a", ["b"], -1),
    lambda m: m.cluster(["a", "b"], 2**70), lambda m: m.cluster(["a", "b"], 1, seed=2**70),
    lambda m: m.cluster(["a", "b"], 1, restarts=2**70), lambda m: m.cluster(["a", "b"], 1, iterations=2**70),
    lambda m: swe.kmeans(np.eye(3, dtype=np.float32), 2**64), lambda m: swe.Index(m).search("a", 2**70),
    lambda m: swe.Index(m).search("a", 1, candidates=2**70), lambda m: swe.Index(m).search_arrays(m.encode(["a"]), 2**70),
    lambda m: swe.Index(m).add([2**64], ["a"]), lambda m: swe.Index(dims=2**40),
])
def test_huge_integers_are_value_errors(model, call):
    with pytest.raises(ValueError):
        call(model)


def test_non_finite_vectors_are_refused_by_the_helpers():
    for bad in (np.nan, np.inf, -np.inf):
        rows = np.eye(4, dtype=np.float32)
        rows[2, 1] = bad
        with pytest.raises(ValueError, match="row 2"):
            swe.kmeans(rows, 2)
        with pytest.raises(ValueError, match="row 2"):
            swe.near_duplicate_groups(rows, 0.9)


def test_a_pickled_model_keeps_its_file_and_refuses_another(model_path, tmp_path):
    path = tmp_path / "model.swe"
    shutil.copyfile(model_path, path)
    model = swe.load(path, truncate_dim=64, prompts={"query": "query: "})
    data = pickle.dumps(model)
    again = pickle.loads(data)
    assert again.encode("a cat").tobytes() == model.encode("a cat").tobytes() and again.truncate_dim == 64
    assert again.prompts == {"query": "query: "}
    shutil.copyfile(ROOT / "models" / "swe-en-use-lite-large.swe", path)  # another model, the same path
    with pytest.raises(swe.Error, match="changed") as caught:
        pickle.loads(data)
    assert caught.value.code == "changed"
    from_bytes = swe.load(Path(model_path).read_bytes())
    assert pickle.loads(pickle.dumps(from_bytes)).encode("a cat").tobytes() == from_bytes.encode("a cat").tobytes()
