"""swe: static word embeddings for sentence semantics.

    import swe
    model = swe.load()                      # the default English model, shipped with the package
    vectors = model.encode(["a man is playing a guitar", "someone plays music"])   # (2, dims) float32

Everything goes through the library's C API (swe.h), so vectors are bit-identical to the swe program's
and the npm package's. See python/README.md for the API and swe.dask for Dask clusters.
"""
from ._swe import Error, version as _library_version
from .model import Clusters, Dedupe, Model, default_model_path, load
from .index import Index
from .vectors import kmeans, near_duplicate_groups

__version__ = _library_version
__all__ = ["Error", "Model", "Index", "Clusters", "Dedupe", "load", "default_model_path", "kmeans",
           "near_duplicate_groups", "__version__"]
