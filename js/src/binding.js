// The binding to the C API (libswe/include/swe.h): the only module that calls a C function (each
// listed in FUNCTIONS with its C signature) and the only one that knows how a C struct lies in memory
// (LAYOUTS). It runs on either backend with the same calls in the same order: the WebAssembly module
// (its exports and heap: WasmMemory) or the native addon swe.node (node/src/addon.cpp: the same
// functions by name, memory in ArrayBuffers at native addresses: NativeMemory); backend.js starts one.
// js/test/binding.test.js checks FUNCTIONS and both data models' LAYOUTS against swe.h, and FUNCTIONS
// against wasm/exported_functions.json (what both backends offer): a function or struct that changes
// in swe.h fails there until this module follows. Model and Index (model.js, search-index.js) stand
// side by side on it, each owning its C handle through a Handle.
//
// Memory is reached through the backend's Memory only, and views of it are taken afresh after a call
// that may allocate (wasm's heap growth detaches the old ArrayBuffer). Nothing returned to callers
// points into it.
import { SweError } from './checks.js';

/**
 * The C functions the package calls, as `return(parameters)` in the kinds swe.h's types have:
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

/** The functions the native backend also runs off the JS thread (the addon's `async`): encodeAsync's. */
export const ASYNC_FUNCTIONS = ['swe_model_encode_batch'];

/**
 * The C structs the package reads or writes: their size and their fields' byte offsets, in wasm32
 * (the wasm module) and in LP64 (the native addon on 64-bit Linux: pointers and size_t of 8 bytes).
 */
export const LAYOUTS = {
  wasm32: {
    swe_text: { size: 8, data: 0, size_: 4 },
    swe_doc: { size: 24, id: 0, text: 8, metadata: 16 },
    swe_token: { size: 16, begin: 0, end: 4, row: 8, match: 12 },
    swe_encode_params: { size: 12, dims: 0, normalize: 4, max_tokens: 8 },
    swe_search_params: { size: 4, candidates: 0 },
    swe_rank_params: { size: 8, min_score: 0, order: 4 },
    swe_kmeans_params: { size: 12, seed: 0, restarts: 4, max_iterations: 8 },
  },
  lp64: {
    swe_text: { size: 16, data: 0, size_: 8 },
    swe_doc: { size: 48, id: 0, text: 16, metadata: 32 },
    swe_token: { size: 16, begin: 0, end: 4, row: 8, match: 12 },
    swe_encode_params: { size: 12, dims: 0, normalize: 4, max_tokens: 8 },
    swe_search_params: { size: 8, candidates: 0 },
    swe_rank_params: { size: 8, min_score: 0, order: 4 },
    swe_kmeans_params: { size: 12, seed: 0, restarts: 4, max_iterations: 8 },
  },
};
// (`size_` is swe_text's field `size`: the key `size` is every layout's own size.)

const kU64 = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');
const kScratchKeep = 2 << 20;  // scratch memory kept between calls (a chunk's fits); larger requests are freed after
const kChunkBytes = 1 << 20;   // UTF-8 bound of the texts encoded per call into the core
const kChunkTexts = 4096;
const kSliceMs = 4;           // encodeAsync on wasm: the time a slice of texts holds the JS thread
const kAsyncInFlight = 4;      // encodeAsync's chunks on the thread pool at once, at most (libuv's default size)

/**
 * The wasm module's memory: one heap, an address is an offset into it. region(ptr) gives views of the
 * whole heap (base 0), valid until the next call that may allocate.
 */
export class WasmMemory {
  constructor(module) {
    this.m = module;
    this.layouts = LAYOUTS.wasm32;
    this.word = 4;  // bytes of a pointer or size_t
  }

  malloc(size) { return this.m._malloc(size); }  // 0 when out of memory

  free(ptr) { this.m._free(ptr); }

  region() { return { u8: this.m.HEAPU8, u32: this.m.HEAPU32, f32: this.m.HEAPF32, base: 0 }; }

  /** null: a JS array is not in the heap (results are copied out of it: `direct` false). */
  addressOf() { return null; }

  get direct() { return false; }

  write(ptr, bytes) { this.m.HEAPU8.set(bytes, ptr); }

  read(ptr, size) { return this.m.HEAPU8.slice(ptr, ptr + size); }

  text(ptr, size) { return decoder.decode(this.m.HEAPU8.subarray(ptr, ptr + size)); }

  string(ptr) {
    if (!ptr) return '';
    const heap = this.m.HEAPU8;
    const end = heap.indexOf(0, ptr);
    return decoder.decode(heap.subarray(ptr, end < 0 ? heap.length : end));
  }

  /** Bytes the memory holds (the heap only grows: a leak shows as growth over many loads). */
  get bytes() { return this.m.HEAPU8.length; }
}

/**
 * The native addon's memory: what the binding allocates is JS ArrayBuffers (their backing stores never
 * move) at native addresses, kept here until freed; region(ptr) gives views of the one holding ptr
 * (base its address). The library's own memory (a model's buffer, saved bytes, documents' texts) is
 * reached by copies: write, read, text, string.
 */
export class NativeMemory {
  #blocks = new Map();  // address -> { buffer, base, end, u8, u32, f32 }
  #last = null;

  constructor(addon) {
    this.addon = addon;
    this.layouts = LAYOUTS.lp64;
    this.word = 8;
  }

  malloc(size) {
    let allocated;
    try {
      allocated = this.addon.alloc(size);
    } catch {
      return 0;  // out of memory, as malloc says it
    }
    const [buffer, base] = allocated;
    const block = { buffer, base, end: base + size, u8: new Uint8Array(buffer), u32: new Uint32Array(buffer, 0, size >> 2),
                    f32: new Float32Array(buffer, 0, size >> 2) };
    this.#blocks.set(base, block);
    this.#last = block;
    return base;
  }

  /** Forgets the block at ptr (the garbage collector frees it; a caller may keep its buffer). */
  free(ptr) {
    this.#blocks.delete(ptr);
    if (this.#last?.base === ptr) this.#last = null;
  }

  /** The ArrayBuffer of the block at ptr (as malloc returned it). */
  buffer(ptr) { return this.#blocks.get(ptr).buffer; }

  region(ptr) {
    const last = this.#last;
    if (last !== null && ptr >= last.base && ptr <= last.end) return last;
    for (const block of this.#blocks.values()) {
      if (ptr >= block.base && ptr <= block.end) return (this.#last = block);
    }
    throw new Error(`swe: internal error: address ${ptr} is in no block of the binding's memory`);
  }

  /** Where a typed array's elements lie: a C call writes its results there (within one synchronous call). */
  addressOf(array) { return this.addon.address(array); }

  /**
   * Writes texts[start .. end) as UTF-8 from bytesPtr and their swe_text records at textsPtr, as the
   * binding's writeTexts does, in one call (bytesPtr's block has utf8Bound room for each).
   */
  writeTexts(texts, start, end, textsPtr, bytesPtr) {
    const block = this.region(bytesPtr);
    this.addon.write_texts(texts, start, end, textsPtr, bytesPtr, block.end - bytesPtr);
  }

  get direct() { return true; }

  write(ptr, bytes) { this.addon.write(ptr, bytes); }

  read(ptr, size) { return new Uint8Array(this.addon.read(ptr, size)); }

  text(ptr, size) { return this.addon.text(ptr, size); }

  string(ptr) { return this.addon.cstring(ptr); }

  /** Blocks held (not yet freed): a leak shows as growth. */
  get blocks() { return this.#blocks.size; }
}

/**
 * A C handle (a model or an index): freed by dispose() or, as a safety net, once no JS object holds the
 * Handle any more (a model's is held by its Model and by each of its Indexes). While work on another
 * thread uses it (hold()), dispose() only marks it disposed and the last release frees it.
 */
export class Handle {
  static #registry = new FinalizationRegistry(({ free, ptr }) => free(ptr));
  #ptr;
  #free;
  #what;
  #holds = 0;
  #freeOnRelease = 0;

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

  /** [ptr, release]: the pointer stays valid, even across dispose(), until release() is called. */
  hold() {
    const ptr = this.ptr;
    ++this.#holds;
    let released = false;
    return [ptr, () => {
      if (released) return;
      released = true;
      if (--this.#holds === 0 && this.#freeOnRelease !== 0) {
        this.#free(this.#freeOnRelease);
        this.#freeOnRelease = 0;
      }
    }];
  }

  dispose() {
    if (this.#ptr === 0) return;
    Handle.#registry.unregister(this);
    if (this.#holds > 0) this.#freeOnRelease = this.#ptr;
    else this.#free(this.#ptr);
    this.#ptr = 0;
  }
}

/** The started backend: its C functions, its memory, a reusable scratch area and error conversion. */
export class Binding {
  /**
   * functions: { name: function } with every name of FUNCTIONS; memory: a WasmMemory or NativeMemory;
   * backend: "wasm" or "native"; asyncFunctions: { name: function returning a Promise of [status,
   * message] } for ASYNC_FUNCTIONS, or null where calls cannot leave the JS thread; cpus: how many
   * async calls to run at once (at most kAsyncInFlight: more than the CPUs only slows the JS thread).
   */
  constructor(functions, memory, backend, asyncFunctions = null, cpus = kAsyncInFlight) {
    for (const name of Object.keys(FUNCTIONS)) {
      if (typeof functions[name] !== 'function') throw new Error(`swe: the ${backend} backend lacks ${name}`);
    }
    for (const name of asyncFunctions ? ASYNC_FUNCTIONS : []) {
      if (typeof asyncFunctions[name] !== 'function') throw new Error(`swe: the ${backend} backend lacks async ${name}`);
    }
    // (Object.fromEntries: an object with fast properties, where a loop of keyed stores made a
    // dictionary that every call paid a lookup in.)
    const c = Object.fromEntries(Object.keys(FUNCTIONS).map((name) => [name, functions[name]]));
    this.c = c;
    this.async = asyncFunctions;
    this.asyncInFlight = Math.max(1, Math.min(kAsyncInFlight, cpus));
    this.mem = memory;
    this.backend = backend;
    this.word = memory.word;
    const layouts = memory.layouts;
    this.TEXT = layouts.swe_text;
    this.DOC = layouts.swe_doc;
    this.TOKEN = layouts.swe_token;
    this.ENCODE_PARAMS = layouts.swe_encode_params;
    this.SEARCH_PARAMS = layouts.swe_search_params;
    this.RANK_PARAMS = layouts.swe_rank_params;
    this.KMEANS_PARAMS = layouts.swe_kmeans_params;
    this.scratch = 0;
    this.scratchSize = 0;
    this.version = this.string(c.swe_version());
    // The C API's constants, read from the library so that swe.h stays their one source: code -> name
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

  /** NUL-terminated UTF-8 string at `ptr` ("" for 0). */
  string(ptr) { return this.mem.string(ptr); }

  /** A typed view of `length` elements at `ptr`, in memory the binding allocated. */
  view(Type, ptr, length) {
    const region = this.mem.region(ptr);
    return new Type(region.u8.buffer, ptr - region.base, length);
  }

  /** The size_t or pointer at `ptr` (little-endian; below 2^53). */
  word64(ptr) {
    const u32 = this.view(Uint32Array, ptr, this.word >> 2);
    return this.word === 4 ? u32[0] : u32[0] + u32[1] * 0x100000000;
  }

  /** `n` size_t values from `ptr`, as numbers. */
  sizes(ptr, n) {
    if (this.word === 4) return Array.from(this.view(Uint32Array, ptr, n));
    return Array.from(this.view(BigUint64Array, ptr, n), Number);
  }

  /** Writes a size_t or pointer field at index i of a Uint32Array view (little-endian). */
  putWord(u32, i, value) {
    u32[i] = value % 0x100000000;
    if (this.word === 8) u32[i + 1] = value / 0x100000000;
  }

  /** Throws SweError for a failed status (`what` names the operation). */
  check(status, what) {
    if (status !== 0) throw this.failure(status, this.string(this.c.swe_last_error()), what);
  }

  /** The SweError of a failed status with its message (swe_last_error() of the thread that failed). */
  failure(status, message, what) {
    const code = this.string(this.c.swe_status_name(status));
    return new SweError(`${what}: ${message || code}`, code, status);
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
    const ptr = this.mem.malloc(Math.max(size, 1));
    if (!ptr) this.throwOutOfMemory(size);
    return ptr;
  }

  throwOutOfMemory(size) {
    throw this.error(`out of memory (allocating ${size} bytes in the ${this.backend} backend's memory)`, 'out of memory');
  }

  free(ptr) { if (ptr) this.mem.free(ptr); }

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
    return this.withScratch(this.word, (p) => {
      this.check(create(p), what);
      return this.word64(p);
    });
  }

  /**
   * Writes texts[start .. end) as UTF-8: their swe_text records at `textsPtr`, their bytes from
   * `bytesPtr` (utf8Bound each).
   */
  writeTexts(texts, textsPtr, bytesPtr, start = 0, end = texts.length) {
    if (this.mem.writeTexts) {  // native: one call for all (the addon knows swe_text from swe.h)
      this.mem.writeTexts(texts, start, end, textsPtr, bytesPtr);
      return;
    }
    const { size: stride, data, size_ } = this.TEXT;
    const records = this.view(Uint32Array, textsPtr, (end - start) * stride >> 2);
    const { u8, base } = this.mem.region(bytesPtr);
    let at = bytesPtr;
    for (let i = start; i < end; ++i) {
      const text = texts[i];
      const written = encoder.encodeInto(text, u8.subarray(at - base, at - base + text.length * 3)).written;
      const record = (i - start) * stride;
      this.putWord(records, (record + data) >> 2, at);
      this.putWord(records, (record + size_) >> 2, written);
      at += written;
    }
  }

  /** The swe_text record at `ptr` as a string. */
  readText(ptr) {
    const data = this.word64(ptr + this.TEXT.data);
    return this.mem.text(data, this.word64(ptr + this.TEXT.size_));
  }

  /** Writes one text as UTF-8 at `ptr` (room for utf8Bound(text) bytes) and returns its byte length. */
  writeText(text, ptr) {
    const { u8, base } = this.mem.region(ptr);
    return encoder.encodeInto(text, u8.subarray(ptr - base, ptr - base + text.length * 3)).written;
  }

  // ---- models ----

  /** Loads a model from its file's bytes: one copy into a buffer that the model takes over. */
  modelLoad(bytes) {
    const c = this.c;
    const dataPtr = c.swe_model_buffer_new(bytes.length);
    if (!dataPtr) this.throwOutOfMemory(bytes.length);
    this.mem.write(dataPtr, bytes);
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
   * Encodes one text with `dims` dimensions and returns take(f32, at, knownWords), its vector at
   * f32[at .. at + dims) (valid during take only), or writes it into `out` when the backend can write
   * there directly (native). Reads through the region's whole-memory views, not new views per call:
   * on a short query, making views cost as much as the encoding.
   */
  encodeOneWith(model, text, dims, take, out = null) {
    const direct = out === null ? null : this.mem.addressOf(out);
    const knownAt = this.ENCODE_PARAMS.size;  // a uint32_t
    const vectorAt = align8(knownAt + 4);
    const textAt = vectorAt + (direct === null ? 4 * dims : 0);
    return this.withScratch(textAt + utf8Bound(text), (p) => {
      const size = this.writeText(text, p + textAt);
      this.writeEncodeParams(p, dims);
      this.check(this.c.swe_model_encode_text(model, p + textAt, size, p, direct ?? p + vectorAt, dims, p + knownAt),
                 'encode');
      const region = this.mem.region(p);  // anew: the call may have grown the wasm heap
      const { u32, base } = region;
      return take(region.f32, direct === null ? (p - base + vectorAt) >>> 2 : -1, u32[(p - base + knownAt) >>> 2]);
    });
  }

  /** Encodes one text into `out` (dims floats); returns how many of its words were known. */
  encodeOne(model, text, dims, out) {
    return this.encodeOneWith(model, text, dims, (f32, at, knownWords) => {
      if (at >= 0) out.set(f32.subarray(at, at + dims));
      return knownWords;
    }, out);
  }

  /** One text's vector as a new Float32Array (one allocation, and a copy only where results are copied). */
  encodeOneNew(model, text, dims) {
    if (!this.mem.direct) return this.encodeOneWith(model, text, dims, (f32, at) => f32.slice(at, at + dims));
    const out = new Float32Array(dims);
    this.encodeOne(model, text, dims, out);
    return out;
  }

  /** [start, end, utf8 bound] of each chunk of texts encoded in one call into the core. */
  * chunks(texts) {
    for (let start = 0; start < texts.length;) {
      let end = start;
      let bound = 0;
      while (end < texts.length && end - start < kChunkTexts &&
             (end === start || bound + utf8Bound(texts[end]) <= kChunkBytes)) {
        bound += utf8Bound(texts[end]);
        ++end;
      }
      yield [start, end, bound];
      start = end;
    }
  }

  /**
   * Encodes `texts` with `dims` dimensions in chunks and calls visit(start, count, vectorsPtr, extraPtr,
   * knownPtr) for each, with `extra` bytes per text of 8-aligned room at extraPtr (e.g. for ids) and
   * each text's known words (uint32) at knownPtr. The vectors and counts are in the scratch area, or,
   * given `into` ({ vectors, knownWords? }: arrays for all the texts), in those: written there directly
   * where the backend can (native), else copied there. visit must not use the scratch area.
   */
  encodeChunks(model, texts, dims, extra, visit, what = 'encode', into = null) {
    const vectorsTo = into === null ? null : this.mem.addressOf(into.vectors);
    const knownTo = into?.knownWords ? this.mem.addressOf(into.knownWords) : null;
    for (const [start, end, bound] of this.chunks(texts)) {
      const count = end - start;
      const recordsAt = align8(this.ENCODE_PARAMS.size);
      const extraAt = recordsAt + align8(this.TEXT.size * count);
      const knownAt = extraAt + align8(extra * count);
      const vectorsAt = knownAt + (knownTo === null ? align8(4 * count) : 0);
      const bytesAt = vectorsAt + (vectorsTo === null ? align8(4 * dims * count) : 0);
      this.withScratch(bytesAt + bound, (p) => {
        this.writeEncodeParams(p, dims);
        this.writeTexts(texts, p + recordsAt, p + bytesAt, start, end);
        const vectorsPtr = vectorsTo === null ? p + vectorsAt : vectorsTo + 4 * dims * start;
        const knownPtr = knownTo === null ? p + knownAt : knownTo + 4 * start;
        this.check(this.c.swe_model_encode_batch(model, p + recordsAt, count, p, vectorsPtr, count * dims, knownPtr), what);
        if (into !== null && vectorsTo === null) into.vectors.set(this.view(Float32Array, vectorsPtr, count * dims), start * dims);
        if (into?.knownWords && knownTo === null) into.knownWords.set(this.view(Uint32Array, knownPtr, count), start);
        visit?.(start, count, vectorsPtr, p + extraAt, knownPtr);
      });
    }
  }

  /** Encodes `texts` into `vectors` (texts.length × dims) and, when given, known words into `knownWords`. */
  encodeMany(model, texts, dims, vectors, knownWords, what = 'encode') {
    this.encodeChunks(model, texts, dims, 0, null, what, { vectors, knownWords });
  }

  /**
   * encodeMany without holding the JS thread for more than a chunk: { vectors, knownWords }. On the
   * native backend the chunks run on the thread pool, several at once, each writing straight into the
   * arrays returned; the JS thread only writes each chunk's UTF-8. Elsewhere the chunks run here, the
   * event loop served between them. `model` must stay valid until the promise settles (Handle.hold).
   */
  async encodeAsync(model, texts, dims) {
    if (this.async === null) {
      const vectors = new Float32Array(texts.length * dims);
      const knownWords = new Uint32Array(texts.length);
      // Slices of texts sized from the last one's speed to take about kSliceMs each (at most doubling),
      // the event loop served between them: a slice of a fixed count could hold it for 100s of ms.
      let size = 16;
      for (let start = 0; start < texts.length;) {
        const end = Math.min(texts.length, start + size);
        const began = performance.now();
        this.encodeMany(model, texts.slice(start, end), dims, vectors.subarray(start * dims, end * dims),
                        knownWords.subarray(start, end), 'encodeAsync');
        const ms = Math.max(performance.now() - began, 0.05);
        size = Math.max(1, Math.min(2 * (end - start), kChunkTexts, Math.floor((end - start) * kSliceMs / ms)));
        start = end;
        await yieldToEventLoop();
      }
      return { vectors, knownWords };
    }
    // The results, allocated in the binding's memory so that the C calls write them in place; their
    // buffers become the returned arrays.
    const vectorsPtr = this.malloc(4 * dims * texts.length);
    const knownPtr = this.malloc(4 * texts.length);
    const running = new Set();
    const spare = [];  // [ptr, size] of chunk blocks whose call has finished: reused (fresh memory costs)
    let failed = null;
    let vectors, knownWords;
    try {
      for (const [start, end, bound] of this.chunks(texts)) {
        if (failed !== null) break;
        const count = end - start;
        const recordsAt = align8(this.ENCODE_PARAMS.size);
        const bytesAt = recordsAt + align8(this.TEXT.size * count);
        const fits = spare.findIndex(([, size]) => size >= bytesAt + bound);
        const block = fits >= 0 ? spare.splice(fits, 1)[0] : [this.malloc(bytesAt + bound), bytesAt + bound];
        const p = block[0];
        let call;
        try {
          this.writeEncodeParams(p, dims);
          this.writeTexts(texts, p + recordsAt, p + bytesAt, start, end);
          call = this.async.swe_model_encode_batch(model, p + recordsAt, count, p, vectorsPtr + 4 * dims * start,
                                                   count * dims, knownPtr + 4 * start);
        } catch (error) {
          this.free(p);
          throw error;
        }
        // The block stays registered, so alive, while its call runs; then it serves the next chunk.
        const job = call.then(([status, message]) => {
          spare.push(block);
          if (status !== 0) failed ??= this.failure(status, message, 'encodeAsync');
        }).finally(() => running.delete(job));
        running.add(job);
        if (running.size >= this.asyncInFlight) await Promise.race(running);
      }
    } finally {
      await Promise.all(running);  // the C calls write into these buffers until they finish
      for (const [ptr] of spare) this.free(ptr);
      vectors = this.view(Float32Array, vectorsPtr, texts.length * dims);
      knownWords = this.view(Uint32Array, knownPtr, texts.length);
      this.free(vectorsPtr);
      this.free(knownPtr);
    }
    if (failed !== null) throw failed;
    return { vectors, knownWords };
  }

  /** Writes swe_encode_params at `at`: `dims` (0: all), the model's scaling and word limit. */
  writeEncodeParams(at, dims) {
    const { u32, base } = this.mem.region(at);  // the region's view: a new view per call costs as much as a short encode
    const i = (at - base) >>> 2;
    u32[i + (this.ENCODE_PARAMS.dims >>> 2)] = dims;
    u32[i + (this.ENCODE_PARAMS.normalize >>> 2)] = 0;  // SWE_NORMALIZE_MODEL
    u32[i + (this.ENCODE_PARAMS.max_tokens >>> 2)] = 0;  // the model's word limit
  }

  /** Cosine similarity of two texts' vectors with `dims` (0: all) dimensions. */
  similarity(model, a, b, dims) {
    const paramsAt = 0;
    const scoreAt = align8(this.ENCODE_PARAMS.size);
    const aAt = scoreAt + 8;
    return this.withScratch(aAt + align8(utf8Bound(a)) + utf8Bound(b), (p) => {
      this.writeEncodeParams(p + paramsAt, dims);
      const aSize = this.writeText(a, p + aAt);
      const bPtr = p + aAt + align8(aSize);
      const bSize = this.writeText(b, bPtr);
      this.check(this.c.swe_model_compute_similarity(model, p + aAt, aSize, bPtr, bSize, p + paramsAt, p + scoreAt),
                 'similarity');
      return this.view(Float32Array, p + scoreAt, 1)[0];
    });
  }

  /** The words of `text`: [{ begin, end, row, match }], begin/end UTF-8 byte offsets, match a name. */
  analyze(model, text) {
    const TOKEN = this.TOKEN;
    const capacity = utf8Bound(text) + 1;  // a word has at least one byte
    const textAt = 8;
    return this.withScratch(textAt + align8(utf8Bound(text)) + TOKEN.size * capacity, (p) => {
      const size = this.writeText(text, p + textAt);
      const tokensAt = p + textAt + align8(size);
      this.check(this.c.swe_model_analyze_text(model, p + textAt, size, tokensAt, capacity, p), 'tokenize');
      const n = this.word64(p);
      const fields = this.view(Int32Array, tokensAt, n * TOKEN.size / 4);
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
    this.mem.write(dataPtr, bytes);
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
      const view = this.view(BigUint64Array, extra, count);
      for (let i = 0; i < count; ++i) view[i] = ids[start + i];
      this.check(this.c.swe_index_add(index, extra, vectors, count), 'add');
    });
  }

  /** Adds `vectors` (a Float32Array, ids.length rows) under `ids` (BigInts). */
  indexAddVectors(index, ids, vectors) {
    const count = ids.length;
    this.withScratch(kU64 * count + 4 * vectors.length, (p) => {
      const view = this.view(BigUint64Array, p, count);
      for (let i = 0; i < count; ++i) view[i] = ids[i];
      this.view(Float32Array, p + kU64 * count, vectors.length).set(vectors);
      this.check(this.c.swe_index_add(index, p, p + kU64 * count, count), 'addVectors');
    });
  }

  /**
   * Adds documents; `parts` holds each document's [id, text, metadata JSON ("" for none)] in a row.
   * Their vectors are `vectors` (a Float32Array of dims-long rows) when given, else their texts
   * encoded with `model`.
   */
  indexAddDocs(index, model, texts, parts, vectors = null) {
    const perDoc = this.DOC.size / this.TEXT.size;  // swe_doc: swe_text records in a row
    const dims = this.indexDims(index);
    const add = (start, count, vectorsPtr) => {
      const chunk = parts.slice(perDoc * start, perDoc * (start + count));
      const bytes = chunk.reduce((sum, text) => sum + utf8Bound(text), 0);
      const records = this.malloc(this.TEXT.size * chunk.length + bytes);
      try {
        this.writeTexts(chunk, records, records + this.TEXT.size * chunk.length);
        this.check(this.c.swe_index_add_docs(index, records, vectorsPtr, count), 'addDocs');
      } finally {
        this.free(records);
      }
    };
    if (vectors === null) {
      this.encodeChunks(model, texts, dims, 0, (start, count, vectorsPtr) => add(start, count, vectorsPtr));
      return;
    }
    for (const [start, end] of this.chunks(texts)) {
      const vectorsPtr = this.malloc(4 * dims * (end - start));
      try {
        this.view(Float32Array, vectorsPtr, dims * (end - start)).set(vectors.subarray(start * dims, end * dims));
        add(start, end - start, vectorsPtr);
      } finally {
        this.free(vectorsPtr);
      }
    }
  }

  /** The entry id (BigInt) of the document with string id `id`, or null when none has it. */
  indexFindDoc(index, id, what) {
    return this.withScratch(kU64 + utf8Bound(id), (p) => {
      const size = this.writeText(id, p + kU64);
      const status = this.c.swe_index_find_doc(index, p + kU64, size, p);
      if (status === this.statusCodes['not found']) return null;
      this.check(status, what);
      return this.view(BigUint64Array, p, 1)[0];
    });
  }

  /** The document of `entry` as [id, text, metadata JSON], or null when it has none. */
  indexGetDoc(index, entry) {
    const DOC = this.DOC;
    return this.withScratch(DOC.size, (p) => {
      const status = this.c.swe_index_get_doc(index, entry, p);
      if (status === this.statusCodes['not found']) return null;
      this.check(status, 'get');
      return [DOC.id, DOC.text, DOC.metadata].map((at) => this.readText(p + at));
    });
  }

  /** The entry ids (BigInts) in storage order. */
  indexIds(index) {
    const size = this.indexSize(index);
    return this.withScratch(kU64 + kU64 * size, (p) => {
      this.check(this.c.swe_index_get_ids(index, p + kU64, size, p), 'ids');
      return Array.from(this.view(BigUint64Array, p + kU64, size));
    });
  }

  /** The k (≤ size, > 0) best entries for `vector`: [[entry, score]], those scoring at least minScore. */
  indexSearch(index, vector, k, minScore, candidates) {
    const dims = vector.length;
    const countAt = align8(this.SEARCH_PARAMS.size);
    const idsAt = countAt + 8;
    const scoresAt = idsAt + kU64 * k;
    const queryAt = scoresAt + align8(4 * k);
    return this.withScratch(queryAt + 4 * dims, (p) => {
      this.view(Float32Array, p + queryAt, dims).set(vector);
      this.putWord(this.view(Uint32Array, p + this.SEARCH_PARAMS.candidates, this.word >> 2), 0, candidates);
      this.check(this.c.swe_index_search(index, p + queryAt, dims, k, p, p + idsAt, p + scoresAt, p + countAt), 'search');
      return this.readHits(p + idsAt, p + scoresAt, this.word64(p + countAt), minScore);
    });
  }

  /** indexSearch for each text of `texts`, encoded with `model`: an array of hit arrays. */
  indexSearchTexts(index, model, texts, k, minScore, candidates) {
    const dims = this.indexDims(index);
    const word = this.word;
    const found = [];
    // Room per query (the "extra" of encodeChunks): k ids, k scores and a count (size_t), and room for
    // the chunk's swe_search_params (a word more each: the counts are aligned to 8).
    this.encodeChunks(model, texts, dims, (kU64 + 4) * k + 2 * word + this.SEARCH_PARAMS.size, (start, count, vectors, extra) => {
      const scoresAt = extra + kU64 * k * count;
      const countsAt = align8(scoresAt + 4 * k * count);
      const paramsAt = countsAt + word * count;
      this.putWord(this.view(Uint32Array, paramsAt + this.SEARCH_PARAMS.candidates, word >> 2), 0, candidates);
      this.check(this.c.swe_index_search_batch(index, vectors, count, dims, k, minScore, paramsAt, extra, scoresAt,
                                               countsAt), 'searchBatch');
      const counts = this.sizes(countsAt, count);
      for (let q = 0; q < count; ++q) {
        found.push(this.readHits(extra + kU64 * k * q, scoresAt + 4 * k * q, counts[q], minScore));
      }
    });
    return found;
  }

  // [[entry id, score], ...] of n hits at idsPtr / scoresPtr, those scoring at least minScore.
  readHits(idsPtr, scoresPtr, n, minScore) {
    const ids = this.view(BigUint64Array, idsPtr, n);
    const scores = this.view(Float32Array, scoresPtr, n);
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

  // ---- vectors (swe_vectors_*: rows of dims floats, copied into memory for the call) ----

  /**
   * The k (≤ rows) best rows of `vectors` for `query`, scoring at least minScore: [[row, score]], best
   * first, or in row order when `rowOrder`.
   */
  vectorsRank(query, vectors, dims, k, minScore, rowOrder) {
    const RANK_PARAMS = this.RANK_PARAMS;
    const countAt = align8(RANK_PARAMS.size);
    const rowsAt = countAt + 8;
    const scoresAt = rowsAt + align8(this.word * k);
    const queryAt = scoresAt + align8(4 * k);
    const vectorsAt = queryAt + align8(4 * dims);
    return this.withScratch(vectorsAt + 4 * vectors.length, (p) => {
      this.view(Float32Array, p + RANK_PARAMS.min_score, 1)[0] = minScore;
      this.view(Int32Array, p + RANK_PARAMS.order, 1)[0] = rowOrder ? 1 : 0;  // SWE_RANK_ROW_ORDER : _BEST_FIRST
      this.view(Float32Array, p + queryAt, dims).set(query);
      this.view(Float32Array, p + vectorsAt, vectors.length).set(vectors);
      this.checkRange(this.c.swe_vectors_rank(p + queryAt, p + vectorsAt, vectors.length / dims, dims, k, p, p + rowsAt,
                                              p + scoresAt, p + countAt), 'rank');
      const n = this.word64(p + countAt);
      const scores = this.view(Float32Array, p + scoresAt, n);
      return this.sizes(p + rowsAt, n).map((row, i) => [row, scores[i]]);
    });
  }

  /** Near-duplicate groups of the rows: arrays of row numbers, each group's first its representative. */
  vectorsNearDuplicates(vectors, dims, threshold) {
    const n = vectors.length / dims;
    const groupsAt = 8;
    const vectorsAt = groupsAt + align8(this.word * n);
    return this.withScratch(vectorsAt + 4 * vectors.length, (p) => {
      this.view(Float32Array, p + vectorsAt, vectors.length).set(vectors);
      this.checkRange(this.c.swe_vectors_near_duplicates(p + vectorsAt, n, dims, threshold, p + groupsAt, 0, p),
                      'nearDuplicateGroups');
      const groups = Array.from({ length: this.word64(p) }, () => []);
      this.sizes(p + groupsAt, n).forEach((group, row) => groups[group].push(row));
      return groups;
    });
  }

  /** k-means of the rows: { labels, centroids, inertia, iterations } (swe_vectors_kmeans). */
  vectorsKMeans(vectors, dims, k, seed, restarts, iterations) {
    const KMEANS_PARAMS = this.KMEANS_PARAMS;
    const n = vectors.length / dims;
    const inertiaAt = align8(KMEANS_PARAMS.size);
    const iterationsAt = inertiaAt + 8;
    const labelsAt = iterationsAt + 8;
    const centroidsAt = labelsAt + align8(4 * n);
    const vectorsAt = centroidsAt + align8(4 * k * dims);
    return this.withScratch(vectorsAt + 4 * vectors.length, (p) => {
      const params = this.view(Uint32Array, p, KMEANS_PARAMS.size / 4);
      params[KMEANS_PARAMS.seed / 4] = seed;
      params[KMEANS_PARAMS.restarts / 4] = restarts;
      params[KMEANS_PARAMS.max_iterations / 4] = iterations;
      this.view(Float32Array, p + vectorsAt, vectors.length).set(vectors);
      this.checkRange(this.c.swe_vectors_kmeans(p + vectorsAt, n, dims, k, p, p + labelsAt, p + centroidsAt,
                                                p + inertiaAt, p + iterationsAt), 'kmeans');
      return { labels: this.view(Int32Array, p + labelsAt, n).slice(),
               centroids: this.view(Float32Array, p + centroidsAt, k * dims).slice(),
               inertia: this.view(Float64Array, p + inertiaAt, 1)[0],
               iterations: this.view(Uint32Array, p + iterationsAt, 1)[0] };
    });
  }

  /** The index file's bytes. */
  indexSave(index) {
    const word = this.word;
    const [ptr, size] = this.withScratch(2 * word, (p) => {
      this.check(this.c.swe_index_save_to_bytes(index, p, p + word), 'save');
      return [this.word64(p), this.word64(p + word)];
    });
    return this.takeBytes(ptr, size);
  }

  /** swe_index_save_changes: { offset, bytes } to write at offset of the index's file (cut there). */
  indexSaveChanges(index) {
    const word = this.word;
    const [ptr, size, offset] = this.withScratch(2 * word + kU64, (p) => {
      this.check(this.c.swe_index_save_changes(index, p, p + word, p + 2 * word), 'saveChanges');
      return [this.word64(p), this.word64(p + word), this.view(BigUint64Array, p + 2 * word, 1)[0]];
    });
    return { offset: Number(offset), bytes: this.takeBytes(ptr, size) };
  }

  // A copy of the `size` bytes the library allocated at `ptr`, which is freed.
  takeBytes(ptr, size) {
    try {
      return this.mem.read(ptr, size);
    } finally {
      this.c.swe_free_bytes(ptr);
    }
  }
}

/** Lets the event loop run (timers, I/O, messages) before going on: setImmediate in Node, a message elsewhere. */
export function yieldToEventLoop() {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();  // not setTimeout: browsers clamp nested timers to 4 ms
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** Bytes of UTF-8 that are enough for `text` (a UTF-16 unit never needs more than 3), and a NUL. */
export function utf8Bound(text) { return text.length * 3 + 1; }

/** Rounds up to a multiple of 8 (alignment of the records that follow); exact for native addresses too. */
export function align8(n) { return n + (-n & 7); }
