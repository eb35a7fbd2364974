// Types of swe-embeddings (src/index.js).

/** Bytes of a .swe model, a URL to fetch, or (Node) a file path or file: URL. */
export type ModelSource = Uint8Array | ArrayBuffer | ArrayBufferView | URL | string | Blob;

export interface InitializeOptions {
  /** The bytes of swe.wasm, when the default location cannot be read (custom bundling, offline). */
  wasmBinary?: Uint8Array | ArrayBuffer;
  /** Where to fetch swe.wasm (default: next to dist/swe.js in this package). */
  wasmUrl?: string | URL;
}

export interface LoadProgress {
  /** Bytes read so far. */
  loaded: number;
  /** The file's size: Content-Length, or the size in the model's header when the response is compressed or has no length; null until known. */
  total: number | null;
}

export interface LoadOptions extends InitializeOptions {
  /** Called as the bytes arrive (first with loaded 0 for a fetch, last with loaded === total). */
  onProgress?: (progress: LoadProgress) => void;
  /** Aborts the download (or file read); loadModel then rejects with signal.reason (an AbortError). */
  signal?: AbortSignal;
  /**
   * Keep fetched models in the Cache API (true: the cache "swe-embeddings", or a cache name) and read
   * them from there next time (keyed by URL). Only valid models are stored. Ignored where there is no
   * Cache API (Node).
   */
  cache?: boolean | string;
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
    cjk: 'none' | 'characters' | 'subwords' | 'bigrams' | 'longest';
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

export interface SearchOptions {
  /** Drop hits whose score is below this. */
  minScore?: number;
}

export interface RankOptions extends EncodeOptions, SearchOptions {}

export interface IndexSearchOptions extends SearchOptions {
  /**
   * 0 (default): exact search. N (at least k): approximate search, much faster on large indexes but it
   * may miss hits: entries are ranked by 1-bit codes and the N best rescored exactly.
   */
  candidates?: number;
}

export interface RankedText {
  /** Position of the text in the array given. */
  index: number;
  text: string;
  /** Cosine similarity with the query. */
  score: number;
}

export interface KMeansOptions {
  /** Seed of the k-means++ start (default 0): the same seed gives the same clusters. */
  seed?: number;
  /** Most Lloyd iterations (default 100); it stops earlier once no row changes cluster. */
  iterations?: number;
  /** k-means++ starts, 1 to 1000 (default 4): the one of lowest inertia is returned. */
  restarts?: number;
}

export interface KMeansResult {
  /** The cluster (0 .. k-1) of each row / text; -1 for a zero row (a text with no known word). */
  labels: Int32Array;
  /** k × dims centroids, row-major. */
  centroids: Float32Array;
  /** Sum of squared distances of the rows to their centroids. */
  inertia: number;
  iterations: number;
}

/** A document kept in an index: its string id, its text and its metadata (absent when none). */
export interface Doc<Metadata = unknown> {
  id: string;
  text: string;
  metadata?: Metadata;
  /** Instead of metadata, when the stored metadata is not JSON within 128 levels (a file not written by swe). */
  metadataError?: string;
}

/** A hit: an entry's integer id, or for a document its string id, text and metadata. */
export interface SearchHit<Id extends number | bigint = number> {
  id: Id | string;
  /** Cosine similarity of the query and the entry. */
  score: number;
  text?: string;
  metadata?: unknown;
  metadataError?: string;
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
  /** encode()'s vectors and how many words of each text were known (0: a zero row, nothing to compare). */
  encodeWithInfo(texts: string | readonly string[], options?: EncodeOptions): { vectors: Float32Array; knownWords: Uint32Array };
  /**
   * encode()'s vectors, bit for bit, without blocking the event loop for more than a few ms: on libuv's
   * thread pool with the native addon, in slices of about 4 ms between turns of the event loop with WebAssembly.
   */
  encodeAsync(texts: string | readonly string[], options?: EncodeOptions): Promise<Float32Array>;
  /** Cosine similarities of texts a with texts b (default a): a.length × b.length, row-major. */
  similarityMatrix(a: readonly string[], b?: readonly string[], options?: EncodeOptions): Float32Array;
  /**
   * The texts by similarity to the query, best first (ties by index), scored as `swe search` scores
   * them; [] when the query has no known word.
   */
  rank(query: string, texts: readonly string[], options?: RankOptions): RankedText[];
  /** rank() cut to the k best (without ranking the rest). */
  topk(query: string, texts: readonly string[], k: number, options?: RankOptions): RankedText[];
  /** The texts with similarity to the query ≥ threshold, in their order. */
  filter(query: string, texts: readonly string[], threshold: number, options?: EncodeOptions): string[];
  /** Near-duplicate groups (indices; each member within `threshold`, default 0.9, of the group's first) and the first text of each. */
  dedupe(texts: readonly string[], threshold?: number, options?: EncodeOptions): { texts: string[]; groups: number[][] };
  /**
   * k-means of the texts' vectors, the best of several k-means++ starts from a seed (deterministic, and
   * `swe cluster`'s); a text with no known word is in no cluster (label -1).
   */
  cluster(texts: readonly string[], k: number, options?: KMeansOptions & EncodeOptions): KMeansResult;
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
  /** Frees the model's memory (once an encodeAsync in flight is done); later calls throw. Safe to call twice. */
  dispose(): void;
}

export type Id = number | bigint;

/**
 * A flat, exact cosine index of (id, vector) entries; ids are non-negative integers below 2^64, or for
 * documents (addDocs) strings.
 */
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
  /**
   * Encodes and adds documents (ids non-empty and unique; metadata any JSON value, null: none), text
   * and metadata kept and saved; a document whose id is present is replaced. All are checked first.
   */
  addDocs(docs: readonly Doc[], options?: { vectors?: Float32Array }): void;
  /** The document with this id; throws SweError (code "not found") when there is none. */
  get(id: string): Doc;
  /** Every entry's id in storage order: a document's string id, else its integer id. */
  ids(): (ResultId | string)[];
  /** Number of entries that hold a document. */
  readonly docCount: number;
  /**
   * The k (default 10) best entries for a text or a vector, best first; ties by ascending id. No hits
   * for a query without a known word (a zero vector).
   */
  search(query: string | Float32Array, k?: number, options?: IndexSearchOptions): SearchHit<ResultId>[];
  search(query: string | Float32Array, options: IndexSearchOptions & { k?: number }): SearchHit<ResultId>[];
  /** search() for each query at once: one hit array per query. */
  searchBatch(queries: readonly string[], k?: number, options?: IndexSearchOptions): SearchHit<ResultId>[][];
  searchBatch(queries: readonly string[], options: IndexSearchOptions & { k?: number }): SearchHit<ResultId>[][];
  /** Removes an entry (an integer id, or a document's string id); false when it was not there. */
  remove(id: Id | string): boolean;
  has(id: Id | string): boolean;
  /** The index as bytes (a .swi file); model.loadIndex() reads them back. */
  save(): Uint8Array;
  /**
   * The changes since the index was loaded (or last saveChanges()), as the bytes that bring that file
   * up to date: write `bytes` at byte `offset` and end the file there. Usually one change record at the
   * file's end; offset 0 and the whole index when it was created rather than loaded, or its records
   * would pass half the file.
   */
  saveChanges(): { offset: number; bytes: Uint8Array };
  /** Frees the index's memory; later calls throw. Safe to call twice. */
  dispose(): void;
}

/**
 * Loads a .swe model (bytes, URL, or in Node a file path; none: the default model of the package
 * swe-embeddings-model-en); rejects with SweError if it is invalid or cannot be read.
 */
export function loadModel(source?: ModelSource, options?: LoadOptions): Promise<Model>;
export function loadModel(options: LoadOptions): Promise<Model>;

export interface LoadIndexOptions {
  onProgress?: (progress: LoadProgress) => void;
  signal?: AbortSignal;
  /** As for loadModel: keep fetched indexes in the Cache API (only those that loaded). */
  cache?: boolean | string;
  ids?: 'number' | 'bigint';
}

/**
 * Loads an index saved with index.save() or written by `swe index build` (a .swi file: bytes, a URL
 * fetched as a stream, or in Node a file path) for `model`, a Model or a promise of one (the index
 * then downloads while the model loads). Rejects with SweError when it is invalid or was built with
 * another model.
 */
export function loadIndex(model: Model | Promise<Model>, source: ModelSource, options?: LoadIndexOptions & { ids?: 'number' }): Promise<Index<number>>;
export function loadIndex(model: Model | Promise<Model>, source: ModelSource, options: LoadIndexOptions & { ids: 'bigint' }): Promise<Index<bigint>>;

export interface WorkerPoolOptions extends Omit<LoadOptions, 'wasmBinary'> {
  /** Workers (default: the number of CPUs, at most 8). */
  workers?: number;
}

/**
 * A model in each of several workers (Web Workers, or Node's worker threads) encoding a batch
 * together: the vectors of model.encode(), bit for bit, in order. For the WebAssembly backend's one
 * thread; Node's native addon has model.encodeAsync.
 */
export class WorkerPool {
  private constructor();
  /** Number of workers. */
  readonly size: number;
  /** The model's dimensions. */
  readonly dims: number;
  /** texts.length × dims floats (options.dims as for encode). */
  encode(texts: string | readonly string[], options?: EncodeOptions): Promise<Float32Array>;
  /** Ends the workers; pending and later calls reject. */
  close(): Promise<void>;
}

/** A pool of workers, each with the model of `source` (read once, copied to each); resolves once all loaded it. */
export function createWorkerPool(source: ModelSource, options?: WorkerPoolOptions): Promise<WorkerPool>;

/** Cosine similarity of two vectors (0 when either is zero). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number;
/** Cosine similarities of the rows of a with the rows of b (default a), each of dims floats. */
export function similarityMatrix(a: Float32Array | Float64Array | number[], b: Float32Array | Float64Array | number[], dims: number): Float32Array;
export function similarityMatrix(a: Float32Array | Float64Array | number[], dims: number): Float32Array;
/**
 * Near-duplicate groups of rows (see Model.dedupe), computed as float32 by the library: call after
 * initialize() or loadModel() has resolved.
 */
export function nearDuplicateGroups(vectors: Float32Array | Float64Array | number[], dims: number, threshold: number): number[][];
/**
 * k-means of rows of dims floats (see Model.cluster), computed as float32 by the library: call after
 * initialize() or loadModel() has resolved.
 */
export function kmeans(vectors: Float32Array | Float64Array | number[], dims: number, k: number, options?: KMeansOptions): KMeansResult;

/** Embeddings with LangChain.js's interface (duck-typed: no dependency on LangChain). */
export class SweEmbeddings {
  /** model: a loaded Model (or a promise of one); else loadModel(source, loadOptions) on first use. */
  constructor(options?: { model?: Model | Promise<Model>; source?: ModelSource; loadOptions?: LoadOptions; dims?: number });
  /** The model in use. */
  model(): Promise<Model>;
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

/**
 * Starts the backend (done by loadModel on first use): in Node the native addon when its platform
 * package is installed, else (and in browsers) the WebAssembly module, to which the options apply
 * (first call only). SWE_BACKEND=native or wasm forces one in Node.
 */
export function initialize(options?: InitializeOptions): Promise<unknown>;

/** The library version, "MAJOR.MINOR.PATCH". */
export function version(): Promise<string>;

/** The backend in use: "native" (the addon swe.node) or "wasm" (the WebAssembly module). */
export function backend(): Promise<'native' | 'wasm'>;
