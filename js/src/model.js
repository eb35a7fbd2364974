// Model: a loaded .swe model (its C handle through the binding, on either backend), encoding texts
// into sentence vectors. Index (search-index.js) stands beside it on the binding, sharing the model's handle.
import { checkTexts, describe } from './checks.js';
import { Index } from './search-index.js';
import { kmeans, nearDuplicateGroups, similarityMatrix } from './helpers.js';

export class Model {
  #binding;
  #model;  // Handle
  #info = null;

  /** @internal Use loadModel(). */
  constructor(binding, ptr) {
    this.#binding = binding;
    this.#model = binding.modelHandle(ptr);
  }

  /** Dimensions of the model's vectors. */
  get dims() { return this.#binding.modelDims(this.#model.ptr); }

  /** Number of vocabulary words. */
  get vocabSize() { return this.#binding.modelVocabSize(this.#model.ptr); }

  /** The model's description (name, dims, dtype, provenance, tokenizer settings, ...), parsed once. */
  get info() {
    if (this.#info === null) this.#info = deepFreeze(JSON.parse(this.#binding.modelInfoJson(this.#model.ptr)));
    return this.#info;
  }

  /** True once dispose() was called. */
  get disposed() { return this.#model.disposed; }

  /**
   * Sentence vectors of `texts` (a string or an array of strings): a Float32Array of
   * texts.length × dims floats, row-major. Text without a known word gives a zero row.
   * options.dims keeps only the first dims dimensions (renormalised); options.out, a Float32Array of
   * at least that many floats, receives the vectors instead of a new array (and is returned) — for
   * hot loops, where allocating the result costs as much as encoding short texts.
   */
  encode(texts, options = {}) {
    const binding = this.#binding;
    const dims = this.#encodeDims(options, 'encode');
    if (typeof texts === 'string') {  // one query, as users type: the short path (no batch records)
      if (options.out === undefined) return binding.encodeOneNew(this.#model.ptr, texts, dims);
      const out = outputArray(options.out, dims);
      binding.encodeOne(this.#model.ptr, texts, dims, out);
      return out;
    }
    const list = checkTexts(texts, 'encode');
    const out = outputArray(options.out, list.length * dims);
    binding.encodeMany(this.#model.ptr, list, dims, out, null);
    return out;
  }

  /**
   * encode() without blocking the event loop for more than a few milliseconds, for large batches: a
   * promise of the same Float32Array, bit for bit. With the native addon the texts are encoded on
   * libuv's thread pool (several chunks at once); with WebAssembly in chunks on this thread, between
   * which the event loop runs. dispose() while it runs frees the model once it is done.
   */
  async encodeAsync(texts, options = {}) {
    const list = typeof texts === 'string' ? [texts] : checkTexts(texts, 'encodeAsync');
    const dims = this.#encodeDims(options, 'encodeAsync');
    const [model, release] = this.#model.hold();
    try {
      return (await this.#binding.encodeAsync(model, list, dims)).vectors;
    } finally {
      release();
    }
  }

  /**
   * Like encode(), and how many words of each text were known (from the same pass):
   * { vectors, knownWords: Uint32Array }. A text with knownWords 0 has a zero row: it has no meaning
   * to compare, so callers can drop it.
   */
  encodeWithInfo(texts, options = {}) {
    const list = typeof texts === 'string' ? [texts] : checkTexts(texts, 'encodeWithInfo');
    const dims = this.#encodeDims(options, 'encodeWithInfo');
    const vectors = new Float32Array(list.length * dims);
    const knownWords = new Uint32Array(list.length);
    this.#binding.encodeMany(this.#model.ptr, list, dims, vectors, knownWords);
    return { vectors, knownWords };
  }

  /** Cosine similarities of texts `a` with texts `b` (default `a`): Float32Array a.length × b.length. */
  similarityMatrix(a, b = a, options = {}) {
    const dims = this.#encodeDims(options, 'similarityMatrix');
    const va = this.encode(checkTexts(a, 'similarityMatrix: a'), { dims });
    const vb = b === a ? va : this.encode(checkTexts(b, 'similarityMatrix: b'), { dims });
    return similarityMatrix(va, vb, dims);
  }

  /**
   * `texts` by similarity to `query`, best first (ties by position): [{ index, text, score }], the
   * scores `swe search` gives (the library's swe_vectors_rank). Empty when the query has no known
   * word; options.minScore drops texts scoring below it.
   */
  rank(query, texts, options = {}) {
    return this.#rank('rank', query, texts, Infinity, checkMinScore(options.minScore, 'rank'), false, options);
  }

  /** The k texts most similar to `query`: rank(query, texts, options) cut to k (without ranking the rest). */
  topk(query, texts, k, options = {}) {
    if (!Number.isInteger(k) || k < 0) throw new TypeError('topk: k must be a non-negative integer');
    return this.#rank('topk', query, texts, k, checkMinScore(options.minScore, 'topk'), false, options);
  }

  /** The texts whose similarity to `query` is at least `threshold`, in their order. */
  filter(query, texts, threshold, options = {}) {
    if (typeof threshold !== 'number' || Number.isNaN(threshold)) throw new TypeError('filter: threshold must be a number');
    return this.#rank('filter', query, texts, Infinity, threshold, true, options).map((hit) => hit.text);
  }

  /**
   * Near-duplicate groups: { texts, groups } where groups are arrays of indices into `texts` (each
   * member has cosine ≥ threshold, default 0.9, with the group's first) and `texts` keeps each
   * group's first text, in order. Texts without a known word are never merged.
   */
  dedupe(texts, threshold = 0.9, options = {}) {
    const dims = this.#encodeDims(options, 'dedupe');
    const list = checkTexts(texts, 'dedupe');
    const groups = nearDuplicateGroups(this.encode(list, { dims }), dims, threshold);
    return { texts: groups.map((g) => list[g[0]]), groups };
  }

  /**
   * k-means clusters of the texts' vectors (the best of options.restarts k-means++ starts, default 4,
   * from options.seed, default 0, so the result is the same on every run, and `swe cluster`'s):
   * { labels, centroids, inertia, iterations } as kmeans() returns. A text with no known word is in no
   * cluster (label -1); k is at most the number of texts with one.
   */
  cluster(texts, k, options = {}) {
    const dims = this.#encodeDims(options, 'cluster');
    return kmeans(this.encode(checkTexts(texts, 'cluster'), { dims }), dims, k, options);
  }

  /** Cosine similarity of the vectors of two texts, in [-1, 1] (0 when either has no known word). */
  similarity(a, b, options = {}) {
    checkString(a, 'similarity: a');
    checkString(b, 'similarity: b');
    return this.#binding.similarity(this.#model.ptr, a, b, encodeParams(options, 'similarity'));
  }

  /**
   * The words of `text` in order and how each matched the vocabulary: [{word, start, end, row,
   * match}], start/end indices into the JS string, row -1 and match "unknown" for skipped words.
   */
  tokenize(text) {
    checkString(text, 'tokenize');
    const toIndex = byteToIndexMapper(text);
    return this.#binding.analyze(this.#model.ptr, text).map(({ begin, end, row, match }) => {
      const start = toIndex(begin);
      const stop = toIndex(end);
      return { word: text.slice(start, stop), start, end: stop, row, match };
    });
  }

  /**
   * A new empty search index for this model's vectors. options.dtype "f32" (default) or "int8";
   * options.dims as in encode(); options.ids "number" (default) or "bigint" for the type of ids.
   */
  createIndex(options = {}) {
    const dims = this.#encodeDims(options, 'createIndex');
    const dtype = options.dtype ?? 'f32';
    const code = dtype === 'f32' || dtype === 'int8' ? this.#binding.dtypeCodes[dtype] : undefined;
    if (code === undefined) throw new TypeError(`createIndex: dtype must be "f32" or "int8", not ${JSON.stringify(dtype)}`);
    return Index.create(this.#binding, this.#model, dims, code, options);
  }

  /** An index saved with Index.save(), checked against this model. options.ids as in createIndex(). */
  loadIndex(bytes, options = {}) {
    return Index.load(this.#binding, this.#model, bytes, options);
  }

  /** Frees the model's memory. Further use throws; calling it again does nothing. */
  dispose() { this.#model.dispose(); }

  // The k best texts for `query` scoring at least minScore, [{ index, text, score }], best first or in
  // their order (rowOrder).
  #rank(what, query, texts, k, minScore, rowOrder, options) {
    checkString(query, `${what}: query`);
    const dims = this.#encodeDims(options, what);
    const list = checkTexts(texts, what);
    const hits = this.#binding.vectorsRank(this.encode(query, { dims }), this.encode(list, { dims }), dims,
                                           Math.min(k, list.length), minScore, rowOrder);
    return hits.map(([index, score]) => ({ index, text: list[index], score }));
  }

  // Encode dims for options.dims (0 or absent: all), validated.
  #encodeDims(options, what) {
    const dims = this.#binding.modelEncodeDims(this.#model.ptr);
    const wanted = encodeParams(options, what);
    if (wanted > dims) throw new RangeError(`${what}: dims ${wanted} exceeds the model's ${dims}`);
    return wanted === 0 ? dims : wanted;
  }
}

// options.dims as the swe_encode_params value (0 = all).
function encodeParams(options, what) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${what}: options must be an object, got ${describe(options)}`);
  }
  const dims = options.dims ?? 0;
  if (!Number.isInteger(dims) || dims < 0 || dims > 0xffffffff) {
    throw new TypeError(`${what}: options.dims must be a non-negative integer`);
  }
  return dims;
}

function outputArray(out, length) {
  if (out === undefined) return new Float32Array(length);
  if (!(out instanceof Float32Array)) throw new TypeError(`encode: options.out must be a Float32Array, got ${describe(out)}`);
  if (out.length < length) throw new RangeError(`encode: options.out holds ${out.length} floats, ${length} are needed`);
  return out;
}

function checkMinScore(value, what) {
  if (value === undefined) return -Infinity;
  if (typeof value !== 'number' || Number.isNaN(value)) throw new TypeError(`${what}: options.minScore must be a number`);
  return value;
}

function checkString(value, what) {
  if (typeof value !== 'string') throw new TypeError(`${what}: expected a string, got ${describe(value)}`);
}

// A function from increasing UTF-8 byte offsets of `text` (as TextEncoder writes it) to string indices.
function byteToIndexMapper(text) {
  let index = 0;
  let byte = 0;
  return (target) => {
    if (target < byte) { index = 0; byte = 0; }
    while (byte < target && index < text.length) {
      const unit = text.charCodeAt(index);
      if (unit < 0x80) { byte += 1; index += 1; } else if (unit < 0x800) { byte += 2; index += 1; } else if (
        unit >= 0xd800 && unit < 0xdc00 && index + 1 < text.length &&
        (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
        byte += 4; index += 2;  // a surrogate pair: one 4-byte code point
      } else { byte += 3; index += 1; }  // includes lone surrogates, written as U+FFFD
    }
    return index;
  };
}

function deepFreeze(value) {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze(value[key]);
    Object.freeze(value);
  }
  return value;
}
