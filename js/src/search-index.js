// Index: a flat, exact cosine index of (uint64 id, vector) entries in the wasm heap (C API handle),
// tied to the model that encodes its texts.
import { SweError, align8, checkTexts, describe, toBytes, utf8Bound } from './wasm.js';

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
   * Adds documents [{ id, text, metadata? }]: a string id (non-empty, unique), the text to encode (stored
   * with it) and optional metadata (a JSON value, stored as JSON; null or undefined: none). A document
   * whose id is in the index is replaced. All documents are checked before any is added.
   */
  addDocs(docs) {
    if (!Array.isArray(docs)) throw new TypeError(`addDocs: expected an array of documents, got ${describe(docs)}`);
    const parts = checkDocs(docs);
    const texts = docs.map((doc) => doc.text);
    const wasm = this.#wasm;
    const handle = this.#handle();
    this.#model.encodeChunks(texts, this.dims, 0, (start, count, vectors) => {
      const chunk = parts.slice(3 * start, 3 * (start + count));
      const bytes = chunk.reduce((sum, text) => sum + utf8Bound(text), 0);
      const records = wasm.malloc(8 * chunk.length + bytes);  // swe_doc = 3 swe_text records
      try {
        wasm.writeTexts(chunk, records, records + 8 * chunk.length);
        wasm.check(wasm.m._swe_index_add_docs(handle, records, vectors, count), 'addDocs');
      } finally {
        wasm.free(records);
      }
    });
  }

  /** The document `id` (a string): { id, text, metadata? }; a SweError (code "not found") when absent. */
  get(id) {
    const entry = this.#findDoc(id, 'get');
    if (entry === null) {
      const status = this.#wasm.statusCodes['not found'];
      throw new SweError(`get: no document with id ${JSON.stringify(id)}`, 'not found', status);
    }
    return this.#doc(entry);
  }

  /** Number of entries that hold a document. */
  get docCount() { return this.#wasm.m._swe_index_get_doc_count(this.#handle()); }

  /** The ids of all entries in storage order: a document's string id, else the entry's integer id. */
  ids() {
    const wasm = this.#wasm;
    const size = this.size;
    const entries = wasm.withScratch(8 + 8 * size, (p) => {
      wasm.check(wasm.m._swe_index_get_ids(this.#handle(), p + 8, size, p), 'ids');
      return Array.from(new BigUint64Array(wasm.u8.buffer, p + 8, size));
    });
    return entries.map((entry) => this.#hit(entry).id);
  }

  /**
   * The k best entries for `query` (a text, or a Float32Array of dims floats), best first:
   * [{id, score}], score the cosine similarity, and a document's text and metadata when it has one.
   * Equal scores are ordered by ascending entry id. A query with no known word (a zero vector) has no
   * hits; options.minScore drops hits scoring below it. The second argument may also be { k, minScore }.
   * options.candidates = N (at least k) searches approximately, much faster on large indexes but it may
   * miss hits: every entry is ranked by a 1-bit code per dimension and the N best are rescored exactly
   * (the C API's swe_search_params; the first such search builds the codes, dims / 8 bytes per entry).
   */
  search(query, k = 10, options = {}) {
    let minScore, candidates;
    [k, minScore, candidates] = searchArgs(k, options, 'search');
    const wasm = this.#wasm;
    const handle = this.#handle();
    const dims = this.dims;
    let vector = query;
    if (typeof query === 'string') {
      vector = new Float32Array(dims);
      if (this.#model.encodeOne(query, dims, vector) === 0) return [];
    } else if (!(query instanceof Float32Array) || query.length !== dims) {
      throw new TypeError(`search: query must be a string or a Float32Array of ${dims} floats`);
    } else if (query.every((x) => x === 0)) {
      return [];
    }
    k = Math.min(k, this.size);
    if (k === 0) return [];
    const idsAt = 16;  // p: swe_search_params (one size_t), p + 8: the hit count
    const scoresAt = idsAt + 8 * k;
    const queryAt = scoresAt + align8(4 * k);
    const found = wasm.withScratch(queryAt + 4 * dims, (p) => {
      new Float32Array(wasm.u8.buffer, p + queryAt, dims).set(vector);
      new Uint32Array(wasm.u8.buffer, p, 1)[0] = candidates;
      wasm.check(wasm.m._swe_index_search_with_params(handle, p + queryAt, dims, k, p, p + idsAt, p + scoresAt, p + 8),
                 'search');
      const n = new Uint32Array(wasm.u8.buffer, p + 8, 1)[0];
      return readHits(wasm, p + idsAt, p + scoresAt, n, minScore);
    });
    return found.map(([entry, score]) => this.#hit(entry, score));
  }

  /** search() for each text of `queries` at once: an array of hit arrays, one per query. */
  searchBatch(queries, k = 10, options = {}) {
    const list = checkTexts(queries, 'searchBatch');
    let minScore, candidates;
    [k, minScore, candidates] = searchArgs(k, options, 'searchBatch');
    k = Math.min(k, this.size);
    if (k === 0) return list.map(() => []);
    const wasm = this.#wasm;
    const handle = this.#handle();
    const dims = this.dims;
    const found = [];
    // Room per query (the "extra" of encodeChunks): k ids, k scores and a count (size_t: 4 bytes), and 4
    // bytes more for the chunk's swe_search_params (one size_t).
    this.#model.encodeChunks(list, dims, 12 * k + 8, (start, count, vectors, extra) => {
      const scoresAt = extra + 8 * k * count;
      const countsAt = scoresAt + 4 * k * count;
      const paramsAt = countsAt + 4 * count;
      new Uint32Array(wasm.u8.buffer, paramsAt, 1)[0] = candidates;
      wasm.check(wasm.m._swe_index_search_batch_with_params(handle, vectors, count, dims, k, minScore, paramsAt, extra,
                                                            scoresAt, countsAt), 'searchBatch');
      const counts = new Uint32Array(wasm.u8.buffer, countsAt, count);
      for (let q = 0; q < count; ++q) found.push(readHits(wasm, extra + 8 * k * q, scoresAt + 4 * k * q, counts[q], minScore));
    });
    return found.map((hits) => hits.map(([entry, score]) => this.#hit(entry, score)));
  }

  /** Removes the entry `id` (an integer, or a document's string id); false when it was not there. */
  remove(id) {
    const entry = typeof id === 'string' ? this.#findDoc(id, 'remove') : toU64(id, 'remove: id');
    if (entry === null) return false;
    const status = this.#wasm.m._swe_index_remove(this.#handle(), entry);
    if (status === this.#wasm.statusCodes['not found']) return false;
    this.#wasm.check(status, 'remove');
    return true;
  }

  /** True when `id` (an integer, or a document's string id) is in the index. */
  has(id) {
    if (typeof id === 'string') return this.#findDoc(id, 'has') !== null;
    return this.#wasm.m._swe_index_contains(this.#handle(), toU64(id, 'has: id')) === 1;
  }

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

  // The entry id of the document `id`, or null when none has it.
  #findDoc(id, what) {
    if (typeof id !== 'string') throw new TypeError(`${what}: a document id is a string, got ${describe(id)}`);
    const wasm = this.#wasm;
    return wasm.withScratch(8 + utf8Bound(id), (p) => {
      const size = wasm.writeText(id, p + 8);
      const status = wasm.m._swe_index_find_doc(this.#handle(), p + 8, size, p);
      if (status === wasm.statusCodes['not found']) return null;
      wasm.check(status, what);
      return new BigUint64Array(wasm.u8.buffer, p, 1)[0];
    });
  }

  // The document of `entry` ({ id, text, metadata? }), or null when it has none.
  #doc(entry) {
    const wasm = this.#wasm;
    return wasm.withScratch(24, (p) => {
      const status = wasm.m._swe_index_get_doc(this.#handle(), entry, p);
      if (status === wasm.statusCodes['not found']) return null;
      wasm.check(status, 'get');
      const [id, text, metadata] = wasm.readTexts(p, 3);
      return metadata === '' ? { id, text } : { id, text, metadata: JSON.parse(metadata) };
    });
  }

  // What search() and ids() show for an entry: its document when it has one, else its integer id.
  #hit(entry, score) {
    const doc = this.docCount > 0 ? this.#doc(entry) : null;
    const id = doc === null ? this.#fromU64(entry) : doc.id;
    const hit = score === undefined ? { id } : { id, score };
    if (doc === null) return hit;
    hit.text = doc.text;
    if ('metadata' in doc) hit.metadata = doc.metadata;
    return hit;
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

// The parts of `docs` as [id, text, metadata JSON ("" for none), ...]; TypeError naming a bad one.
function checkDocs(docs) {
  const parts = [];
  const seen = new Set();
  docs.forEach((doc, i) => {
    const what = `addDocs: docs[${i}]`;
    if (doc === null || typeof doc !== 'object') throw new TypeError(`${what} must be an object { id, text, metadata? }, got ${describe(doc)}`);
    const { id, text, metadata } = doc;
    if (typeof id !== 'string' || id === '') throw new TypeError(`${what}.id must be a non-empty string, got ${describe(id)}`);
    if (seen.has(id)) throw new RangeError(`${what}: duplicate document id ${JSON.stringify(id)}`);
    seen.add(id);
    if (typeof text !== 'string') throw new TypeError(`${what}.text must be a string, got ${describe(text)}`);
    let json = '';
    if (metadata !== undefined && metadata !== null) {  // null: none, as in `swe index` .jsonl input
      try {
        json = JSON.stringify(metadata);
      } catch (error) {
        throw new TypeError(`${what}.metadata cannot be written as JSON: ${error.message}`);
      }
      if (json === undefined) throw new TypeError(`${what}.metadata cannot be written as JSON (${describe(metadata)})`);
    }
    parts.push(id, text, json);
  });
  return parts;
}

// [k, minScore, candidates] from search()'s arguments (k may be an object { k, minScore, candidates }).
// candidates: 0 for exact search, else at least k (capped at 2^32 - 1: wasm's size_t; no index is larger).
function searchArgs(k, options, what) {
  if (k !== null && typeof k === 'object') [k, options] = [k.k ?? 10, k];
  if (!Number.isInteger(k) || k < 0) throw new TypeError(`${what}: k must be a non-negative integer`);
  const minScore = options.minScore ?? -Infinity;
  if (typeof minScore !== 'number' || Number.isNaN(minScore)) throw new TypeError(`${what}: options.minScore must be a number`);
  const candidates = options.candidates ?? 0;
  if (!Number.isSafeInteger(candidates) || candidates < 0 || (candidates > 0 && candidates < k)) {
    throw new TypeError(`${what}: options.candidates must be 0 (exact search) or an integer of at least k (${k}), ` +
                        `got ${String(candidates)}`);
  }
  return [k, minScore, Math.min(candidates, 0xffffffff)];
}

// [[entry id, score], ...] of n hits at idsPtr / scoresPtr, those scoring at least minScore.
function readHits(wasm, idsPtr, scoresPtr, n, minScore) {
  const ids = new BigUint64Array(wasm.u8.buffer, idsPtr, n);
  const scores = new Float32Array(wasm.u8.buffer, scoresPtr, n);
  const hits = [];
  for (let i = 0; i < n && scores[i] >= minScore; ++i) hits.push([ids[i], scores[i]]);
  return hits;
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

