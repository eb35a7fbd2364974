"""swe.dask on a real LocalCluster: separate worker processes on 127.0.0.1, one thread each."""
import os
import signal
import time

import numpy as np
import pytest

import dask.bag as dask_bag
import dask.dataframe as dd
import distributed
import pandas as pd

import swe
import swe.dask
from conftest import stsb_sentences


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, memory_limit=0)
    with distributed.Client(cluster) as c:
        swe.dask.register(c)
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def texts():
    return stsb_sentences()  # 3,000 sentences


def test_encode_a_bag_in_order_byte_identical(client, model, texts):
    bag = dask_bag.from_sequence(texts, npartitions=7)
    vectors = swe.dask.encode(bag)
    assert vectors.tobytes() == model.encode(texts).tobytes()
    assert swe.dask.encode(bag, dims=32).tobytes() == model.encode(texts, dims=32).tobytes()


def test_encode_a_dataframe_column(client, model, texts):
    frame = dd.from_pandas(pd.DataFrame({"text": texts, "n": range(len(texts))}), npartitions=5)
    assert swe.dask.encode(frame["text"]).tobytes() == model.encode(texts).tobytes()


def test_one_model_load_per_worker(client, texts):
    swe.dask.encode(dask_bag.from_sequence(texts, npartitions=9))
    counts = client.run(swe.dask.load_count)
    assert len(counts) == 2 and set(counts.values()) == {1}
    assert swe.dask.load_count() == 0  # the client process loaded none


def test_sharded_search_equals_one_index(client, model, texts):
    queries = ["a man is playing a guitar", "the stock market fell", "!!! ...", "a dog runs in a park"]
    for dtype in ("f32", "int8"):
        sharded = swe.dask.ShardedIndex.build(dask_bag.from_sequence(texts, npartitions=6), dtype=dtype)
        assert len(sharded) == len(texts) and len(sharded.shards) == 6
        one = swe.Index(model, dtype=dtype)
        one.add(np.arange(len(texts), dtype=np.uint64), vectors=model.encode(texts))
        for k in (1, 10, 50):
            got = sharded.search(queries, k)
            want = one.search_arrays(model.encode(queries), k)
            for g, w in zip(got, want):
                assert g.tobytes() == w.tobytes()
            assert got[2][2] == 0  # no known word: no hits
        got = sharded.search(model.encode(queries), 10, min_score=0.5)
        want = one.search_arrays(model.encode(queries), 10, min_score=0.5)
        assert all(g.tobytes() == w.tobytes() for g, w in zip(got, want))


def test_a_worker_killed_mid_job_changes_nothing(client, model, texts):
    def slow(part):  # long enough partitions that the kill lands while tasks are pending
        time.sleep(0.3)
        return part
    bag = dask_bag.from_sequence(texts, npartitions=16).map_partitions(slow)
    futures = client.compute(swe.dask.encode_delayed(bag))
    distributed.wait(futures, return_when="FIRST_COMPLETED")
    pids = client.run(os.getpid)
    assert sum(f.done() for f in futures) < len(futures)  # killed in the middle of the job
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    vectors = np.concatenate(client.gather(futures))
    assert vectors.tobytes() == model.encode(texts).tobytes()
    client.wait_for_workers(2, timeout=60)
    pids_after = client.run(os.getpid)
    assert victim not in pids_after.values()
    assert set(client.run(swe.dask.load_count).values()) == {1}  # the new worker loaded its model once
