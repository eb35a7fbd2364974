"""swe.dask: sentence vectors and search on a Dask cluster (needs dask and distributed).

    from distributed import Client
    import swe.dask
    client = Client()                                  # or Client("tcp://scheduler:8786")
    swe.dask.register(client)                          # one model load per worker (a worker plugin)
    vectors = swe.dask.encode(bag_or_series)           # np.ndarray (n, dims), in order
    index = swe.dask.ShardedIndex.build(bag_or_series) # one swe.Index per partition, on the workers
    ids, scores, counts = index.search(["a query"], k=10)   # ids: row numbers of the texts

Partitions are encoded by the workers' model, one thread per task (the cluster's threads parallelise);
a worker that dies is replaced and its tasks rerun by the scheduler, with the same results.
"""
from typing import Any, List, Optional, Sequence, Tuple, Union

import dask
import numpy as np
from distributed import Client, Future, WorkerPlugin, get_client

from . import load
from .index import Index
from .model import Model

DEFAULT_NAME = "swe-model"

_models = {}      # plugin name -> the Model it loaded, in this (worker) process
_load_count = 0   # models the plugins loaded in this process (tests check: one per worker)


class ModelPlugin(WorkerPlugin):
    """Loads a model once when a worker starts (and on each worker that joins later)."""

    def __init__(self, source: Union[None, str, bytes] = None, name: str = DEFAULT_NAME):
        self.source = source  # a path the workers can read, the model's bytes, or None: the default model
        self.name = name

    def setup(self, worker):
        global _load_count
        _models[self.name] = load(self.source)
        _load_count += 1

    def teardown(self, worker):
        _models.pop(self.name, None)


def register(client: Client, source: Union[None, str, bytes] = None, name: str = DEFAULT_NAME) -> str:
    """Registers the model plugin on every worker of `client` (now and later): `source` is a path the
    workers can read, the model's bytes (sent with the plugin), or None for the default model."""
    client.register_worker_plugin(ModelPlugin(source, name), name=name)
    return name


def worker_model(name: str = DEFAULT_NAME) -> Model:
    """The model the plugin `name` loaded in this worker."""
    try:
        return _models[name]
    except KeyError:
        raise RuntimeError(f"no swe model {name!r} on this worker: call swe.dask.register(client) first") from None


def load_count() -> int:
    """How many models the plugins loaded in this process (run it on the workers: client.run)."""
    return _load_count


def encode_delayed(texts, *, name: str = DEFAULT_NAME, dims: Optional[int] = None) -> List[Any]:
    """One delayed (rows, dims) float32 array per partition of a Dask bag or DataFrame column of str."""
    return [dask.delayed(_encode_partition, pure=True)(part, name, dims) for part in texts.to_delayed()]


def encode(texts, *, client: Optional[Client] = None, name: str = DEFAULT_NAME,
           dims: Optional[int] = None) -> np.ndarray:
    """Sentence vectors of a Dask bag or DataFrame column of str: (n, dims) float32 in the texts' order,
    byte-identical to Model.encode() on the same texts."""
    client = client or get_client()
    arrays = client.compute(encode_delayed(texts, name=name, dims=dims), sync=True)
    if not arrays:
        return np.empty((0, client.submit(_dims, name, dims, pure=False).result()), dtype=np.float32)
    return np.concatenate(arrays)


class ShardedIndex:
    """One swe.Index per partition of the texts, kept on the workers; search() asks every shard for its
    exact top k and merges them on the client, so it answers as one index over all the texts would.
    Entry ids are the texts' row numbers (0..n-1, in order); equal scores are ordered by id."""

    def __init__(self, client: Client, shards: Sequence[Future], offsets: Sequence[int], name: str,
                 dims: Optional[int]):
        self.client = client
        self.shards = list(shards)
        self.offsets = np.asarray(offsets, dtype=np.uint64)  # the first row number of each shard
        self.name = name
        self.dims = dims

    @classmethod
    def build(cls, texts, *, client: Optional[Client] = None, name: str = DEFAULT_NAME, dtype: str = "f32",
              dims: Optional[int] = None) -> "ShardedIndex":
        """Builds the shards of a Dask bag or DataFrame column of str on the workers."""
        client = client or get_client()
        shards = client.compute([dask.delayed(_build_shard, pure=True)(part, name, dtype, dims)
                                 for part in texts.to_delayed()])
        sizes = client.gather([client.submit(len, shard, pure=False) for shard in shards])
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.uint64) if sizes else []
        return cls(client, shards, offsets, name, dims)

    def __len__(self) -> int:
        return int(sum(self.client.gather([self.client.submit(len, s, pure=False) for s in self.shards])))

    def search(self, queries: Union[Sequence[str], np.ndarray], k: int = 10, *,
               min_score: Optional[float] = None) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The k best rows for each query (a list of str, encoded on a worker, or a 2-D array of
        vectors): (ids uint64 (n, k'), scores float32 (n, k'), counts int64 (n,)) as Index.search_arrays()."""
        if isinstance(queries, str):
            raise TypeError("search: queries must be a list of str or a 2-D array")
        if isinstance(queries, np.ndarray):
            vectors = self.client.scatter(np.ascontiguousarray(queries, dtype=np.float32))
        else:
            vectors = self.client.submit(_encode_partition, list(queries), self.name, self.dims, pure=False)
        parts = self.client.gather([self.client.submit(_search_shard, shard, vectors, k, min_score, pure=False)
                                    for shard in self.shards])
        return merge_top_k(parts, self.offsets, k)


def merge_top_k(parts, offsets, k: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merges per-shard (ids, scores, counts) into the top k per query, by score then ascending id."""
    n = len(parts[0][2]) if parts else 0
    kk = min(k, sum(p[0].shape[1] for p in parts))
    ids = np.zeros((n, kk), dtype=np.uint64)
    scores = np.zeros((n, kk), dtype=np.float32)
    counts = np.zeros(n, dtype=np.int64)
    for q in range(n):
        all_ids = np.concatenate([p[0][q, :p[2][q]] + offsets[s] for s, p in enumerate(parts)])
        all_scores = np.concatenate([p[1][q, :p[2][q]] for p in parts])
        best = np.lexsort((all_ids, -all_scores))[:kk]
        counts[q] = len(best)
        ids[q, :len(best)] = all_ids[best]
        scores[q, :len(best)] = all_scores[best]
    return ids, scores, counts


def _texts(part) -> List[str]:
    return part.tolist() if hasattr(part, "tolist") else list(part)


def _encode_partition(part, name: str, dims: Optional[int]) -> np.ndarray:
    return worker_model(name).encode(_texts(part), dims=dims, threads=1)


def _dims(name: str, dims: Optional[int]) -> int:
    return dims or worker_model(name).dims


def _build_shard(part, name: str, dtype: str, dims: Optional[int]) -> Index:
    model = worker_model(name)
    vectors = model.encode(_texts(part), dims=dims, threads=1)
    index = Index(model, dtype=dtype, dims=dims)
    index.add(np.arange(len(vectors), dtype=np.uint64), vectors=vectors)
    return index


def _search_shard(shard: Index, vectors: np.ndarray, k: int, min_score: Optional[float]):
    return shard.search_arrays(vectors, k, min_score=min_score)
