// Types of swe-embeddings (src/index.js).

/** Bytes of a .swe model, a URL to fetch, or (Node) a file path or file: URL. */
export type ModelSource = Uint8Array | ArrayBuffer | ArrayBufferView | URL | string | Blob;

export interface InitializeOptions {
  /** The bytes of swe.wasm, when the default location cannot be read (custom bundling, offline). */
  wasmBinary?: Uint8Array | ArrayBuffer;
  /** Where to fetch swe.wasm (default: next to dist/swe.js in this package). */
  wasmUrl?: string | URL;
}

export interface EncodeOptions {
  /** Keep only the first `dims` dimensions, renormalised (0 or absent: all). */
  dims?: number;
}

export interface EncodeIntoOptions extends EncodeOptions {
  /** Receives the vectors (at least texts.length × dims floats) and is returned, instead of a new array. */
  out?: Float32Array;
}

export interface IndexOptions<Ids extends 'number' | 'bigint' = 'number' | 'bigint'> extends EncodeOptions {
  /** Storage of the vectors: "f32" (default) or "int8" (4× smaller, slightly approximate scores). */
  dtype?: 'f32' | 'int8';
  /** The JS type of ids in search results: "number" (default, ids up to 2^53-1) or "bigint". */
  ids?: Ids;
}

export interface ModelInfo {
  name: string;
  description: string;
  /** True for vectors that were not distilled (e.g. converted GloVe). */
  placeholder: boolean;
  dims: number;
  vocab_size: number;
  dtype: 'f32' | 'f16' | 'int8';
  file_size: number;
  normalize: boolean;
  weighted: boolean;
  /** The .swe header checksum, 8 hex digits. */
  checksum: string;
  teacher: string;
  corpus: string;
  corpus_hash: string;
  recipe: string;
  created_by: string;
  scores: ReadonlyArray<{ task: string; metric: string; value: number }>;
  extra: Readonly<Record<string, string>>;
  tokenizer: {
    fold_case: boolean;
    strip_accents: boolean;
    cjk: 'none' | 'characters' | 'subwords';
    max_tokens: number;
    subword: 'none' | 'wordpiece' | 'unigram';
    subword_pieces: number;
  };
}

export interface Token {
  /** The word as written in the text (text.slice(start, end)). */
  word: string;
  start: number;
  end: number;
  /** Vocabulary row, -1 when the word is unknown. */
  row: number;
  match: 'exact' | 'folded' | 'stripped' | 'prefix' | 'unknown';
}

export interface SearchHit<Id extends number | bigint = number> {
  id: Id;
  /** Cosine similarity of the query and the entry. */
  score: number;
}

/** A failure reported by the core (corrupt model, bad argument, ...); the module stays usable. */
export class SweError extends Error {
  name: 'SweError';
  /** The core's status name: "invalid argument", "corrupt", "unsupported", "too large", "io", ... */
  code: string;
  /** The core's status number (SWE_ERR_* in swe.h). */
  status: number;
}

export class Model {
  private constructor();
  /** Dimensions of the model's vectors. */
  readonly dims: number;
  /** Number of vocabulary words. */
  readonly vocabSize: number;
  /** The model's description and provenance (frozen). */
  readonly info: Readonly<ModelInfo>;
  /** True once dispose() was called. */
  readonly disposed: boolean;
  /**
   * Sentence vectors: a new Float32Array of texts.length × dims floats, row-major (one row for a single
   * string). Text without a known word gives a zero row.
   */
  encode(texts: string | readonly string[], options?: EncodeIntoOptions): Float32Array;
  /** Cosine similarity of two texts' vectors, in [-1, 1] (0 when either has no known word). */
  similarity(a: string, b: string, options?: EncodeOptions): number;
  /** The words of a text and how each matched the vocabulary. */
  tokenize(text: string): Token[];
  /** A new empty search index for this model's vectors. */
  createIndex(options?: IndexOptions<'number'>): Index<number>;
  createIndex(options: IndexOptions<'bigint'>): Index<bigint>;
  /** An index saved with Index.save(), checked against this model. */
  loadIndex(bytes: Uint8Array | ArrayBuffer, options?: { ids?: 'number' }): Index<number>;
  loadIndex(bytes: Uint8Array | ArrayBuffer, options: { ids: 'bigint' }): Index<bigint>;
  /** Frees the model's wasm memory; later calls throw. Safe to call twice. */
  dispose(): void;
}

export type Id = number | bigint;

/** A flat, exact cosine index of (id, vector) entries; ids are non-negative integers below 2^64. */
export class Index<ResultId extends number | bigint = number> {
  private constructor();
  readonly size: number;
  readonly dims: number;
  readonly dtype: 'f32' | 'int8';
  readonly disposed: boolean;
  /** Encodes texts with the model and adds them under ids (equal lengths); an existing id is replaced. */
  add(ids: Id | readonly Id[] | ArrayLike<number> | BigUint64Array, texts: string | readonly string[]): void;
  /** Adds vectors (ids.length × dims floats, row-major) under ids. */
  addVectors(ids: readonly Id[] | ArrayLike<number> | BigUint64Array, vectors: Float32Array): void;
  /** The k (default 10) best entries for a text or a vector, best first; ties by ascending id. */
  search(query: string | Float32Array, k?: number): SearchHit<ResultId>[];
  /** Removes an entry; false when it was not there. */
  remove(id: Id): boolean;
  has(id: Id): boolean;
  /** The index as bytes (a .swi file); model.loadIndex() reads them back. */
  save(): Uint8Array;
  /** Frees the index's wasm memory; later calls throw. Safe to call twice. */
  dispose(): void;
}

/** Loads a .swe model (bytes, URL, or in Node a file path); rejects with SweError if it is invalid. */
export function loadModel(source: ModelSource, options?: InitializeOptions): Promise<Model>;

/** Starts the WebAssembly module (done by loadModel on first use); options apply to the first call. */
export function initialize(options?: InitializeOptions): Promise<unknown>;

/** The library version, "MAJOR.MINOR.PATCH". */
export function version(): Promise<string>;
