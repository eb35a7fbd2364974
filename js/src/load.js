// loadModel() and loadIndex(): a model's or an index's bytes from memory, a Blob, a file (Node), or a
// URL fetched as a stream (progress from Content-Length, AbortSignal, optional Cache API), or, for a
// model with no source, the default model package swe-embeddings-model-en when it is installed;
// loaded into the library as a Model or an Index.
import { SweError, describe, toBytes } from './checks.js';
import { Model } from './model.js';
import { initialize, isNode, readNodeFile } from './backend.js';

const kIo = 5;  // SWE_ERR_IO
const kDefaultCache = 'swe-embeddings';
const kModelOptions = new Set(['onProgress', 'signal', 'cache', 'wasmBinary', 'wasmUrl']);
const kIndexOptions = new Set(['onProgress', 'signal', 'cache', 'ids']);
const kPoolOptions = new Set(['onProgress', 'signal', 'cache']);

/**
 * Loads a .swe model from bytes (Uint8Array, ArrayBuffer or another ArrayBufferView), a Blob, a URL
 * (a URL object, or an http(s) string: fetched as a stream) or, in Node, a file path (string or file:
 * URL); with no source (or only options), the default model of the package swe-embeddings-model-en.
 * Options: onProgress({loaded, total}), signal (AbortSignal), cache (true or a Cache API name: keep
 * fetched models), and initialize()'s wasmBinary / wasmUrl. The bytes are validated; a corrupt or
 * unsupported file rejects with a SweError naming the problem.
 */
export async function loadModel(source, options = {}) {
  if (isPlainObject(source)) [source, options] = [undefined, source];
  checkLoadOptions(options, 'loadModel', kModelOptions);
  // The backend starts (the wasm module compiles) while the model downloads.
  const [binding, { bytes, commit }] = await Promise.all([initialize(options), readSource(source, options, 'loadModel')]);
  // The bytes go once into a buffer that the model takes over (a raw payload is used where it lies):
  // one copy, not two, and no second 11 MB in the wasm heap while loading.
  const model = new Model(binding, binding.modelLoad(bytes));
  await commit();  // cached only once it proved to be a valid model
  return model;
}

/**
 * Loads an index saved with index.save() or written by `swe index build` (a .swi file) for `model`,
 * from bytes, a Blob, a URL (fetched as a stream) or, in Node, a file path. `model` is a Model or a
 * promise of one: the index then downloads while the model loads. Options: onProgress, signal and
 * cache as for loadModel (a fetched index is kept once it loaded), and ids as for createIndex. The
 * index must have been built with the model (else a SweError, code "invalid argument").
 */
export async function loadIndex(model, source, options = {}) {
  checkLoadOptions(options, 'loadIndex', kIndexOptions);
  if (source === undefined) throw new TypeError('loadIndex: expected bytes, a URL or a path as the source');
  const [loaded, { bytes, commit }] = await Promise.all([model, readSource(source, options, 'loadIndex')]);
  if (!(loaded instanceof Model)) throw new TypeError(`loadIndex: expected a Model (or a promise of one), got ${describe(loaded)}`);
  const index = loaded.loadIndex(bytes, { ids: options.ids });
  await commit();
  return index;
}

/**
 * A model's bytes from any source loadModel takes (options: onProgress, signal, cache) and the
 * function that keeps fetched bytes in the cache (call it once they proved to be a valid model).
 */
export async function readModelBytes(source, options, what) {
  checkLoadOptions(options, what, kPoolOptions);
  return readSource(source, options, what);
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/** The options of `what`, checked (unknown keys are refused by name). */
function checkLoadOptions(options, what, keys) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${what}: options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!keys.has(key)) throw new TypeError(`${what}: unknown option "${key}"`);
  }
  const { onProgress, signal, cache } = options;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(`${what}: options.onProgress must be a function, got ${describe(onProgress)}`);
  }
  if (signal !== undefined && !(typeof signal === 'object' && signal !== null && 'aborted' in signal)) {
    throw new TypeError(`${what}: options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  if (cache !== undefined && typeof cache !== 'boolean' && typeof cache !== 'string') {
    throw new TypeError(`${what}: options.cache must be true, false or a cache name, got ${describe(cache)}`);
  }
  return options;
}

/**
 * The bytes of `source` and a function to call once they proved to be a valid model (it stores fetched
 * bytes in the Cache API when options.cache asks for it, so that a bad download is never kept).
 */
async function readSource(source, options, what) {
  options.signal?.throwIfAborted();
  if (source === undefined) source = await defaultModelUrl();
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return done(toBytes(source, what), options);
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return done(new Uint8Array(await source.arrayBuffer()), options);
  }
  let url;
  if (typeof source === 'string' && !/^(https?|blob|data|file):/i.test(source)) {  // a path (C:\ too)
    if (isNode) return readFile(source, options, what);
    url = new URL(source, globalThis.location?.href);
  } else if (typeof source === 'string' || source instanceof URL) {
    url = new URL(source);
  } else {
    throw new TypeError(`${what}: expected bytes, a URL or a path, got ${describe(source)}`);
  }
  if (url.protocol === 'file:') {
    if (!isNode) throw new TypeError(`${what}: file: URLs can only be read in Node`);
    return readFile(url, options, what);
  }
  return fetchBytes(url, options, what);
}

function done(bytes, { onProgress }) {
  onProgress?.({ loaded: bytes.length, total: bytes.length });
  return { bytes, commit: async () => {} };
}

async function readFile(path, options, what) {
  try {
    return done(await readNodeFile(path, options.signal), options);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw new SweError(`${what}: ${error.message}`, 'io', kIo);
  }
}

// Where swe-embeddings-model-en puts its URL when it is imported (see its index.js).
const kDefaultModel = Symbol.for('swe-embeddings.default-model');
const kModelPackage = 'swe-embeddings-model-en';

/**
 * The URL of the default model: swe-embeddings-model-en's file. In a bundle the package must have been
 * imported (it registers itself); otherwise (Node, or an import map) it is imported here by name.
 */
async function defaultModelUrl() {
  if (globalThis[kDefaultModel]) return globalThis[kDefaultModel];
  try {
    // A variable specifier: bundlers must not try to resolve this optional package (Vite and webpack
    // fail the build when it is not installed).
    const pkg = await import(/* webpackIgnore: true */ /* @vite-ignore */ kModelPackage);
    return pkg.modelUrl;
  } catch (error) {
    const hint = isNode ? `npm install ${kModelPackage}`
      : `npm install ${kModelPackage} and import '${kModelPackage}' once in your bundle`;
    throw new SweError(`loadModel: no model given and the default model package is not available (${hint}), ` +
                       `or pass a path, URL or bytes (${error.message})`, 'io', kIo);
  }
}

async function fetchBytes(url, options, what) {
  const { signal } = options;
  const cache = await openCache(options.cache);
  let response = cache ? await cache.match(url) : undefined;
  const cached = response !== undefined;
  if (!cached) {
    try {
      response = await fetch(url, { signal });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new SweError(`${what}: cannot fetch ${url}: ${error.message}`, 'io', kIo);
    }
    if (!response.ok) {
      throw new SweError(`${what}: fetching ${url} failed: HTTP ${response.status} ${response.statusText}`.trimEnd(),
                         'io', kIo);
    }
  }
  const bytes = await readBody(response, url, options, what);
  const commit = async () => {
    if (!cache || cached) return;
    const headers = { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes.length) };
    // A full quota or a private window must not fail a load that worked: the model is just not kept.
    await cache.put(url, new Response(bytes, { headers })).catch(() => {});
  };
  return { bytes, commit };
}

/** The Cache API store named by options.cache (true: "swe-embeddings"), or null (off, or no Cache API). */
async function openCache(cache) {
  if (!cache || typeof caches === 'undefined') return null;
  try {
    return await caches.open(cache === true ? kDefaultCache : cache);
  } catch {
    return null;  // e.g. an insecure context or a sandboxed frame: load without caching
  }
}

/**
 * The body as bytes, read chunk by chunk with onProgress({loaded, total}). total is the Content-Length;
 * where there is none, or it counts compressed bytes (a server that gzips or brotli-compresses the
 * file, as a raw model should be served), it is the file size read from the header (models' and
 * indexes' alike) once its first 32 bytes are in (null until then, and for bytes that are no such file).
 */
async function readBody(response, url, { onProgress, signal }, what) {
  const encoded = (response.headers.get('Content-Encoding') ?? 'identity') !== 'identity';
  const length = Number(response.headers.get('Content-Length'));
  const declared = !encoded && Number.isSafeInteger(length) && length > 0 ? length : null;
  let total = declared;
  let fromHeader = total === null;  // still to be read from the file's header
  onProgress?.({ loaded: 0, total });
  if (response.body === null) return new Uint8Array(0);
  let buffer = new Uint8Array(total ?? 1 << 20);
  let loaded = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done: end, value } = await reader.read();
      if (end) break;
      if (loaded + value.length > buffer.length) {
        const grown = new Uint8Array(Math.max(buffer.length * 2, loaded + value.length));
        grown.set(buffer.subarray(0, loaded));
        buffer = grown;
      }
      buffer.set(value, loaded);
      loaded += value.length;
      if (fromHeader && loaded >= 32) {
        fromHeader = false;
        total = fileSizeFromHeader(buffer);
      }
      onProgress?.({ loaded, total });
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    if (signal?.aborted) throw signal.reason;
    throw new SweError(`${what}: reading ${url} failed after ${loaded} bytes: ${error.message}`, 'io', kIo);
  }
  if (declared !== null && loaded < declared) {  // a wrong size in a header is the core's to report
    throw new SweError(`${what}: ${url} ended after ${loaded} of ${declared} bytes (connection cut?)`, 'io', kIo);
  }
  return buffer.subarray(0, loaded);
}

const kMagic = [0x89, 0x53, 0x57, 0x45, 0x0d, 0x0a, 0x1a, 0x0a];

/** 40 + the header's frame size (docs/FORMAT.md, "Container"), or null when this is no .swe/.swi header. */
function fileSizeFromHeader(bytes) {
  if (kMagic.some((b, i) => bytes[i] !== b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 32);
  const size = 40 + Number(view.getBigUint64(24, true));
  return Number.isSafeInteger(size) ? size : null;
}
