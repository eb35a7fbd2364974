// The WebAssembly module (one instance per JS realm, shared by every model) and the helpers that move
// data across its heap. Every view of the heap is taken afresh after a call that may allocate: memory
// growth detaches the old ArrayBuffer. Nothing returned to users points into the heap.
import createSweModule from '../dist/swe.js';

const isNode =
  typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';

let modulePromise = null;

/**
 * Loads and instantiates the WebAssembly module once; later calls return the same promise. Options
 * (first call only): `wasmBinary` (the bytes of swe.wasm) or `wasmUrl` (where to fetch it; by default
 * swe.wasm next to this package's dist/swe.js, read with node:fs in Node).
 */
export function initialize(options = {}) {
  if (modulePromise === null) {
    modulePromise = instantiate(options).catch((error) => {
      modulePromise = null;  // a failed start (e.g. a network error) may be retried
      throw error instanceof Error ? error : new Error(`swe: cannot start the WebAssembly module: ${error}`);
    });
  }
  return modulePromise;
}

async function instantiate({ wasmBinary, wasmUrl } = {}) {
  // The default is a literal `new URL(file, import.meta.url)`: the form bundlers (Vite, webpack) rewrite.
  const url = wasmUrl === undefined ? new URL('../dist/swe.wasm', import.meta.url) : new URL(wasmUrl, import.meta.url);
  const settings = {};
  if (wasmBinary !== undefined) {
    settings.wasmBinary = toBytes(wasmBinary, 'initialize: wasmBinary');
  } else if (isNode && url.protocol === 'file:') {
    // Emscripten's own loaders for an ES module do not work in Node 20: hand it the bytes.
    settings.wasmBinary = await readNodeFile(url);
  } else {
    settings.locateFile = () => url.href;
  }
  return new Sweasm(await createSweModule(settings));
}

/** Reads a file in Node (node:fs is imported only here, so browser bundles carry no Node import). */
export async function readNodeFile(pathOrUrl, signal) {
  // The specifier is a variable so that bundlers for the browser do not try to resolve it.
  const specifier = 'node:fs/promises';
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
  return new Uint8Array(await fs.readFile(pathOrUrl, { signal }));
}

export { isNode };

/** Uint8Array view of an ArrayBuffer or any ArrayBufferView (no copy); TypeError otherwise. */
export function toBytes(value, what) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`${what}: expected a Uint8Array or ArrayBuffer, got ${describe(value)}`);
}

export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'object'}`;
  return `a ${typeof value}`;
}

/** The texts as an array of strings; TypeError naming the first bad element otherwise. */
export function checkTexts(texts, what) {
  if (!Array.isArray(texts)) {
    throw new TypeError(`${what}: expected a string or an array of strings, got ${describe(texts)}`);
  }
  for (let i = 0; i < texts.length; ++i) {
    if (typeof texts[i] !== 'string') {
      throw new TypeError(`${what}: texts[${i}] is not a string (${describe(texts[i])})`);
    }
  }
  return texts;
}

/** A failure reported by the core: `code` is its status name ("corrupt", "invalid argument", ...). */
export class SweError extends Error {
  constructor(message, code, status) {
    super(message);
    this.name = 'SweError';
    this.code = code;
    this.status = status;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');
const kScratchKeep = 1 << 20;  // scratch memory kept between calls; larger requests are freed after

/** The instantiated module: exports, heap views, a reusable scratch area and error conversion. */
export class Sweasm {
  constructor(module) {
    this.m = module;
    this.scratch = 0;
    this.scratchSize = 0;
    this.version = this.string(module._swe_version());
    // The C API's constants, read from the module so that swe.h stays their one source: code -> name
    // lists (a name function answers its sentinel past the last code) and name -> code maps.
    this.statusNames = this.names(module._swe_status_name, 'unknown');
    this.matchNames = this.names(module._swe_match_name, 'invalid');
    this.dtypeNames = this.names(module._swe_dtype_name, 'unknown');
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
    const code = this.string(this.m._swe_status_name(status));
    const message = this.string(this.m._swe_last_error());
    throw new SweError(`${what}: ${message || code}`, code, status);
  }

  malloc(size) {
    const ptr = this.m._malloc(Math.max(size, 1));
    if (!ptr) this.throwOutOfMemory(size);
    return ptr;
  }

  throwOutOfMemory(size) {
    const status = this.statusCodes['out of memory'];
    throw new SweError(`out of memory (allocating ${size} bytes in the wasm heap)`, this.statusNames[status], status);
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

  /** Copies bytes into a new heap allocation; the caller frees it. */
  copyIn(bytes) {
    const ptr = this.malloc(bytes.length);
    this.u8.set(bytes, ptr);
    return ptr;
  }

  /**
   * Writes texts as UTF-8 at `textsPtr` (their swe_text records, 8 bytes each on wasm32) followed by
   * their bytes from `bytesPtr` (room for utf8Bound(texts) bytes).
   */
  writeTexts(texts, textsPtr, bytesPtr) {
    const heap = this.u8;
    const records = new Uint32Array(heap.buffer, textsPtr, texts.length * 2);
    let at = bytesPtr;
    for (let i = 0; i < texts.length; ++i) {
      const written = writeUtf8(texts[i], heap, at);
      records[2 * i] = at;
      records[2 * i + 1] = written;
      at += written;
    }
  }

  /** The `n` swe_text records at `ptr` (8 bytes each on wasm32) as strings. */
  readTexts(ptr, n) {
    const records = new Uint32Array(this.u8.buffer, ptr, 2 * n);
    const texts = [];
    for (let i = 0; i < n; ++i) texts.push(decoder.decode(this.u8.subarray(records[2 * i], records[2 * i] + records[2 * i + 1])));
    return texts;
  }

  /** Writes one text as UTF-8 at `ptr` (room for 3 × its length bytes) and returns its byte length. */
  writeText(text, ptr) {
    return writeUtf8(text, this.u8, ptr);
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
