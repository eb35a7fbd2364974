// WorkerPool: one model in each of several workers (Web Workers in a browser, worker_threads in Node)
// that encode a batch together: the texts go out in chunks, each to the next idle worker, and the
// vectors come back into one array in order, bit for bit what model.encode() gives (every worker runs
// the same core on the same model file). For the WebAssembly backend, which runs on one thread:
// browsers, and Node without the native addon (whose model.encodeAsync already uses every core).
import { checkTexts, describe, SweError } from './checks.js';
import { cpuCount, isNode } from './backend.js';
import { readModelBytes } from './load.js';

const kMaxDefaultWorkers = 8;
const kChunksPerWorker = 8;   // chunks per worker in a batch: work stays balanced when one lags
const kMinChunk = 256;        // texts: a message's cost is amortised over at least this many
const kMaxChunk = 4096;

/**
 * A pool of `workers` workers (default: the number of CPUs, navigator.hardwareConcurrency or
 * os.availableParallelism(), at most 8), each with the model of `source` (anything loadModel takes; it
 * is read once here and copied to each). Options: workers, and loadModel's onProgress, signal, cache,
 * wasmUrl. Resolves once every worker has loaded the model; close() ends them.
 */
export async function createWorkerPool(source, options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`createWorkerPool: options must be an object, got ${describe(options)}`);
  }
  const { workers = await defaultWorkers(), wasmUrl, ...load } = options;
  if (!Number.isInteger(workers) || workers < 1 || workers > 256) {
    throw new RangeError(`createWorkerPool: workers must be an integer in [1, 256], got ${workers}`);
  }
  const { bytes, commit } = await readModelBytes(source, load, 'createWorkerPool');
  const spawned = [];
  try {
    for (let i = 0; i < workers; ++i) spawned.push(await spawn());
    const ready = await Promise.all(spawned.map((w) => w.request({ type: 'load', bytes,
      wasmUrl: wasmUrl === undefined ? undefined : String(wasmUrl) })));
    await commit();  // cached only once it proved to be a valid model
    return new WorkerPool(spawned, ready[0].dims);
  } catch (error) {
    for (const w of spawned) w.terminate();
    throw error;
  }
}

export class WorkerPool {
  #workers;
  #idle;
  #queue = [];  // [message, resolve, reject] waiting for an idle worker
  #closed = false;

  /** @internal Use createWorkerPool(). */
  constructor(workers, dims) {
    this.#workers = workers;
    this.#idle = [...workers];
    this.dims = dims;
  }

  /** Number of workers. */
  get size() { return this.#workers.length; }

  /**
   * The vectors of `texts` (options.dims as for model.encode): a Float32Array of texts.length × dims,
   * encoded by the workers in chunks and assembled in order.
   */
  async encode(texts, options = {}) {
    const list = typeof texts === 'string' ? [texts] : checkTexts(texts, 'pool.encode');
    const dims = options.dims ?? 0;
    if (!Number.isInteger(dims) || dims < 0 || dims > this.dims) {
      throw new RangeError(`pool.encode: options.dims must be an integer in [0, ${this.dims}], got ${dims}`);
    }
    const rowDims = dims === 0 ? this.dims : dims;
    const out = new Float32Array(list.length * rowDims);
    const chunk = Math.min(kMaxChunk, Math.max(kMinChunk, Math.ceil(list.length / (this.size * kChunksPerWorker))));
    const jobs = [];
    for (let start = 0; start < list.length; start += chunk) {
      const part = list.slice(start, start + chunk);
      jobs.push(this.#run({ type: 'encode', texts: part, dims }).then(({ vectors }) => out.set(vectors, start * rowDims)));
    }
    await Promise.all(jobs);
    return out;
  }

  /** Ends the workers; pending and later calls reject. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    for (const [, , reject] of this.#queue.splice(0)) reject(new Error('pool.encode: the pool was closed'));
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }

  // Sends `message` to the next idle worker (waiting for one) and resolves to its answer.
  #run(message) {
    if (this.#closed) return Promise.reject(new Error('pool.encode: the pool was closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push([message, resolve, reject]);
      this.#dispatch();
    });
  }

  #dispatch() {
    while (this.#idle.length > 0 && this.#queue.length > 0) {
      const worker = this.#idle.pop();
      const [message, resolve, reject] = this.#queue.shift();
      worker.request(message).then(resolve, reject).finally(() => {
        this.#idle.push(worker);
        if (!this.#closed) this.#dispatch();
      });
    }
  }
}

/** CPUs of this machine (at most kMaxDefaultWorkers). */
async function defaultWorkers() { return Math.min(kMaxDefaultWorkers, await cpuCount()); }

/**
 * A worker running pool-worker.js: { request(message) -> Promise of its answer, terminate() }. One
 * request at a time (the pool sends a worker nothing while it works).
 */
async function spawn() {
  let worker;
  let post;
  let pending = null;  // [resolve, reject] of the request in flight
  const answer = (data) => {
    const [resolve, reject] = pending ?? [];
    pending = null;
    if (data?.type === 'error') reject?.(Object.assign(data.code ? new SweError(data.message, data.code, data.status)
      : new Error(data.message), { name: data.name ?? 'Error' }));
    else resolve?.(data);
  };
  const crashed = (error) => answer({ type: 'error', message: `swe: a pool worker failed: ${error?.message ?? error}` });
  if (isNode) {
    const specifier = 'node:worker_threads';
    const { Worker } = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
    worker = new Worker(new URL('./pool-worker.js', import.meta.url));
    worker.on('message', answer);
    worker.on('error', crashed);
    post = (message) => worker.postMessage(message);
  } else {
    // The literal form bundlers (Vite, webpack) recognise and emit the worker's file for.
    worker = new Worker(new URL('./pool-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (event) => answer(event.data);
    worker.onerror = (event) => crashed(event.message || 'it could not start');
    post = (message) => worker.postMessage(message);
  }
  return {
    request(message) {
      return new Promise((resolve, reject) => {
        pending = [resolve, reject];
        post(message);
      });
    },
    terminate() {
      if (pending) answer({ type: 'error', message: 'the pool was closed' });
      return worker.terminate();
    },
  };
}
