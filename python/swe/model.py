"""swe.load() and swe.Model: encode texts into sentence vectors (NumPy float32 arrays)."""
import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _swe
from .vectors import KMeansResult, _check_int, kmeans, near_duplicate_groups

DEFAULT_MODEL = "swe-en-use-lite-large-para.swe"

Texts = Union[str, Sequence[str]]


def default_model_path() -> Path:
    """The default English model: shipped in the package (swe/models/), or a source checkout's models/."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "models" / DEFAULT_MODEL, here.parent.parent / "models" / DEFAULT_MODEL):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"the default model {DEFAULT_MODEL} is not installed with this package")


def load(source: Union[None, str, "os.PathLike[str]", bytes, bytearray, memoryview] = None) -> "Model":
    """Loads a .swe model: from a file path, from the file's bytes, or (no argument) the default
    English model. A corrupt or unsupported file raises swe.Error with the library's message."""
    if source is None:
        source = default_model_path()
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Model(_swe.Model.load_bytes(source), bytes(source))
    if isinstance(source, (str, os.PathLike)):
        path = os.path.abspath(os.fsdecode(source))
        return Model(_swe.Model.load_file(path), path)
    raise TypeError(f"load: expected a path or bytes, got {type(source).__name__}")


class Dedupe(NamedTuple):
    texts: List[str]          # the first text of each group, in order
    groups: List[List[int]]   # indices into the texts given, each group's first is its representative


class Clusters(NamedTuple):
    labels: np.ndarray       # int32: each text's cluster, -1 for a text with no known word
    centroids: np.ndarray    # float32 (k, dims)
    inertia: float
    iterations: int


class Model:
    """A loaded .swe model. Immutable and safe to use from many threads at once. It pickles as where it
    came from (its path, or its bytes), so a process that unpickles it loads it again (Spark, Ray)."""

    def __init__(self, handle: "_swe.Model", source: Union[str, bytes]):
        self._handle = handle
        self._source = source
        self.info: Dict[str, Any] = json.loads(handle.info_json)
        """The model's description: name, dims, vocab_size, dtype, normalize, checksum, scores, ..."""
        self._normalized = bool(self.info.get("normalize", True))

    def __reduce__(self):
        return (load, (self._source,))

    @property
    def dims(self) -> int:
        """Dimensions of the model's vectors."""
        return self._handle.dims

    @property
    def vocab_size(self) -> int:
        """Number of vocabulary words."""
        return self._handle.vocab_size

    @property
    def name(self) -> str:
        return self.info.get("name", "")

    def __repr__(self) -> str:
        return (f"swe.Model(name={self.name!r}, dims={self.dims}, vocab_size={self.vocab_size}, "
                f"dtype={self.info.get('dtype')!r})")

    def encode(self, texts: Texts, *, batch_size: Optional[int] = None, dims: Optional[int] = None,
               normalize: bool = True, threads: Optional[int] = None, show_progress_bar: bool = False,
               out: Optional[np.ndarray] = None) -> np.ndarray:
        """Sentence vectors of `texts`: float32 of shape (len(texts), dims), or (dims,) for one str.

        A text with no known word gives a zero row. dims keeps the first dims dimensions (renormalised).
        normalize=True gives unit vectors (the model's own vectors are unit when info['normalize']);
        normalize=False gives the vectors as the model defines them. The GIL is released while encoding;
        batches of thousands of texts are split over `threads` threads (default: every core).
        batch_size encodes that many texts per call (progress is reported per batch); out, a
        C-contiguous float32 array of the result's shape, receives the vectors instead of a new array.
        """
        encode_dims = self._dims(dims)
        threads = _threads(threads)
        if isinstance(texts, str):
            vector = self._handle.encode_one(texts, encode_dims)
            if out is not None:
                out[...] = vector
                vector = out
            return self._finish(vector[np.newaxis])[0] if normalize else vector
        if batch_size is None and not show_progress_bar:
            return self._finish(self._handle.encode(texts, encode_dims, threads, out), normalize)
        texts = _as_tuple(texts, "encode")
        n = len(texts)
        if out is None:
            out = np.empty((n, self._handle.encode_dims(encode_dims)), dtype=np.float32)
        step = _positive(batch_size, "batch_size") if batch_size is not None else max(1, min(n, 10000))
        for start in range(0, n, step):
            self._handle.encode(texts[start:start + step], encode_dims, threads, out[start:start + step])
            if show_progress_bar:
                done = min(n, start + step)
                print(f"\rswe: encoded {done}/{n} texts", end="\n" if done == n else "", file=sys.stderr, flush=True)
        return self._finish(out, normalize)

    def encode_with_info(self, texts: Texts, *, dims: Optional[int] = None, threads: Optional[int] = None):
        """(vectors, known_words): encode() of a list (shape (n, dims), the model's own vectors), and how
        many words of each text the model knows (uint32), from the same pass. A text with 0 known words
        has a zero row: it matches nothing."""
        texts = [texts] if isinstance(texts, str) else texts
        return self._handle.encode_with_info(texts, self._dims(dims), _threads(threads))

    def similarity(self, a: Texts, b: Texts, *, dims: Optional[int] = None):
        """Cosine similarity of two texts, in [-1, 1] (0 when either has no known word); for two lists
        of texts, the (len(a), len(b)) matrix of their cosines (float32)."""
        if isinstance(a, str) and isinstance(b, str):
            return self._handle.similarity(a, b, self._dims(dims))
        va = self.encode([a] if isinstance(a, str) else a, dims=dims)
        vb = self.encode([b] if isinstance(b, str) else b, dims=dims)
        return va @ vb.T

    def tokenize(self, text: str) -> List[Dict[str, Any]]:
        """The words of `text` in order and how each matched the vocabulary: [{word, start, end, row,
        match}], start/end indices into the str, row -1 and match 'unknown' for a skipped word."""
        return [{"word": text[start:end], "start": start, "end": end, "row": row, "match": match}
                for start, end, row, match in self._handle.tokenize(text)]

    def rank(self, query: str, texts: Sequence[str], *, min_score: Optional[float] = None,
             dims: Optional[int] = None) -> List[Dict[str, Any]]:
        """`texts` by similarity to `query`, best first (ties by position): [{index, text, score}], the
        scores those `swe search` gives. Empty when the query has no known word; min_score drops texts
        scoring below it."""
        texts = _as_tuple(texts, "rank")
        return self._rank(query, texts, len(texts), min_score, dims)

    def topk(self, query: str, texts: Sequence[str], k: int, *, min_score: Optional[float] = None,
             dims: Optional[int] = None) -> List[Dict[str, Any]]:
        """The k texts most similar to `query`: rank() cut to k (without ranking the rest)."""
        _check_int(k, "k")
        if k < 0:
            raise ValueError(f"k must be non-negative, got {k}")
        return self._rank(query, _as_tuple(texts, "topk"), k, min_score, dims)

    def dedupe(self, texts: Sequence[str], threshold: float = 0.9, *, dims: Optional[int] = None) -> Dedupe:
        """Near-duplicate groups (each member has cosine >= threshold with its group's first text) and
        the first text of each group, in order; as `swe dedupe` and the npm package's dedupe()."""
        texts = _as_tuple(texts, "dedupe")
        groups = near_duplicate_groups(self.encode(texts, dims=dims, normalize=False), _score(threshold, "threshold"))
        return Dedupe([texts[g[0]] for g in groups], groups)

    def cluster(self, texts: Sequence[str], k: int, *, seed: int = 0, restarts: int = 4, iterations: int = 100,
                dims: Optional[int] = None) -> Clusters:
        """k-means clusters of the texts (as `swe cluster`): texts with no known word are left out
        (label -1); the others get the clusters kmeans() finds for their vectors and the seed."""
        texts = _as_tuple(texts, "cluster")
        vectors = self.encode(texts, dims=dims, normalize=False)
        result: KMeansResult = kmeans(vectors, k, seed=seed, restarts=restarts, iterations=iterations)
        return Clusters(*result)

    def create_index(self, *, dtype: str = "f32", dims: Optional[int] = None) -> "Index":
        """A new empty swe.Index for this model's vectors (dtype 'f32' or 'int8')."""
        from .index import Index
        return Index(self, dtype=dtype, dims=dims)

    def _rank(self, query: str, texts: tuple, k: int, min_score: Optional[float], dims: Optional[int]):
        # The library's swe_vectors_rank over the model's own vectors (as `swe search` indexes them).
        if not isinstance(query, str):
            raise TypeError(f"rank: query must be a str, got {type(query).__name__}")
        floor = -np.inf if min_score is None else _score(min_score, "min_score")
        q = self.encode(query, dims=dims, normalize=False)
        rows, scores = _swe.rank(q, self.encode(texts, dims=dims, normalize=False), k, floor)
        return [{"index": int(i), "text": texts[i], "score": float(s)} for i, s in zip(rows, scores)]

    def _dims(self, dims: Optional[int]) -> int:
        if dims is None:
            return 0
        _check_int(dims, "dims")
        if not 1 <= dims <= self.dims:
            raise ValueError(f"dims must be in 1..{self.dims}, got {dims}")
        return int(dims)

    def _finish(self, vectors: np.ndarray, normalize: bool = True) -> np.ndarray:
        # The model's own vectors are unit already when it normalises; otherwise normalise here.
        if normalize and not self._normalized and vectors.size:
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            np.divide(vectors, norms, out=vectors, where=norms > 0)
        return vectors


def _as_tuple(texts, what: str) -> tuple:
    if isinstance(texts, (str, bytes, bytearray)) or not isinstance(texts, Sequence) and not hasattr(texts, "__iter__"):
        raise TypeError(f"{what}: expected a sequence of str, got {type(texts).__name__}")
    return tuple(texts)


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    return _positive(threads, "threads")


def _positive(value, name: str) -> int:
    _check_int(value, name)
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return int(value)


def _score(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not -1 <= value <= 1:
        raise ValueError(f"{name} must be in [-1, 1], got {value}")
    return float(value)
