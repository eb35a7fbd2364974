// The page: starts the search worker, asks it at once for the chosen model (the default, or the one in
// the URL's ?model=ID; the selector offers the site's others, see models.mjs) and its index, shows the
// progress, sends the query as the user types (debounced a little; ?q=TEXT types one before the load
// ends) and renders results, the query's known and skipped words, and the timings: the load's
// breakdown (WebAssembly, model, index) and the time to the first results. Nothing here that the
// worker can do. Everything the page needs is served from its own origin; sw.js (when present) keeps
// it for offline use.
import { MODELS } from './models.mjs';

const DEBOUNCE_MS = 60;
const RESULTS = 10;

const $ = (id) => document.getElementById(id);
const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
const state = { seq: 0, shown: 0, sentAt: new Map(), total: 0, timer: 0, gen: 0, model: null };

// Timings of the last searches, kept for the page's own report (window.sweDemo, read by the browser test).
const timings = [];
window.sweDemo = { ready: false, timings, load: {}, model: null, firstResultsMs: null };
// A time of the worker's clock (timeOrigin + now) as ms since this page's navigation started.
const sincePageStart = (t) => t - performance.timeOrigin;

// Messages of a model load the user has since replaced carry an older gen: dropped.
worker.onmessage = ({ data }) => {
  if (data.gen === undefined || data.gen === state.gen) handlers[data.type]?.(data);
};
worker.onerror = (event) => showError(event.message || 'the search worker failed to start');

const handlers = {
  download({ loaded, total, files }) {
    const reports = (window.sweDemo.load.download?.reports ?? 0) + 1;
    window.sweDemo.load.download = { loaded, total, files, reports };
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    const what = state.model.index ? 'the model and its index' : 'the model';
    setProgress(total ? `Downloading ${what}… ${mb(loaded)} of ${mb(total)} MB` : `Downloading ${what}… ${mb(loaded)} MB`,
                total ? loaded / total : null);
  },
  model(m) {
    const mb = (m.fileSize / 1e6).toFixed(1);
    $('model').textContent = `${m.name} · ${m.dims} dims · ${m.vocabSize.toLocaleString('en')} words · ` +
      `${m.dtype} · ${mb} MB`;
    if (m.placeholder) {
      $('placeholder').hidden = false;
      $('placeholder').textContent = 'Placeholder model: plain GloVe word vectors averaged, not yet distilled ' +
        'from a Sentence Transformer, so results lean on shared words more than on meaning. A distilled ' +
        'model replaces it later.';
    }
  },
  corpus({ total }) {  // no prebuilt index: the passages are embedded in the page
    state.total = total;
    setProgress(`Embedding 0 of ${total.toLocaleString('en')} passages in this page…`, 0);
  },
  progress({ done, total }) {
    setProgress(`Embedding ${done.toLocaleString('en')} of ${total.toLocaleString('en')} passages in this page…`,
                done / total);
  },
  ready({ total, prebuilt, embedded, times }) {
    state.total = total;
    const at = Object.fromEntries(Object.entries(times).map(([key, t]) => [key, sincePageStart(t)]));
    Object.assign(window.sweDemo, { ready: true, total, prebuilt, embedded, model: state.model.id });
    Object.assign(window.sweDemo.load, { at, readyMs: performance.now() });
    $('loading').classList.add('done');
    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const how = prebuilt ? `prebuilt index of ${total.toLocaleString('en')} passages`
      : `${total.toLocaleString('en')} passages embedded here by ${embedded.workers} workers in ${s(embedded.ms)}`;
    const steps = [`WebAssembly ${s(at.wasmReady)}`, `model ${s(at.modelLoaded)}`, `index ${s(at.indexLoaded)}`];
    setProgress(`Ready ${s(performance.now())} after opening (${how}): ${steps.join(' · ')}.`, 1);
    document.body.dataset.ready = 'true';
    document.body.dataset.model = state.model.id;
    if ($('query').value.trim()) send();
    registerServiceWorker();
  },
  results(r) {
    if (r.seq < state.shown) return;  // an older answer overtaken by a newer one
    state.shown = r.seq;
    const roundTripMs = performance.now() - (state.sentAt.get(r.seq) ?? performance.now());
    state.sentAt.delete(r.seq);
    timings.push({ query: r.query, encodeMs: r.encodeMs, searchMs: r.searchMs, roundTripMs, indexed: r.indexed });
    if (window.sweDemo.ready && window.sweDemo.firstResultsMs === null && r.query.trim()) {
      window.sweDemo.firstResultsMs = performance.now();  // the time to the first search, since navigation
    }
    renderWords(r.words);
    renderResults(r.results, r.query);
    const partial = r.indexed < state.total ? ` of the ${r.indexed.toLocaleString('en')} indexed so far` : '';
    $('stats').textContent = r.query.trim() === '' ? '' :
      `encode ${fmt(r.encodeMs)} ms · search ${fmt(r.searchMs)} ms${partial} · round trip ${fmt(roundTripMs)} ms`;
    document.body.dataset.seq = String(r.seq);
  },
  error(e) {
    showError(e.message);
  },
};

/**
 * Switches to the model `id` of models.mjs: the worker drops the current one and loads this one (from
 * its cache when it was loaded before), the page resets its results, examples and URL. */
function useModel(id) {
  state.model = MODELS.find((m) => m.id === id);
  state.gen += 1;
  Object.assign(window.sweDemo, { ready: false, load: {}, model: null });
  document.body.dataset.ready = 'false';
  $('model-select').value = id;
  $('model').textContent = 'loading…';
  $('placeholder').hidden = true;
  $('loading').classList.remove('done', 'failed');
  $('query').placeholder = state.model.placeholder;
  renderExamples(state.model.examples);
  renderWords([]);
  $('results').replaceChildren();
  $('stats').textContent = '';
  const url = new URL(location.href);
  if (id === MODELS[0].id) url.searchParams.delete('model');
  else url.searchParams.set('model', id);
  history.replaceState(null, '', url);
  setProgress('Loading the model…', null);
  worker.postMessage({ type: 'load', gen: state.gen, file: state.model.file, index: state.model.index });
}

/**
 * The models this site has and its collection (models.json, written by build-site.mjs): the models in
 * models.mjs's order, with sizes, and { title, passages, addresses }.
 */
async function siteFacts() {
  try {
    const { models, collection } = await (await fetch('models.json')).json();
    const bytes = new Map(models.map((m) => [m.id, m.bytes]));
    return { models: MODELS.filter((m) => bytes.has(m.id)).map((m) => ({ ...m, bytes: bytes.get(m.id) })), collection };
  } catch {
    return { models: [MODELS[0]], collection: null };  // an older build without models.json: its model.swe only
  }
}

function start() {
  const params = new URL(location.href).searchParams;
  if (params.get('q')) $('query').value = params.get('q');
  // The default model starts loading at once; another one asked for in the URL once the site's list
  // says it is there.
  const asked = params.get('model');
  if (!asked || asked === MODELS[0].id) useModel(MODELS[0].id);
  siteFacts().then(({ models, collection }) => {
    if (collection) {
      $('corpus').textContent = `${collection.passages.toLocaleString('en')} passages from ${collection.addresses} ` +
        `${collection.title}`;
    }
    const select = $('model-select');
    for (const m of models) {
      const size = m.bytes ? ` (${(m.bytes / 1e6).toFixed(1)} MB)` : '';
      select.append(new Option(`${m.label}${size}`, m.id));
    }
    select.value = state.model?.id ?? models[0].id;
    select.hidden = models.length < 2;
    select.addEventListener('change', () => useModel(select.value));
    if (asked && asked !== MODELS[0].id) useModel(models.some((m) => m.id === asked) ? asked : models[0].id);
  });
}

function renderExamples(examples) {
  const box = $('examples');
  box.replaceChildren('Try:');
  for (const { lang, query } of examples) {
    const button = document.createElement('button');
    button.type = 'button';
    button.lang = lang;
    button.textContent = query;
    box.append(' ', button);
  }
}

function fmt(ms) {
  return ms < 1 ? ms.toFixed(2) : ms < 10 ? ms.toFixed(1) : ms.toFixed(0);
}

function setProgress(label, fraction) {
  $('progress-label').textContent = label;
  if (fraction === null) $('progress').removeAttribute('value');
  else $('progress').value = fraction;
}

function showError(message) {
  $('loading').classList.add('failed');
  setProgress(`Error: ${message}`, 0);
  console.error(`swe demo: ${message}`);
}

function send() {
  clearTimeout(state.timer);
  const query = $('query').value;
  const seq = ++state.seq;
  state.sentAt.set(seq, performance.now());
  worker.postMessage({ type: 'search', seq, query, k: RESULTS });
}

function renderWords(words) {
  const box = $('words');
  box.replaceChildren();
  if (words.length === 0) return;
  box.append('Words: ');
  for (const { word, known, match } of words) {
    const chip = document.createElement(known ? 'span' : 'del');
    chip.className = known ? 'word known' : 'word skipped';
    chip.textContent = word;
    chip.title = known ? `in the vocabulary (${match})` : 'not in the vocabulary: skipped';
    box.append(chip, ' ');
  }
  const skipped = words.filter((w) => !w.known).length;
  if (skipped) box.append(`(${skipped} skipped)`);
}

function renderResults(results, query) {
  const list = $('results');
  list.replaceChildren();
  if (query.trim() && results.length === 0) {
    const li = document.createElement('li');
    li.className = 'empty';
    li.textContent = 'No word of the query is in the model’s vocabulary.';
    list.append(li);
    return;
  }
  for (const r of results) {
    const li = document.createElement('li');
    li.tabIndex = -1;
    li.dataset.id = String(r.id);
    const meta = document.createElement('div');
    meta.className = 'meta';
    const score = document.createElement('span');
    score.className = 'score';
    score.textContent = r.score.toFixed(3);
    score.style.setProperty('--score', String(Math.max(0, r.score)));
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = `${r.year} · ${r.president}`;
    meta.append(score, who);
    const text = document.createElement('p');
    text.className = 'text';
    text.textContent = r.text;
    li.append(meta, text);
    list.append(li);
  }
}

$('query').addEventListener('input', () => {
  clearTimeout(state.timer);
  state.timer = setTimeout(send, DEBOUNCE_MS);
});
$('search-form').addEventListener('submit', (event) => {
  event.preventDefault();
  send();
});
$('examples').addEventListener('click', (event) => {
  if (event.target instanceof HTMLButtonElement) {
    $('query').value = event.target.textContent;
    $('query').focus();
    send();
  }
});

// Keyboard: "/" focuses the box, arrows walk the results, Escape goes back to the box (or clears it).
document.addEventListener('keydown', (event) => {
  const items = [...$('results').querySelectorAll('li[data-id]')];
  const at = items.indexOf(document.activeElement);
  if (event.key === '/' && document.activeElement !== $('query')) {
    event.preventDefault();
    $('query').focus();
    $('query').select();
  } else if (event.key === 'ArrowDown' && items.length && (at >= 0 || document.activeElement === $('query'))) {
    event.preventDefault();
    items[Math.min(items.length - 1, at + 1)].focus();
  } else if (event.key === 'ArrowUp' && at >= 0) {
    event.preventDefault();
    if (at === 0) $('query').focus();
    else items[at - 1].focus();
  } else if (event.key === 'Escape') {
    if (at >= 0) {
      $('query').focus();
    } else if (document.activeElement === $('query') && $('query').value) {
      $('query').value = '';
      send();
    }
  }
});

// Offline use only (the page works without it), registered once the first load is done: its install
// downloads the site's files, which must not compete with the first search's.
function registerServiceWorker() {
  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    navigator.serviceWorker.register('./sw.js').catch(() => {});
  }
}

start();
