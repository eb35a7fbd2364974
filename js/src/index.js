// swe-embeddings: static word embeddings for sentence semantics, in Node and browsers.
//
//   import { loadModel } from 'swe-embeddings';
//   const model = await loadModel();                      // the default model (swe-embeddings-model-en)
//   const vectors = model.encode(['a sentence', 'another']);  // Float32Array, 2 × model.dims
import { SweError, initialize } from './wasm.js';
import { checkLoadOptions, readSource } from './load.js';
import { Model } from './model.js';
import { Index } from './search-index.js';

export { Index, Model, SweError, initialize };
export { cosine, kmeans, nearDuplicateGroups, similarityMatrix } from './helpers.js';
export { SweEmbeddings } from './langchain.js';

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
  checkLoadOptions(options);
  const wasm = await initialize(options);
  const { bytes, commit } = await readSource(source, options);
  // The bytes go once into a heap buffer that the model takes over (a raw payload is used where it
  // lies): one copy, not two, and no second 11 MB in the heap while loading.
  const dataPtr = wasm.m._swe_model_buffer_new(bytes.length);
  if (!dataPtr) wasm.throwOutOfMemory(bytes.length);
  wasm.u8.set(bytes, dataPtr);
  let handedOver = false;  // from the load call on, the buffer is the model's (or freed by it)
  let ptr;
  try {
    ptr = wasm.withScratch(8, (p) => {
      handedOver = true;
      wasm.check(wasm.m._swe_model_load_from_buffer(dataPtr, bytes.length, 0, p), 'loadModel');
      return new Uint32Array(wasm.u8.buffer, p, 1)[0];
    });
  } finally {
    if (!handedOver) wasm.m._swe_model_buffer_free(dataPtr);
  }
  const model = new Model(wasm, ptr);
  await commit();  // cached only once it proved to be a valid model
  return model;
}

/** The library version ("MAJOR.MINOR.PATCH", the wasm core's). */
export async function version() {
  return (await initialize()).version;
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}
