// Index: a flat, exact cosine index of (uint64 id, vector) entries in the library (its C handle
// through the binding), tied to the model that encodes its texts: it holds the model's handle, beside
// the Model that owns it (model.js), and encodes through the binding as the Model does.
import { checkTexts, describe, toBytes } from './checks.js';

const kMaxU64 = (1n << 64n) - 1n;

export class Index {
  #binding;
  #index;  // Handle
  #model;  // the model's Handle, shared with its Model (it keeps the model alive)
  #bigint;

  /** @internal Use model.createIndex() or model.loadIndex(). */
  constructor(binding, ptr, model, bigintIds) {
    this.#binding = binding;
    this.#index = binding.indexHandle(ptr);
    this.#model = model;
    this.#bigint = bigintIds;
  }

  /** @internal A new index for model.createIndex(): it records the model (saved with it). */
  static create(binding, model, dims, dtypeCode, options) {
    const bigint = idsOption(options, 'createIndex');
    const index = new Index(binding, binding.indexCreate(dims, dtypeCode, 'createIndex'), model, bigint);
    return index.#tie((ptr) => binding.indexSetModel(ptr, model.ptr, 'createIndex'));
  }

  /** @internal An index from its bytes for model.loadIndex(): it must have been built with the model. */
  static load(binding, model, bytes, options) {
    const bigint = idsOption(options, 'loadIndex');
    const data = toBytes(bytes, 'loadIndex');
    const index = new Index(binding, binding.indexLoad(data, 'loadIndex'), model, bigint);
    return index.#tie((ptr) => binding.indexCheckModel(ptr, model.ptr, 'loadIndex'));
  }

  // Runs tie(ptr) (setting or checking the model); on failure the index is freed and the error thrown.
  #tie(tie) {
    try {
      tie(this.#index.ptr);
    } catch (error) {
      this.dispose();
      throw error;
    }
    return this;
  }

  /** Number of entries. */
  get size() { return this.#binding.indexSize(this.#index.ptr); }

  /** Dimensions of the stored vectors. */
  get dims() { return this.#binding.indexDims(this.#index.ptr); }

  /** Storage type: "f32" or "int8". */
  get dtype() { return this.#binding.indexDtype(this.#index.ptr); }

  /** True once dispose() was called. */
  get disposed() { return this.#index.disposed; }

  /**
   * Adds texts under ids (arrays of equal length; ids are non-negative integers, numbers or bigints).
   * An id already present is replaced.
   */
  add(ids, texts) {
    const list = typeof texts === 'string' ? [texts] : checkTexts(texts, 'add');
    const idList = this.#checkIds(typeof ids === 'number' || typeof ids === 'bigint' ? [ids] : ids, list.length);
    this.#binding.indexAddTexts(this.#index.ptr, this.#model.ptr, list, idList);
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
    this.#binding.indexAddVectors(this.#index.ptr, idList, vectors);
  }

  /**
   * Adds documents [{ id, text, metadata? }]: a string id (non-empty, unique), the text to encode (stored
   * with it) and optional metadata (a JSON value, stored as JSON; null or undefined: none). A document
   * whose id is in the index is replaced. All documents are checked before any is added.
   * options.vectors: their vectors (a Float32Array of docs.length × dims, e.g. from a WorkerPool or
   * encodeAsync) instead of encoding the texts here.
   */
  addDocs(docs, options = {}) {
    if (!Array.isArray(docs)) throw new TypeError(`addDocs: expected an array of documents, got ${describe(docs)}`);
    const parts = checkDocs(docs);
    const texts = docs.map((doc) => doc.text);
    const { vectors = null } = options;
    if (vectors !== null && !(vectors instanceof Float32Array && vectors.length === docs.length * this.dims)) {
      throw new TypeError(`addDocs: options.vectors must be a Float32Array of ${docs.length} × ${this.dims} floats`);
    }
    this.#binding.indexAddDocs(this.#index.ptr, this.#model.ptr, texts, parts, vectors);
  }

  /** The document `id` (a string): { id, text, metadata? }; a SweError (code "not found") when absent. */
  get(id) {
    const entry = this.#findDoc(id, 'get');
    if (entry === null) throw this.#binding.error(`get: no document with id ${JSON.stringify(id)}`, 'not found');
    return this.#doc(entry);
  }

  /** Number of entries that hold a document. */
  get docCount() { return this.#binding.indexDocCount(this.#index.ptr); }

  /** The ids of all entries in storage order: a document's string id, else the entry's integer id. */
  ids() {
    const entries = this.#binding.indexIds(this.#index.ptr);
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
    const binding = this.#binding;
    const index = this.#index.ptr;
    const dims = this.dims;
    let vector = query;
    if (typeof query === 'string') {
      vector = new Float32Array(dims);
      if (binding.encodeOne(this.#model.ptr, query, dims, vector) === 0) return [];
    } else if (!(query instanceof Float32Array) || query.length !== dims) {
      throw new TypeError(`search: query must be a string or a Float32Array of ${dims} floats`);
    } else if (query.every((x) => x === 0)) {
      return [];
    }
    k = Math.min(k, this.size);
    if (k === 0) return [];
    return binding.indexSearch(index, vector, k, minScore, candidates).map(([entry, score]) => this.#hit(entry, score));
  }

  /** search() for each text of `queries` at once: an array of hit arrays, one per query. */
  searchBatch(queries, k = 10, options = {}) {
    const list = checkTexts(queries, 'searchBatch');
    let minScore, candidates;
    [k, minScore, candidates] = searchArgs(k, options, 'searchBatch');
    k = Math.min(k, this.size);
    if (k === 0) return list.map(() => []);
    const found = this.#binding.indexSearchTexts(this.#index.ptr, this.#model.ptr, list, k, minScore, candidates);
    return found.map((hits) => hits.map(([entry, score]) => this.#hit(entry, score)));
  }

  /** Removes the entry `id` (an integer, or a document's string id); false when it was not there. */
  remove(id) {
    const entry = typeof id === 'string' ? this.#findDoc(id, 'remove') : toU64(id, 'remove: id');
    if (entry === null) return false;
    return this.#binding.indexRemove(this.#index.ptr, entry);
  }

  /** True when `id` (an integer, or a document's string id) is in the index. */
  has(id) {
    if (typeof id === 'string') return this.#findDoc(id, 'has') !== null;
    return this.#binding.indexContains(this.#index.ptr, toU64(id, 'has: id'));
  }

  /** The index as bytes of a .swi file (model.loadIndex() reads them back). */
  save() { return this.#binding.indexSave(this.#index.ptr); }

  /**
   * The changes since this index was loaded from bytes (or last saveChanges()), as { offset, bytes }:
   * write `bytes` at byte `offset` of that file and end the file there. Usually one change record after
   * its last (the cost of the changes, not of the index: docs/FORMAT.md, "Index change log"); offset 0
   * and the whole index when the index was created rather than loaded, or its records would pass half
   * the file. A record belongs to its file: written after another, readers ignore it.
   */
  saveChanges() { return this.#binding.indexSaveChanges(this.#index.ptr); }

  /** Frees the index's memory. Further use throws; calling it again does nothing. */
  dispose() { this.#index.dispose(); }

  // The entry id of the document `id`, or null when none has it.
  #findDoc(id, what) {
    if (typeof id !== 'string') throw new TypeError(`${what}: a document id is a string, got ${describe(id)}`);
    return this.#binding.indexFindDoc(this.#index.ptr, id, what);
  }

  // The document of `entry` ({ id, text, metadata? }), or null when it has none.
  #doc(entry) {
    const parts = this.#binding.indexGetDoc(this.#index.ptr, entry);
    if (parts === null) return null;
    const [id, text, metadata] = parts;
    return metadata === '' ? { id, text } : { id, text, ...storedMetadata(metadata) };
  }

  // What search() and ids() show for an entry: its document when it has one, else its integer id.
  #hit(entry, score) {
    const doc = this.docCount > 0 ? this.#doc(entry) : null;
    const id = doc === null ? this.#fromU64(entry) : doc.id;
    const hit = score === undefined ? { id } : { id, score };
    if (doc === null) return hit;
    hit.text = doc.text;
    if ('metadata' in doc) hit.metadata = doc.metadata;
    if ('metadataError' in doc) hit.metadataError = doc.metadataError;
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

// { metadata } from a document's stored JSON, or { metadataError } when it is not JSON within 128 levels
// (which no writer stores: a file made some other way), as the CLI, swe serve and Python show it.
function storedMetadata(text) {
  let problem = 'JSON nested deeper than 128 levels';
  if (jsonDepthWithin(text, 128)) {
    try {
      return { metadata: JSON.parse(text) };
    } catch {
      problem = 'not JSON';
    }
  }
  return { metadataError: `the stored metadata cannot be shown: ${problem}` };
}

// Whether `text` opens at most `limit` arrays or objects inside one another (brackets in strings aside).
function jsonDepthWithin(text, limit) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (inString) {
      if (c === '\\') ++i;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '[' || c === '{') {
      if (++depth > limit) return false;
    } else if (c === ']' || c === '}') {
      --depth;
    }
  }
  return true;
}

// options.ids: true for "bigint", false for "number" (the default).
function idsOption(options, what) {
  const idType = options.ids ?? 'number';
  if (idType !== 'number' && idType !== 'bigint') {
    throw new TypeError(`${what}: options.ids must be "number" or "bigint", not ${JSON.stringify(idType)}`);
  }
  return idType === 'bigint';
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

function toU64(id, what) {
  if (typeof id === 'number') {
    if (Number.isSafeInteger(id) && id >= 0) return BigInt(id);
  } else if (typeof id === 'bigint') {
    if (id >= 0n && id <= kMaxU64) return id;
  }
  throw new TypeError(`${what} must be a non-negative integer (a number up to 2^53-1 or a bigint below 2^64), ` +
                      `got ${typeof id === 'number' || typeof id === 'bigint' ? String(id) : describe(id)}`);
}

