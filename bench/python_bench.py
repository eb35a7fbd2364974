"""The Python package's benchmarks; one JSON object per line on stdout.

    build/python-venv/bin/python bench/python_bench.py [--mode encode|one|topk|dask|memory] [--texts N]

encode: Model.encode (one thread) against the C API's swe_model_encode_batch called through ctypes on
        build/native/libswe/libswe.so, on --encode-texts sentences (default 100,000) of
        ../shared/data/train/en-sentences.txt.zst, alternating in one process; each number is the median
        over --repeats of this thread's CPU time. Needs the venv of python/tests/run.sh and
        `cmake --build build/native --target swe_shared`.
one:    encode([text]) of one short sentence, microseconds per call (this thread's CPU time), with the
        default threads (the CPUs this process may use) and with threads=1: the default must cost nothing.
topk:   Model.topk(query, texts, 10) on 200,000 sentences against what a NumPy user writes on the same
        texts (encode, then vectors @ query and np.argpartition), and the ranking alone on the same
        vectors (the library's swe_vectors_rank against NumPy's matrix-vector product and argpartition),
        one BLAS thread (OPENBLAS_NUM_THREADS=1): the process's CPU time (every thread), median of
        --repeats, alternating.
dask:   swe.dask.encode throughput with one and with two workers (LocalCluster, one thread each) on
        --texts sentences (default 1,000,000) of the same file, read by the workers from a text file
        (build/bench-texts.txt), each partition read, encoded and summed in one task on the plugin's model
        (swe.dask.worker_model); only the sums come back. Wall time; the workers' processes' CPU time;
        and the CPU time of the encode calls alone. On a busy machine the wall time says little: two
        workers needing no more CPU in total than one means they would scale to 2x on two free cores.
memory: each worker's resident memory before and after the model plugin loads, against the file's size.
"""
import argparse
import ctypes
import json
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # NumPy's side of topk on one thread, as swe's
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import swe

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


class SweText(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("size", ctypes.c_size_t)]


def c_api_encoder(model_path, texts):
    """A function that encodes `texts` with swe_model_encode_batch (libswe.so), in batches of 1,024."""
    lib = ctypes.CDLL(str(ROOT / "build" / "native" / "libswe" / "libswe.so"))
    model = ctypes.c_void_p()
    if lib.swe_model_load_from_file(str(model_path).encode(), None, ctypes.byref(model)) != 0:
        raise RuntimeError("libswe could not load the model")
    dims = lib.swe_model_get_dims(model)
    encoded = [t.encode("utf-8") for t in texts]
    records = (SweText * len(texts))(*[SweText(b, len(b)) for b in encoded])
    out = np.empty((len(texts), dims), dtype=np.float32)
    pointer = out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
    batch = 1024

    def run():
        for start in range(0, len(texts), batch):
            n = min(batch, len(texts) - start)
            status = lib.swe_model_encode_batch(model, ctypes.byref(records, start * ctypes.sizeof(SweText)),
                                                ctypes.c_size_t(n), None,
                                                ctypes.byref(pointer.contents, start * dims * 4),
                                                ctypes.c_size_t(n * dims), None)
            if status != 0:
                raise RuntimeError("swe_model_encode_batch failed")
        return out
    return run


def cpu_seconds(function, min_time=0.2, clock=time.thread_time):
    """CPU time per call of function(), over at least min_time seconds: this thread's, or with
    clock=time.process_time every thread's of the process."""
    calls = 0
    start = clock()
    while True:
        function()
        calls += 1
        elapsed = clock() - start
        if elapsed >= min_time:
            return elapsed / calls


def sentences(n):
    with open(texts_file(n), encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def bench_encode(n, repeats):
    texts = sentences(n)
    model = swe.load()
    c_api = c_api_encoder(swe.default_model_path(), texts)
    assert c_api().tobytes() == model.encode(texts, threads=1).tobytes()  # the same vectors
    python_times, c_times = [], []
    for _ in range(repeats):  # alternating, so that load on the machine hits both alike
        python_times.append(cpu_seconds(lambda: model.encode(texts, threads=1)))
        c_times.append(cpu_seconds(c_api))
    python, c = statistics.median(python_times), statistics.median(c_times)
    print(json.dumps({"bench": "python_encode", "texts": len(texts), "python_ms": round(python * 1e3, 3),
                      "c_api_ms": round(c * 1e3, 3), "ratio": round(python / c, 3),
                      "python_texts_per_s": round(len(texts) / python)}))


def bench_one(repeats):
    model = swe.load()
    texts = ["a man is playing a guitar"]
    default, one = [], []
    for _ in range(repeats):
        default.append(cpu_seconds(lambda: model.encode(texts), 0.2))
        one.append(cpu_seconds(lambda: model.encode(texts, threads=1), 0.2))
    string = statistics.median(cpu_seconds(lambda: model.encode(texts[0]), 0.2) for _ in range(repeats))
    d, o = statistics.median(default), statistics.median(one)
    print(json.dumps({"bench": "python_encode_one", "default_threads": swe._checks.CPUS,
                      "list_default_us": round(d * 1e6, 3), "list_threads_1_us": round(o * 1e6, 3),
                      "ratio": round(d / o, 3), "str_us": round(string * 1e6, 3)}))


def bench_topk(repeats, n=200_000):
    texts = sentences(n)
    model = swe.load()
    query = "a man is playing a guitar"
    vectors = model.encode(texts, threads=1)
    q = model.encode(query)

    def numpy_top(v):
        scores = v @ q
        top = np.argpartition(-scores, 10)[:10]
        return top[np.argsort(-scores[top], kind="stable")]

    def numpy_user():
        return numpy_top(model.encode(texts, threads=1))

    assert [h["index"] for h in model.topk(query, texts, 10)][:3] == list(numpy_top(vectors))[:3]
    times = {"topk": [], "numpy_user": [], "rank": [], "numpy": []}
    calls = {"topk": lambda: model.topk(query, texts, 10), "numpy_user": numpy_user,
             "rank": lambda: swe._swe.rank(q, vectors, 10, float("-inf")), "numpy": lambda: numpy_top(vectors)}
    for _ in range(repeats):
        for name, call in calls.items():
            times[name].append(cpu_seconds(call, 0.05, time.process_time))  # topk encodes on every CPU
    m = {name: statistics.median(t) for name, t in times.items()}
    print(json.dumps({"bench": "python_topk", "texts": n, "k": 10,
                      "topk_ms": round(m["topk"] * 1e3, 2), "numpy_encode_argpartition_ms": round(m["numpy_user"] * 1e3, 2),
                      "ratio": round(m["topk"] / m["numpy_user"], 3),
                      "rank_vectors_ms": round(m["rank"] * 1e3, 2), "numpy_vectors_ms": round(m["numpy"] * 1e3, 2),
                      "rank_ratio": round(m["rank"] / m["numpy"], 3)}))


def texts_file(n):
    path = ROOT / "build" / f"bench-texts-{n}.txt"
    if not path.exists() or sum(1 for _ in open(path, "rb")) != n:
        with open(path, "wb") as out:
            zstd = subprocess.Popen(["zstd", "-dc", str(DATA / "train" / "en-sentences.txt.zst")], stdout=subprocess.PIPE)
            subprocess.run(["head", "-n", str(n)], stdin=zstd.stdout, stdout=out, check=True)
            zstd.stdout.close()
            zstd.wait()
    return path


def encode_and_sum(lines):
    """One partition in one task: the worker's model encodes its lines, only the vectors' sum comes back
    (separate tasks would let the scheduler move 64 MB arrays between workers)."""
    import swe.dask
    texts = [line.rstrip("\n") for line in lines]
    start = time.thread_time()
    total = float(swe.dask.worker_model().encode(texts, threads=1).sum(dtype=np.float64))
    return [(total, time.thread_time() - start)]  # the sum, and the CPU time of encoding it


def bench_dask(n, partitions):
    import dask.bag
    import distributed
    import swe.dask
    path = texts_file(n)
    size = path.stat().st_size
    results = {}
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None, memory_limit=0) as cluster, \
                distributed.Client(cluster) as client:
            swe.dask.register(client)
            bag = dask.bag.read_text(str(path), blocksize=size // partitions + 1)
            sums = bag.map_partitions(encode_and_sum)
            lines = client.compute(bag.count(), sync=True)
            cpu_before = client.run(time.process_time)
            start = time.perf_counter()
            parts = client.compute(sums, sync=True)
            seconds = time.perf_counter() - start
            cpu = sum(client.run(time.process_time)[w] - cpu_before[w] for w in cpu_before)
            results[workers] = (seconds, sum(p[0] for p in parts), lines, cpu, sum(p[1] for p in parts))
    (one, sum_one, lines, cpu_one, encode_one), (two, sum_two, _, cpu_two, encode_two) = results[1], results[2]
    print(json.dumps({"bench": "python_dask", "texts": lines, "partitions": partitions,
                      "one_worker_s": round(one, 3), "two_workers_s": round(two, 3),
                      "one_worker_texts_per_s": round(lines / one), "two_workers_texts_per_s": round(lines / two),
                      "speedup": round(one / two, 3), "same_checksum": sum_one == sum_two,
                      "one_worker_cpu_s": round(cpu_one, 3), "two_workers_cpu_s": round(cpu_two, 3),
                      "one_worker_encode_cpu_s": round(encode_one, 3), "two_workers_encode_cpu_s": round(encode_two, 3),
                      "cpus": os.cpu_count(), "load_average_1min": os.getloadavg()[0]}))


def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def bench_memory():
    import distributed
    import swe.dask
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, memory_limit=0) as cluster, \
            distributed.Client(cluster) as client:
        before = client.run(rss)
        swe.dask.register(client)
        after = client.run(rss)
    model_bytes = swe.default_model_path().stat().st_size
    growth = [after[w] - before[w] for w in before]
    print(json.dumps({"bench": "python_dask_memory", "model_file_bytes": model_bytes,
                      "worker_rss_before_bytes": sorted(before.values()), "worker_rss_after_bytes": sorted(after.values()),
                      "growth_per_worker_bytes": sorted(growth),
                      "growth_over_model_size": round(statistics.median(growth) / model_bytes, 3)}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["encode", "one", "topk", "dask", "memory"], action="append")
    parser.add_argument("--texts", type=int, default=1_000_000)
    parser.add_argument("--encode-texts", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    modes = args.mode or ["encode", "one", "topk", "memory", "dask"]
    if "encode" in modes:
        bench_encode(args.encode_texts, args.repeats)
    if "one" in modes:
        bench_one(args.repeats)
    if "topk" in modes:
        bench_topk(args.repeats)
    if "memory" in modes:
        bench_memory()
    if "dask" in modes:
        bench_dask(args.texts, args.partitions)


if __name__ == "__main__":
    sys.exit(main())
