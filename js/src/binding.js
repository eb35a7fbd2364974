// The binding to the C API (libswe/include/swe.h) in the wasm module: the only module that calls a
// `_swe_*` export (each listed in FUNCTIONS with its C signature) and the only one that knows how a C
// struct lies in memory (LAYOUTS, wasm32). js/test/binding.test.js checks both against swe.h and
// FUNCTIONS against wasm/exported_functions.json: a function or struct that changes in swe.h fails
// there until this module follows. Model and Index (model.js, search-index.js) stand side by side on
// it, each owning its C handle through a Handle.
//
// Every view of the heap is taken afresh after a call that may allocate: memory growth detaches the old
// ArrayBuffer. Nothing returned to callers points into the heap.
import { SweError } from './checks.js';

/**
 * The C functions the package calls, as `return(parameters)` in the kinds swe.h's types have in wasm32:
 * status (swe_status), i32, u32, u64 (a BigInt in JS), f32, f64, size (size_t: a number), ptr, void.
 */
export const FUNCTIONS = {
  swe_version: 'ptr()',
  swe_status_name: 'ptr(status)',
  swe_last_error: 'ptr()',
  swe_dtype_name: 'ptr(i32)',
  swe_match_name: 'ptr(i32)',
  swe_model_buffer_new: 'ptr(size)',
  swe_model_buffer_free: 'void(ptr)',
  swe_model_load_from_buffer: 'status(ptr, size, ptr, ptr)',
  swe_model_free: 'void(ptr)',
  swe_model_get_dims: 'u32(ptr)',
  swe_model_get_vocab_size: 'u32(ptr)',
  swe_model_get_info_json: 'ptr(ptr)',
  swe_model_get_encode_dims: 'u32(ptr, ptr)',
  swe_model_encode_text: 'status(ptr, ptr, size, ptr, ptr, size, ptr)',
  swe_model_encode_batch: 'status(ptr, ptr, size, ptr, ptr, size, ptr)',
  swe_model_compute_similarity: 'status(ptr, ptr, size, ptr, size, ptr, ptr)',
  swe_model_analyze_text: 'status(ptr, ptr, size, ptr, size, ptr)',
  swe_index_create: 'status(u32, i32, ptr)',
  swe_index_load_from_bytes: 'status(ptr, size, ptr, ptr)',
  swe_index_free: 'void(ptr)',
  swe_index_get_size: 'size(ptr)',
  swe_index_get_dims: 'u32(ptr)',
  swe_index_get_dtype: 'i32(ptr)',
  swe_index_add: 'status(ptr, ptr, ptr, size)',
  swe_index_remove: 'status(ptr, u64)',
  swe_index_contains: 'i32(ptr, u64)',
  swe_index_search: 'status(ptr, ptr, u32, size, ptr, ptr, ptr, ptr)',
  swe_index_search_batch: 'status(ptr, ptr, size, u32, size, f32, ptr, ptr, ptr, ptr)',
  swe_index_get_ids: 'status(ptr, ptr, size, ptr)',
  swe_index_add_docs: 'status(ptr, ptr, ptr, size)',
  swe_index_find_doc: 'status(ptr, ptr, size, ptr)',
  swe_index_get_doc: 'status(ptr, u64, ptr)',
  swe_index_get_doc_count: 'size(ptr)',
  swe_index_set_model: 'status(ptr, ptr)',
  swe_index_check_model: 'status(ptr, ptr)',
  swe_index_save_to_bytes: 'status(ptr, ptr, ptr)',
  swe_index_save_changes: 'status(ptr, ptr, ptr, ptr)',
  swe_vectors_rank: 'status(ptr, ptr, size, u32, size, ptr, ptr, ptr, ptr)',
  swe_vectors_near_duplicates: 'status(ptr, size, u32, f64, ptr, ptr, ptr)',
  swe_vectors_kmeans: 'status(ptr, size, u32, u32, ptr, ptr, ptr, ptr, ptr)',
  swe_free_bytes: 'void(ptr)',
};

/** The C structs the package reads or writes: their size and their fields' byte offsets in wasm32. */
export const LAYOUTS = {
  swe_text: { size: 8, data: 0, size_: 4 },
  swe_doc: { size: 24, id: 0, text: 8, metadata: 16 },
  swe_token: { size: 16, begin: 0, end: 4, row: 8, match: 12 },
  swe_encode_params: { size: 4, dims: 0 },
  swe_search_params: { size: 4, candidates: 0 },
  swe_rank_params: { size: 8, min_score: 0, order: 4 },
  swe_kmeans_params: { size: 12, seed: 0, restarts: 4, max_iterations: 8 },
};
// (`size_` is swe_text's field `size`: the key `size` is every layout's own size.)

const TEXT = LAYOUTS.swe_text;
const DOC = LAYOUTS.swe_doc;
const TOKEN = LAYOUTS.swe_token;
const ENCODE_PARAMS = LAYOUTS.swe_encode_params;
const SEARCH_PARAMS = LAYOUTS.swe_search_params;
const RANK_PARAMS = LAYOUTS.swe_rank_params;
const KMEANS_PARAMS = LAYOUTS.swe_kmeans_params;
// swe_text in 32-bit words, for the loops over many records.
const kTextWords = TEXT.size >> 2;
const kTextData = TEXT.data >> 2;
const kTextSize = TEXT.size_ >> 2;
const kPtr = 4;   // a pointer or size_t out-parameter in wasm32
const kU64 = 8;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');
const kScratchKeep = 1 << 20;  // scratch memory kept between calls; larger requests are freed after
const kChunkBytes = 1 << 20;   // UTF-8 bound of the texts encoded per call into the core
const kChunkTexts = 4096;

/**
 * A C handle (a model or an index): freed by dispose() or, as a safety net, once no JS object holds the
 * Handle any more (a model's is held by its Model and by each of its Indexes).
 */
export class Handle {
  static #registry = new FinalizationRegistry(({ free, ptr }) => free(ptr));
  #ptr;
  #free;
  #what;

  constructor(ptr, free, what) {
    this.#ptr = ptr;
    this.#free = free;
    this.#what = what;
    Handle.#registry.register(this, { free, ptr }, this);
  }

  /** The pointer; throws once disposed. */
  get ptr() {
    if (this.#ptr === 0) throw new Error(`swe: the ${this.#what} was disposed`);
    return this.#ptr;
  }

  get disposed() { return this.#ptr === 0; }

  dispose() {
    if (this.#ptr === 0) return;
    Handle.#registry.unregister(this);
    this.#free(this.#ptr);
    this.#ptr = 0;
  }
}

/** The instantiated module: its C functions, heap views, a reusable scratch area and error conversion. */
export class Binding {
  constructor(module) {
    this.m = module;
    // (Object.fromEntries: an object with fast properties, where a loop of keyed stores made a
    // dictionary that every call paid a lookup in.)
    const c = Object.fromEntries(Object.keys(FUNCTIONS).map((name) => [name, module[`_${name}`]]));
    this.c = c;
    this.scratch = 0;
    this.scratchSize = 0;
    this.version = this.string(c.swe_version());
    // The C API's constants, read from the module so that swe.h stays their one source: code -> name
    // lists (a name function answers its sentinel past the last code) and name -> code maps.
    this.statusNames = this.names(c.swe_status_name, 'unknown');
    this.matchNames = this.names(c.swe_match_name, 'invalid');
    this.dtypeNames = this.names(c.swe_dtype_name, 'unknown');
    this.statusCodes = Object.fromEntries(this.statusNames.map((name, code) => [name, code]));
    this.dtypeCodes = Object.fromEntries(this.dtypeNames.map((name, code) => [name, code]));
  }

  /** [name(0), name(1), ...] up to the first code that `nameOf` answers with `sentinel`. */
  names(nameOf, sentinel) {
    const out = [];
    for (let name; out.length < 256 && (name = this.string(nameOf(out.length))) !== sentinel;) out.push(name);
    return out;
  }

  get u8() { return this.m.HEAPU8; }

  /** NUL-terminated UTF-8 string at `ptr` ("" for 0). */
  string(ptr) {
    if (!ptr) return '';
    const heap = this.u8;
    const end = heap.indexOf(0, ptr);
    return decoder.decode(heap.subarray(ptr, end < 0 ? heap.length : end));
  }

  /** Throws SweError for a failed status (`what` names the operation). */
  check(status, what) {
    if (status === 0) return;
    const code = this.string(this.c.swe_status_name(status));
    const message = this.string(this.c.swe_last_error());
    throw new SweError(`${what}: ${message || code}`, code, status);
  }

  /** check() for a call on the caller's numbers: an argument it refuses (k, a non-finite value) is a RangeError. */
  checkRange(status, what) {
    if (status === this.statusCodes['invalid argument']) throw new RangeError(`${what}: ${this.string(this.c.swe_last_error())}`);
    this.check(status, what);
  }

  /** A SweError with the status named `code` ("not found", ...). */
  error(message, code) {
    return new SweError(message, code, this.statusCodes[code]);
  }

  malloc(size) {
    const ptr = this.m._malloc(Math.max(size, 1));
    if (!ptr) this.throwOutOfMemory(size);
    return ptr;
  }

  throwOutOfMemory(size) {
    throw this.error(`out of memory (allocating ${size} bytes in the wasm heap)`, 'out of memory');
  }

  free(ptr) { if (ptr) this.m._free(ptr); }

  /**
   * Runs `body(ptr)` with `size` bytes of scratch memory (8-byte aligned, reused across calls; the
   * caller must not hold on to it). Not reentrant: `body` must not call withScratch again.
   */
  withScratch(size, body) {
    if (size > this.scratchSize) {
      this.free(this.scratch);
      this.scratch = 0;
      this.scratchSize = 0;
      this.scratch = this.malloc(size);
      this.scratchSize = size;
    }
    try {
      return body(this.scratch);
    } finally {
      if (this.scratchSize > kScratchKeep) {
        this.free(this.scratch);
        this.scratch = 0;
        this.scratchSize = 0;
      }
    }
  }

  /** Runs create(outPtr), a C call that makes a handle into *outPtr, and returns the handle. */
  newHandle(create, what) {
    return this.withScratch(kPtr, (p) => {
      this.check(create(p), what);
      return new Uint32Array(this.u8.buffer, p, 1)[0];
    });
  }

  /** Writes texts as UTF-8: their swe_text records at `textsPtr`, their bytes from `bytesPtr` (utf8Bound each). */
  writeTexts(texts, textsPtr, bytesPtr) {
    const heap = this.u8;
    const records = new Uint32Array(heap.buffer, textsPtr, texts.length * kTextWords);
    let at = bytesPtr;
    for (let i = 0; i < texts.length; ++i) {
      const written = writeUtf8(texts[i], heap, at);
      records[i * kTextWords + kTextData] = at;
      records[i * kTextWords + kTextSize] = written;
      at += written;
    }
  }

  /** The `n` swe_text records at `ptr` as strings. */
  readTexts(ptr, n) {
    const records = new Uint32Array(this.u8.buffer, ptr, n * kTextWords);
    const texts = [];
    for (let i = 0; i < n; ++i) {
      const data = records[i * kTextWords + kTextData];
      texts.push(decoder.decode(this.u8.subarray(data, data + records[i * kTextWords + kTextSize])));
    }
    return texts;
  }

  /** Writes one text as UTF-8 at `ptr` (room for utf8Bound(text) bytes) and returns its byte length. */
  writeText(text, ptr) {
    return writeUtf8(text, this.u8, ptr);
  }

  // ---- models ----

  /** Loads a model from its file's bytes: one copy into a heap buffer that the model takes over. */
  modelLoad(bytes) {
    const c = this.c;
    const dataPtr = c.swe_model_buffer_new(bytes.length);
    if (!dataPtr) this.throwOutOfMemory(bytes.length);
    this.u8.set(bytes, dataPtr);
    let handedOver = false;  // from the load call on, the buffer is the model's (or freed by it)
    try {
      return this.newHandle((out) => {
        handedOver = true;
        return c.swe_model_load_from_buffer(dataPtr, bytes.length, 0, out);
      }, 'loadModel');
    } finally {
      if (!handedOver) c.swe_model_buffer_free(dataPtr);
    }
  }

  /** A Handle of a loaded model. */
  modelHandle(ptr) { return new Handle(ptr, this.c.swe_model_free, 'model'); }

  modelDims(model) { return this.c.swe_model_get_dims(model); }

  modelVocabSize(model) { return this.c.swe_model_get_vocab_size(model); }

  modelInfoJson(model) { return this.string(this.c.swe_model_get_info_json(model)); }

  /** The model's full dims (swe_model_get_encode_dims with the default params). */
  modelEncodeDims(model) { return this.c.swe_model_get_encode_dims(model, 0); }

  /**
   * Encodes one text with `dims` dimensions and returns take(at, knownWords), its vector at
   * HEAPF32[at .. at + dims) (valid during take only). Reads through the module's HEAPU32/HEAPF32
   * (re-made by it when the heap grows), not new views per call: on a short query, making views cost
   * as much as the encoding.
   */
  encodeOneWith(model, text, dims, take) {
    const m = this.m;
    const knownAt = ENCODE_PARAMS.size;  // a uint32_t
    const vectorAt = align8(knownAt + 4);
    const textAt = vectorAt + 4 * dims;
    return this.withScratch(textAt + utf8Bound(text), (p) => {
      const size = this.writeText(text, p + textAt);
      m.HEAPU32[(p + ENCODE_PARAMS.dims) >> 2] = dims;
      this.check(this.c.swe_model_encode_text(model, p + textAt, size, p, p + vectorAt, dims, p + knownAt), 'encode');
      return take((p + vectorAt) >> 2, m.HEAPU32[(p + knownAt) >> 2]);
    });
  }

  /** Encodes one text into `out` (dims floats); returns how many of its words were known. */
  encodeOne(model, text, dims, out) {
    const m = this.m;
    return this.encodeOneWith(model, text, dims, (at, knownWords) => {
      out.set(m.HEAPF32.subarray(at, at + dims));
      return knownWords;
    });
  }

  /**
   * Encodes `texts` with `dims` dimensions in chunks into the heap and calls
   * visit(start, count, vectorsPtr, extraPtr, knownPtr) for each, with `extra` bytes per text of
   * 8-aligned room at extraPtr (e.g. for ids) and each text's known words (uint32) at knownPtr. visit
   * must not use the scratch area.
   */
  encodeChunks(model, texts, dims, extra, visit) {
    for (let start = 0; start < texts.length;) {
      let end = start;
      let bound = 0;
      while (end < texts.length && end - start < kChunkTexts &&
             (end === start || bound + utf8Bound(texts[end]) <= kChunkBytes)) {
        bound += utf8Bound(texts[end]);
        ++end;
      }
      const count = end - start;
      const recordsAt = align8(ENCODE_PARAMS.size);
      const extraAt = recordsAt + align8(TEXT.size * count);
      const knownAt = extraAt + align8(extra * count);
      const vectorsAt = knownAt + align8(4 * count);
      const bytesAt = vectorsAt + align8(4 * dims * count);
      this.withScratch(bytesAt + bound, (p) => {
        new Uint32Array(this.u8.buffer, p + ENCODE_PARAMS.dims, 1)[0] = dims;
        this.writeTexts(texts.slice(start, end), p + recordsAt, p + bytesAt);
        this.check(this.c.swe_model_encode_batch(model, p + recordsAt, count, p, p + vectorsAt, count * dims,
                                                 p + knownAt), 'encode');
        visit(start, count, p + vectorsAt, p + extraAt, p + knownAt);
      });
      start = end;
    }
  }

  /** Encodes `texts` into `vectors` (texts.length × dims) and each text's known words into `knownWords`. */
  encodeMany(model, texts, dims, vectors, knownWords) {
    this.encodeChunks(model, texts, dims, 0, (start, count, vectorsPtr, extra, knownPtr) => {
      vectors.set(new Float32Array(this.u8.buffer, vectorsPtr, count * dims), start * dims);
      knownWords?.set(new Uint32Array(this.u8.buffer, knownPtr, count), start);
    });
  }

  /** Cosine similarity of two texts' vectors with `dims` (0: all) dimensions. */
  similarity(model, a, b, dims) {
    const paramsAt = 0;
    const scoreAt = align8(ENCODE_PARAMS.size);
    const aAt = scoreAt + 8;
    return this.withScratch(aAt + align8(utf8Bound(a)) + utf8Bound(b), (p) => {
      new Uint32Array(this.u8.buffer, p + paramsAt + ENCODE_PARAMS.dims, 1)[0] = dims;
      const aSize = this.writeText(a, p + aAt);
      const bPtr = p + aAt + align8(aSize);
      const bSize = this.writeText(b, bPtr);
      this.check(this.c.swe_model_compute_similarity(model, p + aAt, aSize, bPtr, bSize, p + paramsAt, p + scoreAt),
                 'similarity');
      return new Float32Array(this.u8.buffer, p + scoreAt, 1)[0];
    });
  }

  /** The words of `text`: [{ begin, end, row, match }], begin/end UTF-8 byte offsets, match a name. */
  analyze(model, text) {
    const capacity = utf8Bound(text) + 1;  // a word has at least one byte
    const textAt = 8;
    return this.withScratch(textAt + align8(utf8Bound(text)) + TOKEN.size * capacity, (p) => {
      const size = this.writeText(text, p + textAt);
      const tokensAt = p + textAt + align8(size);
      this.check(this.c.swe_model_analyze_text(model, p + textAt, size, tokensAt, capacity, p), 'tokenize');
      const n = new Uint32Array(this.u8.buffer, p, 1)[0];
      const fields = new Int32Array(this.u8.buffer, tokensAt, n * TOKEN.size / 4);
      const out = [];
      for (let i = 0; i < n; ++i) {
        const at = i * TOKEN.size / 4;
        out.push({ begin: fields[at + TOKEN.begin / 4], end: fields[at + TOKEN.end / 4], row: fields[at + TOKEN.row / 4],
                   match: this.matchNames[fields[at + TOKEN.match / 4]] ?? 'unknown' });
      }
      return out;
    });
  }

  // ---- indexes ----

  indexCreate(dims, dtypeCode, what) {
    return this.newHandle((out) => this.c.swe_index_create(dims, dtypeCode, out), what);
  }

  indexLoad(bytes, what) {
    const dataPtr = this.malloc(bytes.length);
    this.u8.set(bytes, dataPtr);
    try {
      return this.newHandle((out) => this.c.swe_index_load_from_bytes(dataPtr, bytes.length, 0, out), what);
    } finally {
      this.free(dataPtr);
    }
  }

  /** A Handle of an index. */
  indexHandle(ptr) { return new Handle(ptr, this.c.swe_index_free, 'index'); }

  indexSetModel(index, model, what) { this.check(this.c.swe_index_set_model(index, model), what); }

  indexCheckModel(index, model, what) { this.check(this.c.swe_index_check_model(index, model), what); }

  indexSize(index) { return this.c.swe_index_get_size(index); }

  indexDims(index) { return this.c.swe_index_get_dims(index); }

  indexDtype(index) { return this.dtypeNames[this.c.swe_index_get_dtype(index)]; }

  indexDocCount(index) { return this.c.swe_index_get_doc_count(index); }

  /** Encodes `texts` with `model` and adds them under `ids` (BigInts). */
  indexAddTexts(index, model, texts, ids) {
    const dims = this.indexDims(index);
    this.encodeChunks(model, texts, dims, kU64, (start, count, vectors, extra) => {
      const view = new BigUint64Array(this.u8.buffer, extra, count);
      for (let i = 0; i < count; ++i) view[i] = ids[start + i];
      this.check(this.c.swe_index_add(index, extra, vectors, count), 'add');
    });
  }

  /** Adds `vectors` (a Float32Array, ids.length rows) under `ids` (BigInts). */
  indexAddVectors(index, ids, vectors) {
    const count = ids.length;
    this.withScratch(kU64 * count + 4 * vectors.length, (p) => {
      const view = new BigUint64Array(this.u8.buffer, p, count);
      for (let i = 0; i < count; ++i) view[i] = ids[i];
      new Float32Array(this.u8.buffer, p + kU64 * count, vectors.length).set(vectors);
      this.check(this.c.swe_index_add(index, p, p + kU64 * count, count), 'addVectors');
    });
  }

  /**
   * Encodes the texts with `model` and adds them as documents; `parts` holds each document's
   * [id, text, metadata JSON ("" for none)] in a row.
   */
  indexAddDocs(index, model, texts, parts) {
    const perDoc = DOC.size / TEXT.size;  // swe_doc: swe_text records in a row
    this.encodeChunks(model, texts, this.indexDims(index), 0, (start, count, vectors) => {
      const chunk = parts.slice(perDoc * start, perDoc * (start + count));
      const bytes = chunk.reduce((sum, text) => sum + utf8Bound(text), 0);
      const records = this.malloc(TEXT.size * chunk.length + bytes);
      try {
        this.writeTexts(chunk, records, records + TEXT.size * chunk.length);
        this.check(this.c.swe_index_add_docs(index, records, vectors, count), 'addDocs');
      } finally {
        this.free(records);
      }
    });
  }

  /** The entry id (BigInt) of the document with string id `id`, or null when none has it. */
  indexFindDoc(index, id, what) {
    return this.withScratch(kU64 + utf8Bound(id), (p) => {
      const size = this.writeText(id, p + kU64);
      const status = this.c.swe_index_find_doc(index, p + kU64, size, p);
      if (status === this.statusCodes['not found']) return null;
      this.check(status, what);
      return new BigUint64Array(this.u8.buffer, p, 1)[0];
    });
  }

  /** The document of `entry` as [id, text, metadata JSON], or null when it has none. */
  indexGetDoc(index, entry) {
    return this.withScratch(DOC.size, (p) => {
      const status = this.c.swe_index_get_doc(index, entry, p);
      if (status === this.statusCodes['not found']) return null;
      this.check(status, 'get');
      return [DOC.id, DOC.text, DOC.metadata].map((at) => this.readTexts(p + at, 1)[0]);
    });
  }

  /** The entry ids (BigInts) in storage order. */
  indexIds(index) {
    const size = this.indexSize(index);
    return this.withScratch(kU64 + kU64 * size, (p) => {
      this.check(this.c.swe_index_get_ids(index, p + kU64, size, p), 'ids');
      return Array.from(new BigUint64Array(this.u8.buffer, p + kU64, size));
    });
  }

  /** The k (≤ size, > 0) best entries for `vector`: [[entry, score]], those scoring at least minScore. */
  indexSearch(index, vector, k, minScore, candidates) {
    const dims = vector.length;
    const countAt = align8(SEARCH_PARAMS.size);
    const idsAt = countAt + 8;
    const scoresAt = idsAt + kU64 * k;
    const queryAt = scoresAt + align8(4 * k);
    return this.withScratch(queryAt + 4 * dims, (p) => {
      new Float32Array(this.u8.buffer, p + queryAt, dims).set(vector);
      new Uint32Array(this.u8.buffer, p + SEARCH_PARAMS.candidates, 1)[0] = candidates;
      this.check(this.c.swe_index_search(index, p + queryAt, dims, k, p, p + idsAt, p + scoresAt, p + countAt), 'search');
      const n = new Uint32Array(this.u8.buffer, p + countAt, 1)[0];
      return this.readHits(p + idsAt, p + scoresAt, n, minScore);
    });
  }

  /** indexSearch for each text of `texts`, encoded with `model`: an array of hit arrays. */
  indexSearchTexts(index, model, texts, k, minScore, candidates) {
    const dims = this.indexDims(index);
    const found = [];
    // Room per query (the "extra" of encodeChunks): k ids, k scores and a count (size_t), and room for
    // the chunk's swe_search_params.
    this.encodeChunks(model, texts, dims, (kU64 + 4) * k + kPtr + SEARCH_PARAMS.size, (start, count, vectors, extra) => {
      const scoresAt = extra + kU64 * k * count;
      const countsAt = scoresAt + 4 * k * count;
      const paramsAt = countsAt + kPtr * count;
      new Uint32Array(this.u8.buffer, paramsAt + SEARCH_PARAMS.candidates, 1)[0] = candidates;
      this.check(this.c.swe_index_search_batch(index, vectors, count, dims, k, minScore, paramsAt, extra, scoresAt,
                                               countsAt), 'searchBatch');
      const counts = new Uint32Array(this.u8.buffer, countsAt, count);
      for (let q = 0; q < count; ++q) {
        found.push(this.readHits(extra + kU64 * k * q, scoresAt + 4 * k * q, counts[q], minScore));
      }
    });
    return found;
  }

  // [[entry id, score], ...] of n hits at idsPtr / scoresPtr, those scoring at least minScore.
  readHits(idsPtr, scoresPtr, n, minScore) {
    const ids = new BigUint64Array(this.u8.buffer, idsPtr, n);
    const scores = new Float32Array(this.u8.buffer, scoresPtr, n);
    const hits = [];
    for (let i = 0; i < n && scores[i] >= minScore; ++i) hits.push([ids[i], scores[i]]);
    return hits;
  }

  /** Removes `entry`; false when it was not there. */
  indexRemove(index, entry) {
    const status = this.c.swe_index_remove(index, entry);
    if (status === this.statusCodes['not found']) return false;
    this.check(status, 'remove');
    return true;
  }

  indexContains(index, entry) { return this.c.swe_index_contains(index, entry) === 1; }

  // ---- vectors (swe_vectors_*: rows of dims floats, copied into the heap for the call) ----

  /**
   * The k (≤ rows) best rows of `vectors` for `query`, scoring at least minScore: [[row, score]], best
   * first, or in row order when `rowOrder`.
   */
  vectorsRank(query, vectors, dims, k, minScore, rowOrder) {
    const countAt = align8(RANK_PARAMS.size);
    const rowsAt = countAt + 8;
    const scoresAt = rowsAt + align8(kPtr * k);
    const queryAt = scoresAt + align8(4 * k);
    const vectorsAt = queryAt + align8(4 * dims);
    return this.withScratch(vectorsAt + 4 * vectors.length, (p) => {
      new Float32Array(this.u8.buffer, p + RANK_PARAMS.min_score, 1)[0] = minScore;
      new Int32Array(this.u8.buffer, p + RANK_PARAMS.order, 1)[0] = rowOrder ? 1 : 0;  // SWE_RANK_ROW_ORDER : _BEST_FIRST
      new Float32Array(this.u8.buffer, p + queryAt, dims).set(query);
      new Float32Array(this.u8.buffer, p + vectorsAt, vectors.length).set(vectors);
      this.checkRange(this.c.swe_vectors_rank(p + queryAt, p + vectorsAt, vectors.length / dims, dims, k, p, p + rowsAt,
                                              p + scoresAt, p + countAt), 'rank');
      const n = new Uint32Array(this.u8.buffer, p + countAt, 1)[0];
      const rows = new Uint32Array(this.u8.buffer, p + rowsAt, n);
      const scores = new Float32Array(this.u8.buffer, p + scoresAt, n);
      return Array.from(rows, (row, i) => [row, scores[i]]);
    });
  }

  /** Near-duplicate groups of the rows: arrays of row numbers, each group's first its representative. */
  vectorsNearDuplicates(vectors, dims, threshold) {
    const n = vectors.length / dims;
    const groupsAt = 8;
    const vectorsAt = groupsAt + align8(kPtr * n);
    return this.withScratch(vectorsAt + 4 * vectors.length, (p) => {
      new Float32Array(this.u8.buffer, p + vectorsAt, vectors.length).set(vectors);
      this.checkRange(this.c.swe_vectors_near_duplicates(p + vectorsAt, n, dims, threshold, p + groupsAt, 0, p),
                      'nearDuplicateGroups');
      const groups = Array.from({ length: new Uint32Array(this.u8.buffer, p, 1)[0] }, () => []);
      new Uint32Array(this.u8.buffer, p + groupsAt, n).forEach((group, row) => groups[group].push(row));
      return groups;
    });
  }

  /** k-means of the rows: { labels, centroids, inertia, iterations } (swe_vectors_kmeans). */
  vectorsKMeans(vectors, dims, k, seed, restarts, iterations) {
    const n = vectors.length / dims;
    const inertiaAt = align8(KMEANS_PARAMS.size);
    const iterationsAt = inertiaAt + 8;
    const labelsAt = iterationsAt + 8;
    const centroidsAt = labelsAt + align8(4 * n);
    const vectorsAt = centroidsAt + align8(4 * k * dims);
    return this.withScratch(vectorsAt + 4 * vectors.length, (p) => {
      const params = new Uint32Array(this.u8.buffer, p, KMEANS_PARAMS.size / 4);
      params[KMEANS_PARAMS.seed / 4] = seed;
      params[KMEANS_PARAMS.restarts / 4] = restarts;
      params[KMEANS_PARAMS.max_iterations / 4] = iterations;
      new Float32Array(this.u8.buffer, p + vectorsAt, vectors.length).set(vectors);
      this.checkRange(this.c.swe_vectors_kmeans(p + vectorsAt, n, dims, k, p, p + labelsAt, p + centroidsAt,
                                                p + inertiaAt, p + iterationsAt), 'kmeans');
      return { labels: new Int32Array(this.u8.buffer, p + labelsAt, n).slice(),
               centroids: new Float32Array(this.u8.buffer, p + centroidsAt, k * dims).slice(),
               inertia: new Float64Array(this.u8.buffer, p + inertiaAt, 1)[0],
               iterations: new Uint32Array(this.u8.buffer, p + iterationsAt, 1)[0] };
    });
  }

  /** The index file's bytes. */
  indexSave(index) {
    const [ptr, size] = this.withScratch(2 * kPtr, (p) => {
      this.check(this.c.swe_index_save_to_bytes(index, p, p + kPtr), 'save');
      const out = new Uint32Array(this.u8.buffer, p, 2);
      return [out[0], out[1]];
    });
    return this.takeBytes(ptr, size);
  }

  /** swe_index_save_changes: { offset, bytes } to write at offset of the index's file (cut there). */
  indexSaveChanges(index) {
    const [ptr, size, offset] = this.withScratch(2 * kPtr + kU64, (p) => {
      this.check(this.c.swe_index_save_changes(index, p, p + kPtr, p + 2 * kPtr), 'saveChanges');
      const out = new Uint32Array(this.u8.buffer, p, 2);
      return [out[0], out[1], new BigUint64Array(this.u8.buffer, p + 2 * kPtr, 1)[0]];
    });
    return { offset: Number(offset), bytes: this.takeBytes(ptr, size) };
  }

  // A copy of the `size` bytes the library allocated at `ptr`, which is freed.
  takeBytes(ptr, size) {
    try {
      return this.u8.slice(ptr, ptr + size);
    } finally {
      this.c.swe_free_bytes(ptr);
    }
  }
}

// UTF-8 of `text` into heap[at ..] (room for 3 bytes per UTF-16 unit); returns the byte count.
// (A plain JS loop for ASCII measured slower than TextEncoder.encodeInto in Node 20.)
function writeUtf8(text, heap, at) {
  return encoder.encodeInto(text, heap.subarray(at, at + text.length * 3)).written;
}

/** Bytes of UTF-8 that are enough for `text` (a UTF-16 unit never needs more than 3). */
export function utf8Bound(text) { return text.length * 3; }

/** Rounds up to a multiple of 8 (alignment of the records that follow). */
export function align8(n) { return (n + 7) & ~7; }
