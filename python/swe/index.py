"""swe.Index: a flat, exact cosine index of texts or vectors, saved in the same .swi files as
`swe index build` and the npm package's Index.save() write (each reads the others' files)."""
import json
import os
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _checks, _swe

if TYPE_CHECKING:  # swe.model imports this module, not the other way round
    from .model import Model

Id = Union[int, str]
Hit = Dict[str, Any]


class Index:
    """Entries of (id, vector): an integer id, or a document with a string id, its text and metadata.

    Index(model) makes an empty index for the model's vectors; Index.load(path_or_bytes, model) reads
    one. Equal scores are ordered by ascending entry id. Safe to use from many threads at once: searches
    run side by side (without the GIL), and each change waits for them and runs alone (the library's
    lock, swe.h).
    """

    def __init__(self, model: Optional["Model"] = None, *, dtype: str = "f32", dims: Optional[int] = None,
                 _handle: Optional["_swe.Index"] = None):
        if _handle is None:
            if model is None and dims is None:
                raise TypeError("Index: give the model (or dims, for an index of vectors only)")
            if model is not None:
                dims = model.dims if dims is None else model._handle.encode_dims(model._dims(dims))
            dims = _checks.check_int(dims, "dims", 1, 65536)
            if dtype not in ("f32", "int8"):
                raise ValueError(f"dtype must be 'f32' or 'int8', got {dtype!r}")
            _handle = _swe.Index.create(dims, dtype)
            if model is not None:
                _handle.set_model(model._handle)
        elif model is not None:
            _handle.check_model(model._handle)
        self._handle = _handle
        self.model = model

    @classmethod
    def load(cls, source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
             model: Optional["Model"] = None) -> "Index":
        """Reads an index from a file path or its bytes. With `model`, checks that the index was built
        with it (swe.Error otherwise); text queries need the model."""
        if isinstance(source, (bytes, bytearray, memoryview)):
            handle = _swe.Index.load_bytes(source)
        elif isinstance(source, (str, os.PathLike)):
            handle = _swe.Index.load_file(os.fsdecode(source))
        else:
            raise TypeError(f"Index.load: expected a path or bytes, got {type(source).__name__}")
        return cls(model, _handle=handle)

    def save(self, path: Union[None, str, "os.PathLike[str]"] = None) -> Optional[bytes]:
        """Writes the index to `path`, or returns its bytes (a whole file). To the file it was loaded
        from or last saved to, the changes since are appended as one record (docs/FORMAT.md, "Index
        change log"); otherwise the file is replaced atomically with the whole index."""
        if path is None:
            return self._handle.save_bytes()
        self._handle.save_file(os.fsdecode(path))
        return None

    def __reduce__(self):  # its file's bytes and its model (Dask moves shards between workers)
        return (Index.load, (self._handle.save_bytes(), self.model))

    def __len__(self) -> int:
        return self._handle.size

    @property
    def dims(self) -> int:
        return self._handle.dims

    @property
    def dtype(self) -> str:
        return self._handle.dtype

    @property
    def doc_count(self) -> int:
        """Number of entries that hold a document (string id, text, metadata)."""
        return self._handle.doc_count

    def __repr__(self) -> str:
        return f"swe.Index(size={len(self)}, dims={self.dims}, dtype={self.dtype!r}, doc_count={self.doc_count})"

    def add(self, ids: Union[Id, Sequence[Id]], texts: Union[None, str, Sequence[str]] = None,
            metadata: Optional[Sequence[Any]] = None, *, vectors=None) -> None:
        """Adds entries, replacing those with the same id.

        String ids add documents: each text is encoded and stored with its metadata (any JSON value;
        None: none). Integer ids (>= 0) add the texts' vectors only. `vectors` (rows of dims floats)
        may be given instead of texts (with string ids, texts are still stored when given).
        """
        single = isinstance(ids, str) or _checks.is_int(ids)
        id_list = [ids] if single else list(ids)
        if isinstance(texts, str):
            texts = [texts]
        if texts is not None:
            texts = list(texts)
            if len(texts) != len(id_list):
                raise ValueError(f"add: {len(id_list)} ids for {len(texts)} texts")
        if vectors is None:
            if texts is None:
                raise TypeError("add: give texts or vectors")
            vectors = self._encode(texts)
        if id_list and all(isinstance(i, str) for i in id_list):
            meta = [None] * len(id_list) if metadata is None else list(metadata)
            if len(meta) != len(id_list):
                raise ValueError(f"add: {len(id_list)} ids for {len(meta)} metadata values")
            meta_json = ["" if m is None else json.dumps(m, ensure_ascii=False) for m in meta]
            self._handle.add_docs(id_list, texts if texts is not None else [""] * len(id_list), meta_json, vectors)
            return
        for i in id_list:
            if not _checks.is_int(i):
                raise TypeError(f"add: ids must be all str or all non-negative integers, got {type(i).__name__}")
            _checks.check_int(i, "add: an id", 0, _checks.MAX_UINT64)
        if metadata is not None:
            raise ValueError("add: metadata is stored with documents (string ids) only")
        np = _checks.numpy()
        self._handle.add(np.asarray(id_list, dtype=np.uint64), vectors)

    def search(self, query, k: int = 10, *, min_score: Optional[float] = None, candidates: int = 0):
        """The k best entries for `query`, best first: [{id, score}] plus a document's text and metadata.

        query: a str, a vector of dims floats, or a list of str / 2-D array of queries (then a list of
        hit lists). A query with no known word (the zero vector) has no hits. min_score drops hits
        below it; candidates = N (>= k) searches approximately (1-bit codes, N rescored exactly).
        """
        np = _checks.numpy()
        k = _checks.check_int(k, "k", 0, 2**62)
        candidates = _checks.check_int(candidates, "candidates", 0, 2**62)
        floor = -np.inf if min_score is None else _checks.score(min_score, "min_score")
        if isinstance(query, (list, tuple)) and not query:
            return []
        one = isinstance(query, str) or (not isinstance(query, (list, tuple)) and np.ndim(query) == 1)
        if isinstance(query, str) or (isinstance(query, (list, tuple)) and query and isinstance(query[0], str)):
            vectors = self._encode([query] if one else query)
        else:
            vectors = query
        ids, scores, counts = self._handle.search_batch(vectors, k, floor, candidates)
        hits = [[self._hit(int(ids[q, j]), float(scores[q, j])) for j in range(counts[q])] for q in range(len(counts))]
        return hits[0] if one else hits

    def search_arrays(self, vectors, k: int = 10, *, min_score: Optional[float] = None, candidates: int = 0):
        """search() of a 2-D array of query vectors as arrays: (ids uint64 (n, k'), scores float32
        (n, k'), counts int64 (n,)), k' = min(k, len(self)); query q's hits are its first counts[q]."""
        k = _checks.check_int(k, "k", 0, 2**62)
        candidates = _checks.check_int(candidates, "candidates", 0, 2**62)
        floor = float("-inf") if min_score is None else _checks.score(min_score, "min_score")
        return self._handle.search_batch(vectors, k, floor, candidates)

    def get(self, id: str) -> Dict[str, Any]:
        """The document `id`: {id, text, metadata?}; KeyError when absent."""
        entry = self._handle.find_doc(id)
        if entry is None:
            raise KeyError(id)
        return self._doc(entry)

    def remove(self, id: Id) -> bool:
        """Removes the entry `id` (an integer, or a document's string id); False when it was not there."""
        entry = self._entry(id)
        return entry is not None and self._handle.remove(entry)

    def __contains__(self, id: Id) -> bool:
        entry = self._entry(id)
        return entry is not None and self._handle.contains(entry)

    def ids(self) -> List[Id]:
        """Every entry's id in storage order: a document's string id, else the integer id."""
        return [self._hit(int(entry))["id"] for entry in self._handle.ids()]

    def _entry(self, id: Id) -> Optional[int]:
        if isinstance(id, str):
            return self._handle.find_doc(id)
        if not _checks.is_int(id):
            raise TypeError(f"id must be a str or an integer, got {type(id).__name__}")
        return int(id) if 0 <= id <= _checks.MAX_UINT64 else None

    def _encode(self, texts: Iterable[str]):
        if self.model is None:
            raise TypeError("this index has no model: load it with Index.load(path, model) to use texts")
        return self.model._model_vectors(_checks.texts(texts, "add"), self.dims if self.dims != self.model.dims else None)

    def _doc(self, entry: int) -> Optional[Dict[str, Any]]:
        doc = self._handle.get_doc(entry)
        if doc is None:
            return None
        out = {"id": doc[0], "text": doc[1]}
        if doc[2]:
            out.update(_stored_metadata(doc[2]))
        return out

    def _hit(self, entry: int, score: Optional[float] = None) -> Hit:
        doc = self._doc(entry) if self.doc_count > 0 else None
        hit: Hit = {"id": entry if doc is None else doc["id"]}
        if score is not None:
            hit["score"] = score
        if doc is not None:
            hit["text"] = doc["text"]
            for key in ("metadata", "metadata_error"):
                if key in doc:
                    hit[key] = doc[key]
        return hit


_MAX_JSON_DEPTH = 128  # as every writer checks metadata (swe.h): deeper was not written by swe


def _json_depth_within(text: str, limit: int) -> bool:
    depth, in_string, escaped = 0, False, False
    for c in text:
        if in_string:
            escaped, in_string = (not escaped and c == "\\"), in_string and (escaped or c != '"')
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > limit:
                return False
        elif c in "]}":
            depth -= 1
    return True


def _stored_metadata(text: str) -> Dict[str, Any]:
    """{"metadata": value}, or {"metadata_error": why} for stored metadata that is not JSON within 128
    levels (not written by swe: a file made some other way), as the CLI and swe serve show it."""
    problem = "JSON nested deeper than 128 levels"
    if _json_depth_within(text, _MAX_JSON_DEPTH):
        try:
            return {"metadata": json.loads(text)}
        except ValueError:
            problem = "not JSON"
    return {"metadata_error": "the stored metadata cannot be shown: " + problem}
