"""Helpers over sentence vectors (rows of a 2-D array, converted to float32): near-duplicate groups and
k-means, computed by the library (swe.h's swe_vectors_*), so a seed gives the swe program's and the npm
package's clusters. Rows with a non-finite value are refused (ValueError)."""
from typing import Any, List, NamedTuple

from . import _checks, _swe


class KMeansResult(NamedTuple):
    labels: Any             # int32 array, the cluster of each row, 0..k-1, or -1 for a zero row (left out)
    centroids: Any          # float32 array, (k, dims)
    inertia: float          # sum of squared distances of the clustered rows to their centroids
    iterations: int         # Lloyd rounds of the winning start


def near_duplicate_groups(vectors, threshold: float = 0.9) -> List[List[int]]:
    """Greedy near-duplicate groups of the rows: each row joins the first earlier group whose first row
    has cosine >= threshold with it, else starts a group. Zero rows are never duplicates."""
    _checks.numpy()
    return _swe.near_duplicate_groups(vectors, _checks.score(threshold, "threshold"))


def kmeans(vectors, k: int, *, seed: int = 0, restarts: int = 4, iterations: int = 100) -> KMeansResult:
    """k-means of the nonzero rows: `restarts` k-means++ starts from one mulberry32 stream seeded with
    `seed`, Lloyd rounds until no row moves (or `iterations`); the start of lowest inertia wins. A zero
    row (a text with no known word) is in no cluster: label -1. k is at most the number of nonzero rows."""
    _checks.numpy()
    k = _checks.check_int(k, "k", 1)
    seed = _checks.check_int(seed, "seed")
    restarts = _checks.check_int(restarts, "restarts", 1, 1000)
    iterations = _checks.check_int(iterations, "iterations", 1)
    return KMeansResult(*_swe.kmeans(vectors, k, seed, restarts, iterations))
