// swe-embeddings: static word embeddings for sentence semantics, in Node and browsers.
//
//   import { loadModel } from 'swe-embeddings';
//   const model = await loadModel();                      // the default model (swe-embeddings-model-en)
//   const vectors = model.encode(['a sentence', 'another']);  // Float32Array, 2 × model.dims
import { initialize } from './backend.js';

export { SweError } from './checks.js';
export { Index } from './search-index.js';
export { Model } from './model.js';
export { loadIndex, loadModel } from './load.js';
export { initialize };
export { cosine, kmeans, nearDuplicateGroups, similarityMatrix } from './helpers.js';
export { SweEmbeddings } from './langchain.js';
export { WorkerPool, createWorkerPool } from './pool.js';

/** The library version ("MAJOR.MINOR.PATCH", the core's). */
export async function version() {
  return (await initialize()).version;
}

/** The backend in use: "native" (the addon swe.node) or "wasm" (the WebAssembly module). */
export async function backend() {
  return (await initialize()).backend;
}
