// The search engine of the demo, in a module Web Worker so that the page never waits for it: loads a
// model with swe-embeddings when the page asks, indexes the collection in chunks (posting progress
// between them), then answers searches. Messages in: { type: 'load', gen, file } (a model file of the
// site; a later load replaces an earlier one, even mid-way), { type: 'search', seq, query, k }.
// Messages out: 'download', 'model', 'corpus', 'progress', 'ready' (each with the gen of its load),
// 'results', 'error' (see post() calls below). Models are fetched with the package's own progress and
// kept in the Cache API (cache: true), so a second visit (or an offline one) reads them from there.
import { loadModel } from './vendor/swe-embeddings/src/index.js';

const CORPUS_URL = new URL('./corpus.json.gz', import.meta.url);
const CHUNK = 1000;  // passages encoded per step; progress is posted after each

let active = null;     // { gen, model, index, abort }: the load in progress or done; index null until loaded
let corpus = null;     // fetched once, shared by every model
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

/** Drops the active model and its index (aborting its download), so that only one is ever in memory. */
function release() {
  if (!active) return;
  active.abort.abort();
  active.index?.dispose();
  active.model?.dispose();
  active = null;
}

async function load({ gen, file }) {
  release();
  const t0 = performance.now();
  const mine = { gen, model: null, index: null, abort: new AbortController() };
  active = mine;
  const current = () => active === mine;
  let shown = -1;
  const model = await loadModel(new URL(`./${file}`, import.meta.url), {
    cache: true,
    signal: mine.abort.signal,
    onProgress: ({ loaded, total }) => {
      // One message per percent (per MB when the size is unknown), and the last.
      const step = total ? Math.floor((100 * loaded) / total) : Math.floor(loaded / 1e6);
      if (step !== shown || loaded === total) post({ type: 'download', gen, loaded, total });
      shown = step;
    },
  });
  if (!current()) {
    model.dispose();
    return;
  }
  mine.model = model;
  const { name, description, placeholder, dtype, file_size: fileSize, vocab_size: vocabSize } = model.info;
  post({ type: 'model', gen, name, description, placeholder, dtype, fileSize, vocabSize, dims: model.dims,
         ms: performance.now() - t0 });

  const t1 = performance.now();
  corpusPromise ??= fetchCorpus(CORPUS_URL).catch((error) => {
    corpusPromise = null;  // the next load tries again
    throw error;
  });
  corpus = await corpusPromise;
  if (!current()) return;
  const total = corpus.passages.length;
  post({ type: 'corpus', gen, title: corpus.title, source: corpus.source, total,
         addresses: corpus.addresses.length, ms: performance.now() - t1 });

  mine.index = model.createIndex();
  for (const query of pending.splice(0)) trySearch(query);
  let encodeMs = 0;
  const t2 = performance.now();
  for (let start = 0; start < total; start += CHUNK) {
    const end = Math.min(total, start + CHUNK);
    const ids = Array.from({ length: end - start }, (_, i) => start + i);
    const t = performance.now();
    mine.index.add(ids, corpus.passages.slice(start, end));
    encodeMs += performance.now() - t;
    post({ type: 'progress', gen, done: end, total });
    await new Promise((resolve) => setTimeout(resolve, 0));  // let searches typed meanwhile through
    if (!current()) return;  // another model was asked for: this one is already released
  }
  post({ type: 'ready', gen, total, indexMs: encodeMs, wallMs: performance.now() - t2, loadMs: performance.now() - t0 });
}

/** The collection (a gzipped JSON file made by scripts/build-corpus.mjs), decompressed as it streams. */
async function fetchCorpus(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching ${url.pathname} failed: HTTP ${response.status}`);
  const stream = response.body.pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
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
  const results = words.some((w) => w.known) ? hits.map(({ id, score }) => {
    const [year, president, party] = corpus.addresses[corpus.address[id]];
    return { id, score, year, president, party, text: corpus.passages[id] };
  }) : [];
  post({ type: 'results', seq, gen: active.gen, query, results, words, encodeMs: t1 - t0, searchMs: t2 - t1,
         indexed: index.size });
}

function post(message) {
  self.postMessage(message);
}
