"""Helpers over sentence vectors (rows of a 2-D array, converted to float32): near-duplicate groups and
k-means, computed by the library (swe.h's swe_vectors_*), so a seed gives the swe program's and the npm
package's clusters."""
from typing import List, NamedTuple

import numpy as np

from . import _swe


class KMeansResult(NamedTuple):
    labels: np.ndarray      # int32, the cluster of each row, 0..k-1, or -1 for a zero row (left out)
    centroids: np.ndarray   # float32, (k, dims)
    inertia: float          # sum of squared distances of the clustered rows to their centroids
    iterations: int         # Lloyd rounds of the winning start


def near_duplicate_groups(vectors, threshold: float = 0.9) -> List[List[int]]:
    """Greedy near-duplicate groups of the rows: each row joins the first earlier group whose first row
    has cosine >= threshold with it, else starts a group. Zero rows are never duplicates."""
    return _swe.near_duplicate_groups(vectors, float(threshold))


def kmeans(vectors, k: int, *, seed: int = 0, restarts: int = 4, iterations: int = 100) -> KMeansResult:
    """k-means of the nonzero rows: `restarts` k-means++ starts from one mulberry32 stream seeded with
    `seed`, Lloyd rounds until no row moves (or `iterations`); the start of lowest inertia wins. A zero
    row (a text with no known word) is in no cluster: label -1. k is at most the number of nonzero rows."""
    _check_int(k, "k")
    _check_int(seed, "seed")
    if not 0 <= seed < 2**32:
        raise ValueError(f"seed must be in 0..2**32-1, got {seed}")
    _check_int(restarts, "restarts")
    _check_int(iterations, "iterations")
    return KMeansResult(*_swe.kmeans(vectors, k, seed, restarts, iterations))


def _check_int(value, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
