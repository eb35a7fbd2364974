"""swe.load() and swe.Model: sentence vectors of texts as NumPy float32 arrays.

Model speaks sentence-transformers' SentenceTransformer (its constructor, encode's parameters,
get_sentence_embedding_dimension, similarity on embeddings, truncate_dim, prompts, max_seq_length) and
Model2Vec's StaticModel (from_pretrained, embedding, tokenizer, dim, normalize, encode_as_sequence),
each parameter with its meaning there, or refused where a static model cannot honour it
(python/README.md, "sentence-transformers and Model2Vec")."""
import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Union

from . import _checks, _swe
from .index import Index
from .quantize import PRECISIONS, quantize_embeddings
from .similarity import check_function, similarity, similarity_pairwise
from .vectors import kmeans, near_duplicate_groups
from .vocabulary import Tokenizer

DEFAULT_MODEL = "swe-en-use-lite-large-para.swe"
MODEL_PATH_VARIABLE = "SWE_MODEL_PATH"

# swe_encode_params.normalize (swe.h)
_NORMALIZE_MODEL, _NORMALIZE_UNIT, _NORMALIZE_NONE = 0, 1, 2

Source = Union[None, str, "os.PathLike[str]", bytes, bytearray, memoryview]
Texts = Union[str, Sequence[str]]


def _model_folders() -> List[Path]:
    """Where model names are looked up: $SWE_MODEL_PATH's folders, the package's models (the default
    model, in the wheel), and a source checkout's models/."""
    here = Path(__file__).resolve().parent
    folders = [Path(p) for p in os.environ.get(MODEL_PATH_VARIABLE, "").split(os.pathsep) if p]
    return folders + [here / "models", here.parent.parent / "models"]


def available_models() -> List[str]:
    """The names from_pretrained() and load() accept besides paths: each .swe file in the model folders
    ($SWE_MODEL_PATH, the package's, a checkout's models/), without its extension."""
    return sorted({p.stem for folder in _model_folders() if folder.is_dir() for p in folder.glob("*.swe")})


def default_model_path() -> Path:
    """The default English model: shipped in the package (swe/models/), or a source checkout's models/."""
    for folder in _model_folders()[-2:]:
        if (folder / DEFAULT_MODEL).is_file():
            return folder / DEFAULT_MODEL
    raise FileNotFoundError(f"the default model {DEFAULT_MODEL} is not installed with this package")


def _find(source: Source) -> Union[str, bytes]:
    """An absolute path or the model's bytes, for a path, a model name, bytes, or None (the default)."""
    if source is None:
        return str(default_model_path())
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"load: expected a path, a model name or bytes, got {type(source).__name__}")
    path = os.fsdecode(source)
    name = path[:-4] if path.endswith(".swe") else path
    if not os.path.exists(path) and os.sep not in path and name:  # a name: looked up in the model folders
        for folder in _model_folders():
            if (folder / f"{name}.swe").is_file():
                return str(folder / f"{name}.swe")
        error = _swe.Error(f"no model file {path!r}, nor a model of that name (names: "
                           f"{', '.join(available_models()) or 'none'}; ${MODEL_PATH_VARIABLE} adds folders)")
        error.code = "not found"
        raise error
    return os.path.abspath(path)


def load(source: Source = None, **settings) -> "Model":
    """Loads a .swe model: a file path, a model name (available_models()), the file's bytes, or nothing
    for the default English model; `settings` are Model's keyword arguments (truncate_dim, normalize,
    prompts, ...). A corrupt or unsupported file raises swe.Error with the library's message."""
    return Model(source, **settings)


class Dedupe(NamedTuple):
    texts: List[str]          # the first text of each group, in order
    groups: List[List[int]]   # indices into the texts given, each group's first is its representative


class Clusters(NamedTuple):
    labels: Any              # int32 array: each text's cluster, -1 for a text with no known word
    centroids: Any           # float32 array (k, dims)
    inertia: float
    iterations: int


class Model:
    """A loaded .swe model; the table is immutable and shared by any number of threads.

    Model(model_name_or_path=None, *, truncate_dim=None, normalize=None, prompts=None,
    default_prompt_name=None, similarity_fn_name=None, max_seq_length=None, device=None): a path, a
    model name (available_models()), the file's bytes, or None for the default English model.
    truncate_dim: encode() keeps the first truncate_dim dimensions (sentence-transformers). normalize:
    None as the model file says (every shipped model: unit vectors), True unit vectors, False the plain
    mean of the word vectors (Model2Vec's normalize). prompts: {name: text put before each text}
    (encode's prompt_name). similarity_fn_name: "cosine" (default), "dot", "euclidean", "manhattan".
    max_seq_length: only the first that many words of a text count (None: the model's limit, none for
    the shipped models). device: "cpu" or None (the library runs on the CPU).

    It pickles as its source (the file's path, with its checksum: a file changed since is refused where
    it is unpickled, or the bytes) and its settings.
    """

    def __init__(self, model_name_or_path: Source = None, *, truncate_dim: Optional[int] = None,
                 normalize: Optional[bool] = None, prompts: Optional[Dict[str, str]] = None,
                 default_prompt_name: Optional[str] = None, similarity_fn_name: Optional[str] = None,
                 max_seq_length: Optional[int] = None, device: Optional[str] = None):
        _check_device(device)
        source = _find(model_name_or_path)
        self._handle = _swe.Model.load_bytes(source) if isinstance(source, bytes) else _swe.Model.load_file(source)
        self._source = source
        self.info: Dict[str, Any] = json.loads(self._handle.info_json)
        """The model's description: name, dims, vocab_size, dtype, normalize, checksum, scores, ..."""
        self.truncate_dim = truncate_dim
        self.normalize = normalize
        self.prompts: Dict[str, str] = dict(prompts or {})
        if default_prompt_name is not None and default_prompt_name not in self.prompts:
            raise ValueError(f"default_prompt_name {default_prompt_name!r} is not in prompts ({sorted(self.prompts)})")
        self.default_prompt_name = default_prompt_name
        self.similarity_fn_name = check_function(similarity_fn_name or "cosine")
        self.max_seq_length = max_seq_length
        self._vocabulary: Optional[Dict[str, int]] = None
        self._table = None

    @classmethod
    def from_pretrained(cls, path: Source = None, *, normalize: Optional[bool] = None, **settings) -> "Model":
        """Model2Vec's StaticModel.from_pretrained: a path or a model name (available_models()).
        normalize=False gives the plain mean of the word vectors; other keywords as Model()."""
        return cls(path, normalize=normalize, **settings)

    # ---- settings --------------------------------------------------------------------------------

    @property
    def normalize(self) -> bool:
        """Whether sentence vectors have unit length (Model2Vec's normalize): the file's choice unless
        the model was loaded (or set) with True or False; False gives the plain mean of the word vectors."""
        if self._normalize_code == _NORMALIZE_MODEL:
            return bool(self.info.get("normalize", True))
        return self._normalize_code == _NORMALIZE_UNIT

    @normalize.setter
    def normalize(self, value: Optional[bool]) -> None:
        if value is not None and not isinstance(value, bool):
            raise TypeError(f"normalize must be None, True or False, got {type(value).__name__}")
        self._normalize_code = {None: _NORMALIZE_MODEL, True: _NORMALIZE_UNIT, False: _NORMALIZE_NONE}[value]

    @property
    def device(self) -> str:
        return "cpu"

    @property
    def dims(self) -> int:
        """Dimensions of the model's vectors (before truncate_dim)."""
        return self._handle.dims

    @property
    def dim(self) -> int:
        """Model2Vec's name for dims."""
        return self._handle.dims

    @property
    def vocab_size(self) -> int:
        """Number of vocabulary words."""
        return self._handle.vocab_size

    @property
    def name(self) -> str:
        return self.info.get("name", "")

    def get_sentence_embedding_dimension(self) -> int:
        """Dimensions of encode()'s vectors: truncate_dim when set, else the model's."""
        return self._truncate_dim(None) or self.dims

    def __repr__(self) -> str:
        return (f"swe.Model(name={self.name!r}, dims={self.dims}, vocab_size={self.vocab_size}, "
                f"dtype={self.info.get('dtype')!r})")

    def __reduce__(self):
        settings = {"truncate_dim": self.truncate_dim, "normalize": _NORMALIZE_NAMES[self._normalize_code],
                    "prompts": self.prompts, "default_prompt_name": self.default_prompt_name,
                    "similarity_fn_name": self.similarity_fn_name, "max_seq_length": self.max_seq_length}
        return (_unpickle, (self._source, self.info.get("checksum"), settings))

    # ---- the vocabulary and the table (Model2Vec) ---------------------------------------------------

    @property
    def vocabulary(self) -> Dict[str, int]:
        """word -> row of the table, every vocabulary word (built on first use)."""
        if self._vocabulary is None:
            self._vocabulary = {word: row for row, word in enumerate(self._words())}
        return self._vocabulary

    @property
    def tokenizer(self) -> Tokenizer:
        """The vocabulary and word splitting, as Model2Vec users call its tokenizer (swe.Tokenizer)."""
        return Tokenizer(self)

    @property
    def embedding(self):
        """The table: float32 (vocab_size, dims), row r the vector of the word at row r (int8 tables
        multiplied by their scales). Read-only; made on first use (vocab_size x dims x 4 bytes)."""
        if self._table is None:
            table, self._weights = self._handle.rows()
            table.flags.writeable = False
            self._weights.flags.writeable = False
            self._table = table
        return self._table

    @property
    def weights(self):
        """Each row's weight in the mean (float32 (vocab_size,); all 1 when the model has none)."""
        self.embedding
        return self._weights

    def _words(self) -> List[str]:
        if not hasattr(self, "_word_list"):
            self._word_list = self._handle.words()
        return self._word_list

    # ---- encoding ---------------------------------------------------------------------------------

    def encode(self, sentences: Texts, *, prompt_name: Optional[str] = None, prompt: Optional[str] = None,
               batch_size: Optional[int] = None, show_progress_bar: Optional[bool] = None,
               output_value: Optional[str] = "sentence_embedding", precision: str = "float32",
               convert_to_numpy: bool = True, convert_to_tensor: bool = False, device: Optional[str] = None,
               normalize_embeddings: bool = False, truncate_dim: Optional[int] = None, dims: Optional[int] = None,
               max_length: Optional[int] = None, threads: Optional[int] = None, out=None):
        """Sentence vectors: float32 (len(sentences), dims), or (dims,) for one str; a text with no known
        word gives a zero row. Takes a list, tuple, generator, 1-D array or pandas Series of str.

        sentence-transformers' parameters, with its meanings: prompt / prompt_name (self.prompts; else
        default_prompt_name) put before each text; normalize_embeddings=True rescales to unit length
        (after truncate_dim); truncate_dim (default self.truncate_dim) keeps the first dimensions;
        precision "float32", "int8", "uint8", "binary" or "ubinary" (swe.quantize_embeddings);
        convert_to_tensor / convert_to_numpy=False give torch tensors (needs torch); batch_size: texts
        per call into the library (progress steps; the vectors do not depend on it); device: "cpu".
        output_value: "sentence_embedding" only (a word's vectors: encode_as_sequence()).
        Model2Vec's: max_length (default self.max_seq_length): only the first that many words count.
        swe's own: dims keeps the first dims dimensions and scales them as the model does (unit for the
        shipped models; not with truncate_dim); threads (default: the CPUs this process may use)
        splits batches of thousands of texts; out, a C-contiguous float32 array of the result's shape,
        receives the vectors (float32 precision, no truncate_dim). The GIL is released while encoding.
        """
        if (prompt_name is None and prompt is None and batch_size is None and not show_progress_bar
                and truncate_dim is None and max_length is None and precision == "float32" and device is None
                and not normalize_embeddings and convert_to_numpy is True and not convert_to_tensor
                and output_value == "sentence_embedding" and self.truncate_dim is None
                and self.max_seq_length is None and self.default_prompt_name is None):
            # The common call, without the steps below that would change nothing (a short text's encode
            # costs about a microsecond: each step here is a tenth of it).
            encode_dims = 0 if dims is None else self._dims(dims)
            try:
                if type(sentences) is str:
                    return self._handle.encode_one(sentences, encode_dims, self._normalize_code, 0, out)
                if type(sentences) is list or type(sentences) is tuple:
                    n_threads = _checks.CPUS if threads is None else _checks.threads(threads)
                    return self._handle.encode(sentences, encode_dims, self._normalize_code, 0, n_threads, out)
            except ImportError:  # the extension's arrays need NumPy: say so (free while nothing is raised)
                _checks.numpy()
                raise
        _checks.numpy()
        if output_value != "sentence_embedding":
            raise ValueError(f"output_value={output_value!r}: a static model gives sentence embeddings only "
                             "(the vectors of a text's words: encode_as_sequence())")
        _check_device(device)
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        truncate = self._truncate_dim(truncate_dim)
        if truncate and dims is not None:
            raise ValueError("give dims or truncate_dim, not both")
        if out is not None and (truncate or precision != "float32"):
            raise ValueError("out receives float32 vectors of all dimensions: not with truncate_dim or precision")
        # normalize_embeddings: unit length after truncation, which is what the library's dims do.
        encode_dims = self._dims(truncate if normalize_embeddings and truncate else dims)
        if normalize_embeddings:
            truncate = None
        normalize = _NORMALIZE_UNIT if normalize_embeddings else self._normalize_code
        max_tokens = self._max_tokens(max_length)
        prefix = self._prompt(prompt_name, prompt)
        n_threads = _checks.threads(threads)
        if isinstance(sentences, str):
            vectors = self._handle.encode_one(prefix + sentences if prefix else sentences, encode_dims, normalize,
                                              max_tokens, out)
        else:
            texts = _checks.texts(sentences, "encode")
            if prefix:
                texts = tuple(prefix + t if isinstance(t, str) else t for t in texts)
            vectors = self._encode_texts(texts, encode_dims, normalize, max_tokens, n_threads, out, batch_size,
                                         bool(show_progress_bar))
        if truncate:
            vectors = vectors[..., :truncate].copy()
        if precision != "float32":
            one = vectors.ndim == 1
            vectors = quantize_embeddings(vectors[None] if one else vectors, precision)
            vectors = vectors[0] if one else vectors
        if convert_to_tensor or not convert_to_numpy:
            return _to_torch(vectors, convert_to_tensor)
        return vectors

    def _encode_texts(self, texts: tuple, dims: int, normalize: int, max_tokens: int, threads: int, out,
                      batch_size: Optional[int], progress: bool):
        if batch_size is None and not progress:
            return self._handle.encode(texts, dims, normalize, max_tokens, threads, out)
        np = _checks.numpy()
        n = len(texts)
        if out is None:
            out = np.empty((n, self._handle.encode_dims(dims)), dtype=np.float32)
        else:
            self._handle.encode((), dims, normalize, max_tokens, threads, out[:0])  # checks out's type and shape
            if out.shape[0] != n:
                raise ValueError(f"encode: out has {out.shape[0]} rows for {n} texts")
        step = _checks.check_int(batch_size, "batch_size", 1, 2**62) if batch_size is not None else max(1, min(n, 10000))
        for start in range(0, n, step):
            self._handle.encode(texts[start:start + step], dims, normalize, max_tokens, threads, out[start:start + step])
            if progress:
                done = min(n, start + step)
                print(f"\rswe: encoded {done}/{n} texts", end="\n" if done == n else "", file=sys.stderr, flush=True)
        return out

    def encode_as_sequence(self, sentences: Texts, max_length: Optional[int] = None):
        """Model2Vec's encode_as_sequence: for each text, the vectors of its known words in order, float32
        (words, dims): rows of `embedding` (the sentence vector is their mean, weighted by `weights`,
        and scaled as `normalize` says). One str gives one array."""
        np = _checks.numpy()
        limit = self._max_tokens(max_length) or None
        one = isinstance(sentences, str)
        texts = (sentences,) if one else _checks.texts(sentences, "encode_as_sequence")
        out = []
        for text in texts:
            rows = [t["row"] for t in self.tokenize(text)[:limit] if t["row"] >= 0]
            out.append(self.embedding[np.asarray(rows, dtype=np.int64)])
        return out[0] if one else out

    def encode_with_info(self, texts: Texts, *, dims: Optional[int] = None, threads: Optional[int] = None):
        """(vectors, known_words): encode() of a list (shape (n, dims), the model's own vectors), and how
        many words of each text the model knows (uint32), from the same pass. A text with 0 known words
        has a zero row: it matches nothing."""
        texts = (texts,) if isinstance(texts, str) else _checks.texts(texts, "encode_with_info")
        return self._handle.encode_with_info(texts, self._dims(dims), _checks.threads(threads))

    # ---- similarity -------------------------------------------------------------------------------

    def similarity(self, a, b, *, dims: Optional[int] = None):
        """Similarity by self.similarity_fn_name (cosine unless set). Of embeddings (sentence-transformers'
        similarity: arrays of 1 or 2 dimensions, or tensors): the (len(a), len(b)) matrix. Of texts: a
        float for two str (the library's cosine, 0 when either has no known word), else the matrix of
        their vectors' similarities."""
        if _is_texts(a) or _is_texts(b):
            if not (_is_texts(a) and _is_texts(b)):
                raise TypeError("similarity: give two texts (or lists of texts) or two arrays of embeddings")
            if isinstance(a, str) and isinstance(b, str) and self.similarity_fn_name == "cosine":
                return self._handle.similarity(a, b, self._dims(dims))
            matrix = similarity(self.encode([a] if isinstance(a, str) else a, dims=dims),
                                self.encode([b] if isinstance(b, str) else b, dims=dims), self.similarity_fn_name)
            return float(matrix[0, 0]) if isinstance(a, str) and isinstance(b, str) else matrix
        return similarity(a, b, self.similarity_fn_name)

    def similarity_pairwise(self, a, b):
        """sentence-transformers' similarity_pairwise: the similarity of a[i] and b[i] for each i, (n,)."""
        return similarity_pairwise(a, b, self.similarity_fn_name)

    # ---- words, ranking, groups -------------------------------------------------------------------

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
        texts = _checks.texts(texts, "rank")
        return self._rank(query, texts, len(texts), min_score, dims)

    def topk(self, query: str, texts: Sequence[str], k: int, *, min_score: Optional[float] = None,
             dims: Optional[int] = None) -> List[Dict[str, Any]]:
        """The k texts most similar to `query`: rank() cut to k (without ranking the rest)."""
        k = _checks.check_int(k, "k", 0, 2**62)
        return self._rank(query, _checks.texts(texts, "topk"), k, min_score, dims)

    def dedupe(self, texts: Sequence[str], threshold: float = 0.9, *, dims: Optional[int] = None) -> Dedupe:
        """Near-duplicate groups (each member has cosine >= threshold with its group's first text) and
        the first text of each group, in order; as `swe dedupe` and the npm package's dedupe()."""
        texts = _checks.texts(texts, "dedupe")
        groups = near_duplicate_groups(self._model_vectors(texts, dims), _checks.score(threshold, "threshold"))
        return Dedupe([texts[g[0]] for g in groups], groups)

    def cluster(self, texts: Sequence[str], k: int, *, seed: int = 0, restarts: int = 4, iterations: int = 100,
                dims: Optional[int] = None) -> Clusters:
        """k-means clusters of the texts (as `swe cluster`): texts with no known word are left out
        (label -1); the others get the clusters kmeans() finds for their vectors and the seed."""
        vectors = self._model_vectors(_checks.texts(texts, "cluster"), dims)
        return Clusters(*kmeans(vectors, k, seed=seed, restarts=restarts, iterations=iterations))

    def create_index(self, *, dtype: str = "f32", dims: Optional[int] = None) -> Index:
        """A new empty swe.Index for this model's vectors (dtype 'f32' or 'int8')."""
        return Index(self, dtype=dtype, dims=dims)

    def _model_vectors(self, texts: tuple, dims: Optional[int]):
        # The file's own vectors (as `swe search`, `dedupe` and `cluster` make them), whatever the settings.
        return self._handle.encode(texts, self._dims(dims), _NORMALIZE_MODEL, 0, _checks.CPUS, None)

    def _rank(self, query: str, texts: tuple, k: int, min_score: Optional[float], dims: Optional[int]):
        # The library's swe_vectors_rank over the model's own vectors (as `swe search` indexes them).
        if not isinstance(query, str):
            raise TypeError(f"rank: query must be a str, got {type(query).__name__}")
        floor = float("-inf") if min_score is None else _checks.score(min_score, "min_score")
        q = self._model_vectors((query,), dims)
        rows, scores = _swe.rank(q, self._model_vectors(texts, dims), k, floor)
        return [{"index": int(i), "text": texts[i], "score": float(s)} for i, s in zip(rows, scores)]

    def _dims(self, dims: Optional[int]) -> int:
        return 0 if dims is None else _checks.check_int(dims, "dims", 1, self.dims)

    def _truncate_dim(self, truncate_dim: Optional[int]) -> Optional[int]:
        value = self.truncate_dim if truncate_dim is None else truncate_dim
        return _checks.optional_int(value, "truncate_dim", 1, self.dims)

    def _max_tokens(self, max_length: Optional[int]) -> int:
        value = self.max_seq_length if max_length is None else max_length
        return 0 if value is None else _checks.check_int(value, "max_length", 1, _checks.MAX_UINT32)

    def _prompt(self, prompt_name: Optional[str], prompt: Optional[str]) -> str:
        if prompt is not None:
            if not isinstance(prompt, str):
                raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
            return prompt
        name = self.default_prompt_name if prompt_name is None else prompt_name
        if name is None:
            return ""
        if name not in self.prompts:
            raise ValueError(f"prompt name {name!r} is not in the model's prompts ({sorted(self.prompts)})")
        return self.prompts[name]


_NORMALIZE_NAMES = {_NORMALIZE_MODEL: None, _NORMALIZE_UNIT: True, _NORMALIZE_NONE: False}


def _unpickle(source: Union[str, bytes], checksum: Optional[str], settings: Dict[str, Any]) -> Model:
    model = Model(source, **settings)
    if checksum is not None and model.info.get("checksum") != checksum:
        error = _swe.Error(f"{source}: the model file changed since this Model was pickled (checksum {checksum}, "
                           f"now {model.info.get('checksum')}): load it again")
        error.code = "changed"
        raise error
    return model


def _check_device(device: Optional[str]) -> None:
    if device is not None and str(device) != "cpu":
        raise ValueError(f"device={device!r}: swe runs on the CPU (device='cpu' or None)")


def _is_texts(value) -> bool:
    return isinstance(value, str) or (isinstance(value, (list, tuple)) and len(value) > 0 and isinstance(value[0], str))


def _to_torch(vectors, as_tensor: bool):
    """sentence-transformers' convert_to_tensor (one tensor) and convert_to_numpy=False (a list of tensors)."""
    try:
        import torch
    except ImportError:
        raise ImportError("convert_to_tensor and convert_to_numpy=False give torch tensors, and torch is not "
                          "installed: leave them as they are for NumPy arrays") from None
    tensor = torch.from_numpy(vectors)
    return tensor if as_tensor or vectors.ndim == 1 else list(tensor)
