// One worker of a WorkerPool (pool.js), in a Web Worker or a Node worker thread: loads the model it
// is sent, then encodes the chunks of texts it is given, one at a time, sending back each chunk's
// vectors (the buffer transferred, not copied) or the error.
import { isNode, initialize } from './backend.js';
import { loadModel } from './load.js';

let model = null;

async function handle(message) {
  if (message.type === 'load') {
    if (message.wasmUrl !== undefined) await initialize({ wasmUrl: message.wasmUrl });
    model = await loadModel(message.bytes);
    return [{ type: 'ready', dims: model.dims }];
  }
  const vectors = model.encode(message.texts, { dims: message.dims });
  return [{ type: 'vectors', vectors }, [vectors.buffer]];
}

function errorMessage(error) {
  return { type: 'error', name: error?.name, message: error?.message ?? String(error), code: error?.code,
           status: error?.status };
}

// (No top-level await: bundlers build workers as classic scripts by default, e.g. Vite's "iife".)
if (isNode) {
  const specifier = 'node:worker_threads';  // a variable: bundlers for the browser must not resolve it
  import(/* webpackIgnore: true */ /* @vite-ignore */ specifier).then(({ parentPort }) => {
    parentPort.on('message', (message) => handle(message).then(([answer, transfer]) => parentPort.postMessage(answer, transfer),
      (error) => parentPort.postMessage(errorMessage(error))));
  });
} else {
  self.onmessage = ({ data }) => handle(data).then(([answer, transfer]) => self.postMessage(answer, transfer),
    (error) => self.postMessage(errorMessage(error)));
}
