"""swe: static word embeddings for sentence semantics.

    import swe
    model = swe.load()                      # the default English model, shipped with the package
    vectors = model.encode(["a man is playing a guitar", "someone plays music"])   # (2, dims) float32

Everything goes through the library's C API (swe.h), so vectors are bit-identical to the swe program's
and the npm package's. swe.Model also answers as sentence-transformers' SentenceTransformer and
Model2Vec's StaticModel do (python/README.md); swe.dask runs on Dask clusters. Importing swe needs no
NumPy; what returns vectors does.
"""
from ._swe import Error, version as _library_version
from .index import Index
from .model import Clusters, Dedupe, Model, available_models, default_model_path, load
from .quantize import quantize_embeddings
from .similarity import similarity, similarity_pairwise
from .vectors import kmeans, near_duplicate_groups
from .vocabulary import Tokenizer

__version__ = _library_version
__all__ = ["Error", "Model", "Index", "Clusters", "Dedupe", "Tokenizer", "load", "available_models",
           "default_model_path", "kmeans", "near_duplicate_groups", "similarity", "similarity_pairwise",
           "quantize_embeddings", "__version__"]
