"""What the package's modules share: argument checks (out-of-range values are ValueErrors, wrong types
TypeErrors, before anything reaches the extension), texts taken from what users pass, NumPy imported
only where vectors are made, and the CPUs this process may use."""
import numbers
import os
from typing import Any, Optional

MAX_UINT32 = 2**32 - 1
MAX_UINT64 = 2**64 - 1


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))  # taskset, cgroup cpusets, container limits
    except (AttributeError, OSError):
        return os.cpu_count() or 1


CPUS = _usable_cpus()
"""The CPUs this process may run on when swe was imported: the default number of encoding threads
(counted once; a process whose affinity changes later passes threads= itself)."""


def numpy():
    """NumPy, or an ImportError saying what needs it (import swe itself does not)."""
    try:
        import numpy as np
    except ImportError:
        raise ImportError("swe: vectors are NumPy arrays: install NumPy (Debian: apt-get install python3-numpy)") from None
    return np


def is_int(value: Any) -> bool:
    """An int or a NumPy integer, not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(value: Any, name: str, low: int = 0, high: int = MAX_UINT32) -> int:
    """value as an int in low..high: a TypeError for a non-integer (bool included), a ValueError out of range."""
    if not is_int(value):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")
    return value


def optional_int(value: Any, name: str, low: int = 0, high: int = MAX_UINT32) -> Optional[int]:
    return None if value is None else check_int(value, name, low, high)


def threads(value: Any) -> int:
    return CPUS if value is None else check_int(value, "threads", 1, 1024)


def score(value: Any, name: str) -> float:
    """A similarity bound in [-1, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not -1 <= value <= 1:  # NaN fails too
        raise ValueError(f"{name} must be in [-1, 1], got {value}")
    return float(value)


def texts(value: Any, what: str) -> tuple:
    """A tuple of the texts in `value`: a list, tuple, generator or other iterable of str, a 1-D NumPy
    array or a pandas Series of str. A DataFrame, a dict or a set is refused (which column, keys or
    values, which order?), as are str and bytes (not a list of texts); the extension refuses non-str
    items, naming their position."""
    if type(value) is tuple:
        return value
    if type(value) is list:
        return tuple(value)
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"{what}: expected texts (a list of str), got {type(value).__name__}")
    if hasattr(value, "columns") and getattr(value, "ndim", None) == 2:
        raise TypeError(f"{what}: got a {type(value).__name__} (its iteration gives the column names): pass the "
                        f"column of texts, e.g. frame['text']")
    if isinstance(value, (dict, set, frozenset)):
        raise TypeError(f"{what}: got a {type(value).__name__}: pass a list of its texts")
    if getattr(value, "ndim", 1) != 1:
        raise TypeError(f"{what}: expected a 1-D array of str, got {value.ndim} dimensions")
    try:
        return tuple(value)
    except TypeError:
        raise TypeError(f"{what}: expected texts (a list of str), got {type(value).__name__}") from None
