// The WebAssembly module: one instance per JS realm, shared by every model, started once and wrapped
// in the binding (binding.js) that every C call goes through.
import createSweModule from '../dist/swe.js';
import { Binding } from './binding.js';
import { toBytes } from './checks.js';

const isNode =
  typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';

let modulePromise = null;
let started = null;  // the Binding, once the module has started

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
  started = new Binding(await createSweModule(settings));
  return started;
}

/** The started module's Binding, or null until initialize() (or loadModel()) has resolved once. */
export function startedBinding() { return started; }

/** Reads a file in Node (node:fs is imported only here, so browser bundles carry no Node import). */
export async function readNodeFile(pathOrUrl, signal) {
  // The specifier is a variable so that bundlers for the browser do not try to resolve it.
  const specifier = 'node:fs/promises';
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
  return new Uint8Array(await fs.readFile(pathOrUrl, { signal }));
}

export { isNode };
