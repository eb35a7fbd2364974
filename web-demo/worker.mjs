// The search engine of the demo, in a module Web Worker so that the page never waits for it: loads the
// model with swe-embeddings, indexes the collection in chunks (posting progress between them), then
// answers searches. Messages in: { type: 'search', seq, query, k }. Messages out: 'download', 'model',
// 'corpus', 'progress', 'ready', 'results', 'error' (see post() calls below). The model is fetched with
// the package's own progress and kept in the Cache API (cache: true), so a second visit (or an offline
// one) reads it from there.
import { loadModel } from './vendor/swe-embeddings/src/index.js';

const MODEL_URL = new URL('./model.swe', import.meta.url);       // copied there by scripts/build-site.mjs
const CORPUS_URL = new URL('./corpus.json.gz', import.meta.url);
const CHUNK = 1000;  // passages encoded per step; progress is posted after each

let model = null;
let index = null;
let corpus = null;
const pending = [];  // searches that arrived before the model was loaded

self.onmessage = (event) => {
  if (event.data?.type !== 'search') return;
  if (index === null) pending.push(event.data);
  else trySearch(event.data);
};

function trySearch(query) {
  try {
    search(query);
  } catch (error) {
    post({ type: 'error', seq: query.seq, message: error.message });
  }
}

start().catch((error) => post({ type: 'error', message: error.message }));

async function start() {
  const t0 = performance.now();
  let shown = -1;
  model = await loadModel(MODEL_URL, {
    cache: true,
    onProgress: ({ loaded, total }) => {
      // One message per percent (per MB when the size is unknown), and the last.
      const step = total ? Math.floor((100 * loaded) / total) : Math.floor(loaded / 1e6);
      if (step !== shown || loaded === total) post({ type: 'download', loaded, total });
      shown = step;
    },
  });
  const { name, description, placeholder, dtype, file_size: fileSize, vocab_size: vocabSize } = model.info;
  post({ type: 'model', name, description, placeholder, dtype, fileSize, vocabSize, dims: model.dims,
         ms: performance.now() - t0 });

  const t1 = performance.now();
  corpus = await fetchCorpus(CORPUS_URL);
  const total = corpus.passages.length;
  post({ type: 'corpus', title: corpus.title, source: corpus.source, total,
         addresses: corpus.addresses.length, ms: performance.now() - t1 });

  index = model.createIndex();
  for (const query of pending.splice(0)) trySearch(query);
  let encodeMs = 0;
  const t2 = performance.now();
  for (let start = 0; start < total; start += CHUNK) {
    const end = Math.min(total, start + CHUNK);
    const ids = Array.from({ length: end - start }, (_, i) => start + i);
    const t = performance.now();
    index.add(ids, corpus.passages.slice(start, end));
    encodeMs += performance.now() - t;
    post({ type: 'progress', done: end, total });
    await new Promise((resolve) => setTimeout(resolve, 0));  // let searches typed meanwhile through
  }
  post({ type: 'ready', total, indexMs: encodeMs, wallMs: performance.now() - t2, loadMs: performance.now() - t0 });
}

/** The collection (a gzipped JSON file made by scripts/build-corpus.mjs), decompressed as it streams. */
async function fetchCorpus(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching ${url.pathname} failed: HTTP ${response.status}`);
  const stream = response.body.pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}

/** Encodes the query, searches the index and posts the hits with their passages and the timings. */
function search({ seq, query, k = 10 }) {
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
  post({ type: 'results', seq, query, results, words, encodeMs: t1 - t0, searchMs: t2 - t1, indexed: index.size });
}

function post(message) {
  self.postMessage(message);
}
