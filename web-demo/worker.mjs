// The search engine of the demo, in a module Web Worker so that the page never waits for it: loads a
// model with swe-embeddings when the page asks, and its index: the prebuilt one the site ships for it
// (`index` in models.mjs: built by build-site.mjs with `swe index build`, downloaded while the model
// downloads and the WebAssembly compiles), or, for a model without one, the collection embedded here by
// a pool of workers (createWorkerPool, one per CPU), posting progress. Then it answers searches.
// Messages in: { type: 'load', gen, id, file, index } (a model of the site; a later load replaces an
// earlier one, even mid-way), { type: 'search', seq, query, k }. Messages out: 'download', 'model',
// 'corpus', 'progress', 'ready' (each with the gen of its load), 'results', 'error' (see post() calls).
// Models and indexes are kept in the Cache API by the package (cache: true), so a second visit (or an
// offline one) reads them from there.
import { createWorkerPool, initialize, loadIndex, loadModel } from './vendor/swe-embeddings/src/index.js';

const CORPUS_URL = new URL('./corpus.json.gz', import.meta.url);
const EMBED_SLICE = 4000;  // passages per pool.encode call when embedding here; progress is posted after each

const clock = () => performance.timeOrigin + performance.now();  // the page converts to its own clock
// The backend starts at once, the WebAssembly compiling while the first model downloads.
const started = clock();
const wasmReady = initialize().then(() => clock());

let active = null;     // { gen, model, index, abort }: the load in progress or done; index null until loaded
let corpusPromise = null;
const pending = [];    // searches that arrived before the active model's index existed

self.onmessage = (event) => {
  const message = event.data;
  if (message?.type === 'load') {
    load(message).catch((error) => {
      if (active?.gen === message.gen) post({ type: 'error', gen: message.gen, message: error.message });
    });
  } else if (message?.type === 'search') {
    if (!active?.index) pending.push(message);
    else trySearch(message);
  }
};

function trySearch(query) {
  try {
    search(query);
  } catch (error) {
    post({ type: 'error', seq: query.seq, message: error.message });
  }
}

/** Drops the active model and its index (aborting its downloads), so that only one is ever in memory. */
function release() {
  if (!active) return;
  active.abort.abort();
  active.index?.dispose();
  active.model?.dispose();
  active = null;
}

async function load({ gen, file, index: indexFile }) {
  release();
  const mine = { gen, model: null, index: null, abort: new AbortController() };
  active = mine;
  const current = () => active === mine;
  // When each step started and ended (clock()): the page shows them as the load's breakdown.
  const times = { start: started, requested: clock() };
  const downloads = {};  // per file: its last { loaded, total }
  const onProgress = (kind) => {
    let shown = -1;
    return ({ loaded, total }) => {
      times[`${kind}FetchStart`] ??= clock();
      if (total !== null && loaded === total) times[`${kind}Fetched`] = clock();
      downloads[kind] = { loaded, total };
      // One message per percent of all downloads (per MB when a size is unknown), and the last.
      const all = Object.values(downloads);
      const sum = (key) => all.reduce((n, d) => n + (d[key] ?? 0), 0);
      const known = all.every((d) => d.total !== null);
      const step = known ? Math.floor((100 * sum('loaded')) / sum('total')) : Math.floor(sum('loaded') / 1e6);
      if (step !== shown || loaded === total) {
        post({ type: 'download', gen, loaded: sum('loaded'), total: known ? sum('total') : null, files: all.length });
      }
      shown = step;
    };
  };
  const options = (kind) => ({ cache: true, signal: mine.abort.signal, onProgress: onProgress(kind) });
  const modelPromise = loadModel(new URL(`./${file}`, import.meta.url), options('model')).then((model) => {
    times.modelLoaded = clock();
    if (current()) mine.model = model;
    else model.dispose();
    return model;
  });
  // The prebuilt index downloads while the model does; it is read once the model is there.
  const indexPromise = indexFile ? loadIndex(modelPromise, new URL(`./${indexFile}`, import.meta.url), options('index'))
    : null;
  indexPromise?.catch(() => {});  // handled below; a load abandoned before that must not report it
  const model = await modelPromise;
  times.wasmReady = await wasmReady;
  if (!current()) {
    (await indexPromise?.catch(() => null))?.dispose();
    return;
  }
  const { name, description, placeholder, dtype, file_size: fileSize, vocab_size: vocabSize } = model.info;
  post({ type: 'model', gen, name, description, placeholder, dtype, fileSize, vocabSize, dims: model.dims });

  let index;
  let embedded = null;  // { workers, ms } when the collection was embedded here
  if (indexPromise) {
    index = await indexPromise;
    times.indexLoaded = clock();
    if (!current()) {
      index.dispose();
      return;
    }
  } else {
    const corpus = await fetchCorpus();
    if (!current()) return;
    post({ type: 'corpus', gen, total: corpus.passages.length });
    index = model.createIndex();
    mine.index = index;
    embedded = await embed(corpus, index, file, (done) => {
      if (current()) post({ type: 'progress', gen, done, total: corpus.passages.length });
    }, current);
    if (embedded === null) return;  // another model was asked for meanwhile
    times.indexLoaded = clock();
  }
  mine.index = index;
  for (const query of pending.splice(0)) trySearch(query);
  post({ type: 'ready', gen, total: index.size, prebuilt: indexPromise !== null, embedded, times });
}

/**
 * Embeds the collection with a pool of workers (the model's file again, from the package's cache) and
 * adds it to `index` as documents, in slices with progress between them. Returns { workers, ms }, or
 * null when `current()` turned false (the pool is closed either way).
 */
async function embed(corpus, index, file, progress, current) {
  const t0 = performance.now();
  const pool = await createWorkerPool(new URL(`./${file}`, import.meta.url), { cache: true });
  try {
    for (let start = 0; start < corpus.passages.length; start += EMBED_SLICE) {
      const texts = corpus.passages.slice(start, start + EMBED_SLICE);
      const vectors = await pool.encode(texts);
      if (!current()) return null;
      index.addDocs(texts.map((text, i) => ({ id: String(start + i), text, metadata: passageMetadata(corpus, start + i) })),
                    { vectors });
      progress(start + texts.length);
    }
    return { workers: pool.size, ms: performance.now() - t0 };
  } finally {
    await pool.close();
  }
}

/** What a hit shows besides its text: the address it comes from (as build-site.mjs stores it). */
function passageMetadata(corpus, i) {
  const [year, president, party] = corpus.addresses[corpus.address[i]];
  return { year, president, party };
}

/** The collection (a gzipped JSON file made by scripts/build-corpus.mjs), fetched once, decompressed as it streams. */
function fetchCorpus() {
  corpusPromise ??= (async () => {
    const response = await fetch(CORPUS_URL);
    if (!response.ok) throw new Error(`fetching ${CORPUS_URL.pathname} failed: HTTP ${response.status}`);
    const stream = response.body.pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  })().catch((error) => {
    corpusPromise = null;  // the next load tries again
    throw error;
  });
  return corpusPromise;
}

/** Encodes the query, searches the active index and posts the hits with their passages and the timings. */
function search({ seq, query, k = 10 }) {
  const { model, index } = active;
  const t0 = performance.now();
  const vector = model.encode(query);
  const t1 = performance.now();
  const hits = index.size > 0 ? index.search(vector, k) : [];
  const t2 = performance.now();
  const words = model.tokenize(query).map(({ word, match }) => ({ word, known: match !== 'unknown', match }));
  const results = words.some((w) => w.known) ? hits.map(({ id, score, text, metadata }) => ({ id, score, text, ...metadata }))
    : [];
  post({ type: 'results', seq, gen: active.gen, query, results, words, encodeMs: t1 - t0, searchMs: t2 - t1,
         indexed: index.size });
}

function post(message) {
  self.postMessage(message);
}
