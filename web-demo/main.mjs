// The page: starts the search worker, asks it for the chosen model (the default, or the one in the URL's
// ?model=ID; the selector offers the site's others, see models.mjs), shows its progress, sends the query
// as the user types (debounced a little), and renders results, the query's known and skipped words, and
// the timings. Everything the page needs is served from its own origin; sw.js (when present) keeps it
// for offline use.
import { MODELS } from './models.mjs';

const DEBOUNCE_MS = 60;
const RESULTS = 10;

const $ = (id) => document.getElementById(id);
const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
const state = { seq: 0, shown: 0, sentAt: new Map(), total: 0, timer: 0, gen: 0, model: null };

// Timings of the last searches, kept for the page's own report (window.sweDemo, read by the browser test).
const timings = [];
window.sweDemo = { ready: false, timings, indexMs: null, load: {}, model: null };

// Messages of a model load the user has since replaced carry an older gen: dropped.
worker.onmessage = ({ data }) => {
  if (data.gen === undefined || data.gen === state.gen) handlers[data.type]?.(data);
};
worker.onerror = (event) => showError(event.message || 'the search worker failed to start');

const handlers = {
  download({ loaded, total }) {
    const reports = (window.sweDemo.load.download?.reports ?? 0) + 1;
    window.sweDemo.load.download = { loaded, total, reports };
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    setProgress(total ? `Downloading the model… ${mb(loaded)} of ${mb(total)} MB` : `Downloading the model… ${mb(loaded)} MB`,
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
    window.sweDemo.load.modelMs = m.ms;
    setProgress('Fetching the passages…', null);
  },
  corpus(c) {
    state.total = c.total;
    $('corpus').textContent = `${c.total.toLocaleString('en')} passages from ${c.addresses} ${c.title}`;
    window.sweDemo.load.corpusMs = c.ms;
    setProgress(`Indexing 0 of ${c.total.toLocaleString('en')} passages…`, 0);
  },
  progress({ done, total }) {
    setProgress(`Indexing ${done.toLocaleString('en')} of ${total.toLocaleString('en')} passages…`, done / total);
  },
  ready({ total, indexMs, wallMs, loadMs }) {
    Object.assign(window.sweDemo, { ready: true, indexMs, indexWallMs: wallMs, total, model: state.model.id });
    window.sweDemo.load.totalMs = loadMs;
    $('loading').classList.add('done');
    setProgress(`Indexed ${total.toLocaleString('en')} passages in ${(wallMs / 1000).toFixed(2)} s ` +
      `(ready ${(loadMs / 1000).toFixed(2)} s after start).`, 1);
    document.body.dataset.ready = 'true';
    document.body.dataset.model = state.model.id;
    if ($('query').value.trim()) send();
  },
  results(r) {
    if (r.seq < state.shown) return;  // an older answer overtaken by a newer one
    state.shown = r.seq;
    const roundTripMs = performance.now() - (state.sentAt.get(r.seq) ?? performance.now());
    state.sentAt.delete(r.seq);
    timings.push({ query: r.query, encodeMs: r.encodeMs, searchMs: r.searchMs, roundTripMs, indexed: r.indexed });
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
  worker.postMessage({ type: 'load', gen: state.gen, file: state.model.file });
}

/** The models this site has (models.json, written by build-site.mjs), in models.mjs's order, with sizes. */
async function siteModels() {
  try {
    const { models } = await (await fetch('models.json')).json();
    const bytes = new Map(models.map((m) => [m.id, m.bytes]));
    return MODELS.filter((m) => bytes.has(m.id)).map((m) => ({ ...m, bytes: bytes.get(m.id) }));
  } catch {
    return [MODELS[0]];  // an older build without models.json: its model.swe only
  }
}

async function start() {
  const models = await siteModels();
  const select = $('model-select');
  for (const m of models) {
    const size = m.bytes ? ` (${(m.bytes / 1e6).toFixed(1)} MB)` : '';
    select.append(new Option(`${m.label}${size}`, m.id));
  }
  select.hidden = models.length < 2;
  select.addEventListener('change', () => useModel(select.value));
  const asked = new URL(location.href).searchParams.get('model');
  useModel(models.some((m) => m.id === asked) ? asked : models[0].id);
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

if ('serviceWorker' in navigator && location.protocol !== 'file:') {
  navigator.serviceWorker.register('./sw.js').catch(() => {});  // offline use only; the page works without it
}

start();
