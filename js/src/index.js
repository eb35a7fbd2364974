// swe-embeddings: static word embeddings for sentence semantics, in Node and browsers.
//
//   import { loadModel } from 'swe-embeddings';
//   const model = await loadModel('model.swe');          // path (Node), URL, Uint8Array or ArrayBuffer
//   const vectors = model.encode(['a sentence', 'another']);  // Float32Array, 2 × model.dims
import { SweError, describe, initialize, isNode, readNodeFile, toBytes } from './wasm.js';
import { Model } from './model.js';
import { Index } from './search-index.js';

export { Index, Model, SweError, initialize };

/**
 * Loads a .swe model from bytes (Uint8Array, ArrayBuffer or another ArrayBufferView), a URL (a URL
 * object, or an http(s) string: fetched) or, in Node, a file path (string or file: URL). The bytes are
 * validated; a corrupt or unsupported file rejects with a SweError naming the problem.
 */
export async function loadModel(source, options = {}) {
  const wasm = await initialize(options);
  const bytes = await readSource(source);
  const dataPtr = wasm.copyIn(bytes);
  try {
    const ptr = wasm.withScratch(8, (p) => {
      wasm.check(wasm.m._swe_model_load_from_bytes(dataPtr, bytes.length, 0, p), 'loadModel');
      return new Uint32Array(wasm.u8.buffer, p, 1)[0];
    });
    return new Model(wasm, ptr);
  } finally {
    wasm.free(dataPtr);
  }
}

/** The library version ("MAJOR.MINOR.PATCH", the wasm core's). */
export async function version() {
  return (await initialize()).version;
}

async function readSource(source) {
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return toBytes(source, 'loadModel');
  if (typeof source === 'string' && !/^(https?|blob|data):/i.test(source)) {
    if (!isNode) return fetchBytes(new URL(source, globalThis.location?.href));
    return readNodeFile(source).catch((error) => {
      throw new SweError(`loadModel: ${error.message}`, 'io', 5);
    });
  }
  if (typeof source === 'string' || source instanceof URL) {
    const url = new URL(source);
    if (url.protocol === 'file:') {
      if (!isNode) throw new TypeError('loadModel: file: URLs can only be read in Node');
      return readNodeFile(url).catch((error) => {
        throw new SweError(`loadModel: ${error.message}`, 'io', 5);
      });
    }
    return fetchBytes(url);
  }
  if (typeof Blob !== 'undefined' && source instanceof Blob) return new Uint8Array(await source.arrayBuffer());
  throw new TypeError(`loadModel: expected bytes, a URL or a path, got ${describe(source)}`);
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new SweError(`loadModel: fetching ${url} failed: HTTP ${response.status}`, 'io', 5);
  return new Uint8Array(await response.arrayBuffer());
}
