"""Similarity of embeddings as sentence-transformers computes it (its `SimilarityFunction`): cosine,
dot product, and the negated Euclidean and Manhattan distances (so that higher is more similar), as a
matrix of every pair (similarity) or row by row (similarity_pairwise). Inputs are 1-D or 2-D arrays of
floats (NumPy, lists, or torch tensors, which give a tensor back); computed in float32 with NumPy."""
from typing import Any, Tuple

from ._checks import numpy

SIMILARITY_FUNCTIONS = ("cosine", "dot", "euclidean", "manhattan")


def check_function(name: Any) -> str:
    """The similarity function's name ("cosine", "dot", "euclidean", "manhattan"; sentence-transformers'
    SimilarityFunction values and its aliases "dot_product", "l2", "l1" too)."""
    name = getattr(name, "value", name)  # a SimilarityFunction enum member
    aliases = {"dot_product": "dot", "l2": "euclidean", "l1": "manhattan"}
    name = aliases.get(name, name)
    if name not in SIMILARITY_FUNCTIONS:
        raise ValueError(f"similarity_fn_name must be one of {', '.join(SIMILARITY_FUNCTIONS)}, got {name!r}")
    return name


def similarity(a, b, function: str = "cosine"):
    """(len(a), len(b)) similarities of every row of a with every row of b."""
    x, y, to_torch = _rows(a, b)
    np = numpy()
    function = check_function(function)
    if function in ("cosine", "dot"):
        if function == "cosine":
            x, y = _unit(x), _unit(y)
        out = x @ y.T
    elif function == "euclidean":
        # As a difference of rows (not |x|^2 + |y|^2 - 2xy), so that equal rows give exactly 0.
        out = -np.sqrt(((x[:, None, :] - y[None, :, :]) ** 2).sum(axis=2, dtype=np.float32))
    else:
        out = -np.abs(x[:, None, :] - y[None, :, :]).sum(axis=2, dtype=np.float32)
    return to_torch(out.astype(np.float32, copy=False))


def similarity_pairwise(a, b, function: str = "cosine"):
    """(n,) similarities of a[i] with b[i]; a and b have the same number of rows."""
    x, y, to_torch = _rows(a, b)
    np = numpy()
    function = check_function(function)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"similarity_pairwise: {x.shape[0]} rows and {y.shape[0]} rows")
    if function == "cosine":
        out = (_unit(x) * _unit(y)).sum(axis=1, dtype=np.float32)
    elif function == "dot":
        out = (x * y).sum(axis=1, dtype=np.float32)
    elif function == "euclidean":
        out = -np.sqrt(((x - y) ** 2).sum(axis=1, dtype=np.float32))
    else:
        out = -np.abs(x - y).sum(axis=1, dtype=np.float32)
    return to_torch(out.astype(np.float32, copy=False))


def _rows(a, b) -> Tuple[Any, Any, Any]:
    """Both as finite float32 2-D arrays, and how to give the result back (a tensor for tensors)."""
    np = numpy()
    tensors = any(type(v).__module__.startswith("torch") for v in (a, b))
    out = []
    for name, v in (("a", a), ("b", b)):
        if tensors and hasattr(v, "detach"):
            v = v.detach().cpu().numpy()
        try:
            array = np.asarray(v, dtype=np.float32)
        except (TypeError, ValueError):
            raise TypeError(f"similarity: {name} must be an array of floats (embeddings), got {type(v).__name__}") from None
        if array.ndim == 1:
            array = array[np.newaxis]
        if array.ndim != 2:
            raise ValueError(f"similarity: {name} must be 1-D or 2-D, got {array.ndim} dimensions")
        if not np.isfinite(array).all():
            raise ValueError(f"similarity: {name} has a non-finite value")
        out.append(array)
    if out[0].shape[1] != out[1].shape[1]:
        raise ValueError(f"similarity: vectors of {out[0].shape[1]} and {out[1].shape[1]} dimensions")
    if tensors:
        import torch
        return out[0], out[1], torch.from_numpy
    return out[0], out[1], lambda result: result


def _unit(x):
    np = numpy()
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)  # a zero row stays zero
