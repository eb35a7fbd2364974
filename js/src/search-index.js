// Index: a flat, exact cosine index of (uint64 id, vector) entries in the wasm heap (C API handle),
// tied to the model that encodes its texts.
import { align8, checkTexts, describe, toBytes } from './wasm.js';

const kMaxU64 = (1n << 64n) - 1n;

const registry = new FinalizationRegistry(({ wasm, ptr }) => wasm.m._swe_index_free(ptr));

/**
 * @internal Runs create(outPtr) (a C call that makes an index) and wraps the handle. A new index
 * records the model (saved with it); a loaded one must have been built with the model.
 */
export function openIndex(wasm, model, options, what, create, loaded = false) {
  const idType = options.ids ?? 'number';
  if (idType !== 'number' && idType !== 'bigint') {
    throw new TypeError(`${what}: options.ids must be "number" or "bigint", not ${JSON.stringify(idType)}`);
  }
  const ptr = wasm.withScratch(8, (p) => {
    wasm.check(create(p), what);
    return new Uint32Array(wasm.u8.buffer, p, 1)[0];
  });
  const index = new Index(wasm, ptr, model, idType === 'bigint');
  try {
    const status = loaded ? wasm.m._swe_index_check_model(ptr, model.handle())
                          : wasm.m._swe_index_set_model(ptr, model.handle());
    wasm.check(status, what);
  } catch (error) {
    index.dispose();
    throw error;
  }
  return index;
}

export class Index {
  #wasm;
  #ptr;
  #model;
  #bigint;

  /** @internal Use model.createIndex() or model.loadIndex(). */
  constructor(wasm, ptr, model, bigintIds) {
    this.#wasm = wasm;
    this.#ptr = ptr;
    this.#model = model;
    this.#bigint = bigintIds;
    registry.register(this, { wasm, ptr }, this);
  }

  /** @internal */
  static load(wasm, model, bytes, options) {
    const data = toBytes(bytes, 'loadIndex');
    const dataPtr = wasm.copyIn(data);
    let index;
    try {
      index = openIndex(wasm, model, options, 'loadIndex',
                        (out) => wasm.m._swe_index_load_from_bytes(dataPtr, data.length, 0, out), true);
    } finally {
      wasm.free(dataPtr);
    }
    return index;
  }

  /** Number of entries. */
  get size() { return this.#wasm.m._swe_index_get_size(this.#handle()); }

  /** Dimensions of the stored vectors. */
  get dims() { return this.#wasm.m._swe_index_get_dims(this.#handle()); }

  /** Storage type: "f32" or "int8". */
  get dtype() { return this.#wasm.dtypeNames[this.#wasm.m._swe_index_get_dtype(this.#handle())]; }

  /** True once dispose() was called. */
  get disposed() { return this.#ptr === 0; }

  /**
   * Adds texts under ids (arrays of equal length; ids are non-negative integers, numbers or bigints).
   * An id already present is replaced.
   */
  add(ids, texts) {
    const list = typeof texts === 'string' ? [texts] : checkTexts(texts, 'add');
    const idList = this.#checkIds(typeof ids === 'number' || typeof ids === 'bigint' ? [ids] : ids, list.length);
    const wasm = this.#wasm;
    const handle = this.#handle();
    this.#model.encodeChunks(list, this.dims, 8, (start, count, vectors, extra) => {
      const view = new BigUint64Array(wasm.u8.buffer, extra, count);
      for (let i = 0; i < count; ++i) view[i] = idList[start + i];
      wasm.check(wasm.m._swe_index_add(handle, extra, vectors, count), 'add');
    });
  }

  /** Adds vectors (a Float32Array of ids.length × dims floats, row-major) under ids. */
  addVectors(ids, vectors) {
    const dims = this.dims;
    if (!(vectors instanceof Float32Array)) {
      throw new TypeError(`addVectors: vectors must be a Float32Array, got ${describe(vectors)}`);
    }
    if (vectors.length % dims !== 0) {
      throw new RangeError(`addVectors: ${vectors.length} floats are not a whole number of ${dims}-dimensional vectors`);
    }
    const count = vectors.length / dims;
    const idList = this.#checkIds(ids, count);
    const wasm = this.#wasm;
    wasm.withScratch(8 * count + 4 * vectors.length, (p) => {
      const view = new BigUint64Array(wasm.u8.buffer, p, count);
      for (let i = 0; i < count; ++i) view[i] = idList[i];
      new Float32Array(wasm.u8.buffer, p + 8 * count, vectors.length).set(vectors);
      wasm.check(wasm.m._swe_index_add(this.#handle(), p, p + 8 * count, count), 'addVectors');
    });
  }

  /**
   * The k best entries for `query` (a text, or a Float32Array of dims floats), best first:
   * [{id, score}], score the cosine similarity. Equal scores are ordered by ascending id.
   */
  search(query, k = 10) {
    if (!Number.isInteger(k) || k < 0) throw new TypeError('search: k must be a non-negative integer');
    const wasm = this.#wasm;
    const handle = this.#handle();
    const dims = this.dims;
    k = Math.min(k, this.size);
    if (k === 0) return [];
    let text = null;
    if (typeof query === 'string') {
      text = query;
    } else if (!(query instanceof Float32Array) || query.length !== dims) {
      throw new TypeError(`search: query must be a string or a Float32Array of ${dims} floats`);
    }
    const idsAt = 16;
    const scoresAt = idsAt + 8 * k;
    const queryAt = scoresAt + align8(4 * k);
    const textAt = queryAt + align8(4 * dims);
    return wasm.withScratch(textAt + (text === null ? 0 : text.length * 3), (p) => {
      if (text === null) {
        new Float32Array(wasm.u8.buffer, p + queryAt, dims).set(query);
      } else {
        const size = wasm.writeText(text, p + textAt);
        new Uint32Array(wasm.u8.buffer, p, 1)[0] = dims;
        wasm.check(wasm.m._swe_model_encode_text(this.#model.handle(), p + textAt, size, p, p + queryAt, dims, 0),
                   'search');
      }
      wasm.check(wasm.m._swe_index_search(handle, p + queryAt, dims, k, p + idsAt, p + scoresAt, p + 8), 'search');
      const n = new Uint32Array(wasm.u8.buffer, p + 8, 1)[0];
      const ids = new BigUint64Array(wasm.u8.buffer, p + idsAt, n);
      const scores = new Float32Array(wasm.u8.buffer, p + scoresAt, n);
      const hits = [];
      for (let i = 0; i < n; ++i) hits.push({ id: this.#fromU64(ids[i]), score: scores[i] });
      return hits;
    });
  }

  /** Removes the entry `id`; false when it was not there. */
  remove(id) {
    const status = this.#wasm.m._swe_index_remove(this.#handle(), toU64(id, 'remove: id'));
    if (status === this.#wasm.statusCodes['not found']) return false;
    this.#wasm.check(status, 'remove');
    return true;
  }

  /** True when `id` is in the index. */
  has(id) { return this.#wasm.m._swe_index_contains(this.#handle(), toU64(id, 'has: id')) === 1; }

  /** The index as bytes of a .swi file (model.loadIndex() reads them back). */
  save() {
    const wasm = this.#wasm;
    const [ptr, size] = wasm.withScratch(8, (p) => {
      wasm.check(wasm.m._swe_index_save_to_bytes(this.#handle(), p, p + 4), 'save');
      const out = new Uint32Array(wasm.u8.buffer, p, 2);
      return [out[0], out[1]];
    });
    try {
      return wasm.u8.slice(ptr, ptr + size);
    } finally {
      wasm.m._swe_free_bytes(ptr);
    }
  }

  /** Frees the index's memory in the wasm heap. Further use throws; calling it again does nothing. */
  dispose() {
    if (this.#ptr === 0) return;
    registry.unregister(this);
    this.#wasm.m._swe_index_free(this.#ptr);
    this.#ptr = 0;
  }

  #handle() {
    if (this.#ptr === 0) throw new Error('swe: the index was disposed');
    return this.#ptr;
  }

  #checkIds(ids, count) {
    if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) {
      throw new TypeError(`expected ids as an array, got ${describe(ids)}`);
    }
    if (ids.length !== count) throw new RangeError(`${ids.length} ids for ${count} entries`);
    const out = new Array(count);
    for (let i = 0; i < count; ++i) out[i] = toU64(ids[i], `ids[${i}]`);
    return out;
  }

  #fromU64(id) {
    if (this.#bigint) return id;
    if (id > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new RangeError(`id ${id} is larger than Number.MAX_SAFE_INTEGER: use createIndex({ ids: "bigint" })`);
    }
    return Number(id);
  }
}

function toU64(id, what) {
  if (typeof id === 'number') {
    if (Number.isSafeInteger(id) && id >= 0) return BigInt(id);
  } else if (typeof id === 'bigint') {
    if (id >= 0n && id <= kMaxU64) return id;
  }
  throw new TypeError(`${what} must be a non-negative integer (a number up to 2^53-1 or a bigint below 2^64), ` +
                      `got ${typeof id === 'number' || typeof id === 'bigint' ? String(id) : describe(id)}`);
}

