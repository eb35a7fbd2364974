// The backend every C call goes through, started once per JS realm and wrapped in the binding
// (binding.js): in Node the native addon swe.node when it is there (the platform package
// swe-embeddings-<platform>-<arch>, an optional dependency, or the file SWE_NATIVE_ADDON names), else
// the WebAssembly module (dist/swe.wasm), which is also what browsers run. SWE_BACKEND=native or wasm
// forces one (native: an error when the addon cannot load). Both give the same vectors, errors and
// index files (js/test runs on each).
import createSweModule from '../dist/swe.js';
import { Binding, FUNCTIONS, NativeMemory, WasmMemory } from './binding.js';
import { toBytes } from './checks.js';

const isNode =
  typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';

let startPromise = null;
let started = null;  // the Binding, once the backend has started

/**
 * Starts the backend once; later calls return the same promise. Options (first call only, for the
 * WebAssembly module): `wasmBinary` (the bytes of swe.wasm) or `wasmUrl` (where to fetch it; by
 * default swe.wasm next to this package's dist/swe.js, read with node:fs in Node).
 */
export function initialize(options = {}) {
  if (startPromise === null) {
    startPromise = start(options).catch((error) => {
      startPromise = null;  // a failed start (e.g. a network error) may be retried
      throw error instanceof Error ? error : new Error(`swe: cannot start the WebAssembly module: ${error}`);
    });
  }
  return startPromise;
}

async function start(options) {
  const wanted = (isNode && process.env.SWE_BACKEND) || 'auto';
  if (!['auto', 'native', 'wasm'].includes(wanted)) {
    throw new Error(`swe: SWE_BACKEND must be "native" or "wasm", not ${JSON.stringify(wanted)}`);
  }
  if (isNode && wanted !== 'wasm') {
    const addon = await loadAddon(wanted === 'native');
    if (addon !== null) {
      return (started = new Binding(addon.functions, new NativeMemory(addon), 'native', addon.async, await cpuCount()));
    }
  }
  return (started = await startWasm(options));
}

async function startWasm({ wasmBinary, wasmUrl } = {}) {
  // The default is a literal `new URL(file, import.meta.url)`: the form bundlers (Vite, webpack) rewrite.
  const url = wasmUrl === undefined ? new URL('../dist/swe.wasm', import.meta.url) : new URL(wasmUrl, import.meta.url);
  const settings = {};
  if (wasmBinary !== undefined) {
    settings.wasmBinary = toBytes(wasmBinary, 'initialize: wasmBinary');
  } else if (isNode && url.protocol === 'file:') {
    // Emscripten's own loaders for an ES module do not work in Node 20: hand it the bytes.
    settings.wasmBinary = await readNodeFile(url);
  } else {
    // Emscripten compiles it with WebAssembly.instantiateStreaming: while it downloads.
    settings.locateFile = () => url.href;
  }
  const module = await createSweModule(settings);
  const functions = Object.fromEntries(Object.keys(FUNCTIONS).map((name) => [name, module[`_${name}`]]));
  return new Binding(functions, new WasmMemory(module), 'wasm');
}

/**
 * The native addon, or null when there is none for this platform (or it cannot load here, e.g. an
 * older glibc) and `required` is false; with `required`, an Error saying why.
 */
async function loadAddon(required) {
  const file = process.env.SWE_NATIVE_ADDON;
  const pkg = `swe-embeddings-${process.platform}-${process.arch}`;
  try {
    if (file) {
      // Variable specifiers: bundlers must not try to resolve Node's modules or the optional package.
      const [moduleSpecifier, pathSpecifier] = ['node:module', 'node:path'];
      const { createRequire } = await import(/* webpackIgnore: true */ /* @vite-ignore */ moduleSpecifier);
      const { resolve } = await import(/* webpackIgnore: true */ /* @vite-ignore */ pathSpecifier);
      return createRequire(import.meta.url)(resolve(file));  // a relative path is the working directory's
    }
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ pkg)).default;
  } catch (error) {
    if (!required) return null;
    const what = file ? `SWE_NATIVE_ADDON=${file}` : `the platform package ${pkg} (npm install ${pkg})`;
    throw new Error(`swe: SWE_BACKEND=native but ${what} cannot be loaded: ${error.message}`);
  }
}

/** The started backend's Binding, or null until initialize() (or loadModel()) has resolved once. */
export function startedBinding() { return started; }

/** The CPUs this process may use: os.availableParallelism() in Node, navigator.hardwareConcurrency elsewhere. */
export async function cpuCount() {
  if (isNode) {
    const specifier = 'node:os';  // a variable: bundlers for the browser must not resolve it
    const os = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
    return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  }
  return (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
}

/** Reads a file in Node (node:fs is imported only here, so browser bundles carry no Node import). */
export async function readNodeFile(pathOrUrl, signal) {
  // The specifier is a variable so that bundlers for the browser do not try to resolve it.
  const specifier = 'node:fs/promises';
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
  return new Uint8Array(await fs.readFile(pathOrUrl, { signal }));
}

export { isNode };
