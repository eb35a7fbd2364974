// loadModel over http (a local server): the streamed fetch reports progress from Content-Length (or,
// without one or for a compressed response, from the size in the model's header), honours an AbortSignal, and fails with clear errors on HTTP errors, refused
// connections and cut-off bodies; options are checked; no source without the model package says what
// to install. loadIndex the same way: a prebuilt index (`swe index build`'s) fetched while its model
// loads. (The Cache API is checked in chromium by pack.test.js and web-demo/test: Node has none.)
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { SweError, loadIndex, loadModel } from '../src/index.js';
import { defaultModel, fixtureModels, nativeCli, tempDir } from './helpers.js';

const bytes = readFileSync(defaultModel);
// A prebuilt index of documents, written by the swe program (zstd-compressed, as it writes them).
const docsFile = join(tempDir(), 'docs.jsonl');
writeFileSync(docsFile, ['A man is playing a guitar.', 'A woman is slicing an onion.', 'Stocks fell sharply.']
  .map((text, i) => JSON.stringify({ id: `d${i}`, text, metadata: { i } })).join('\n') + '\n');
const indexFile = join(tempDir(), 'docs.swi');
execFileSync(nativeCli(), ['index', 'build', defaultModel, '--docs', docsFile, '-o', indexFile], { stdio: 'ignore' });
const indexBytes = readFileSync(indexFile);
let server;
let base;

before(async () => {
  server = createServer((request, response) => {
    const chunked = request.url === '/chunked.swe';
    if (request.url === '/model.swe' || chunked) {
      response.writeHead(200, chunked ? {} : { 'Content-Length': bytes.length });
      // In pieces, so that progress has steps to report.
      const step = 1 << 20;
      for (let at = 0; at < bytes.length; at += step) response.write(bytes.subarray(at, at + step));
      response.end();
    } else if (request.url === '/gzip.swe') {  // how a raw model should be served: compressed by the server
      const body = gzipSync(bytes);
      response.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': body.length });
      for (let at = 0; at < body.length; at += 1 << 20) response.write(body.subarray(at, at + (1 << 20)));
      response.end();
    } else if (request.url === '/cut.swe') {
      response.writeHead(200, { 'Content-Length': bytes.length });
      response.write(bytes.subarray(0, 1000), () => response.destroy());
    } else if (request.url === '/slow.swe') {
      response.writeHead(200, { 'Content-Length': bytes.length });
      response.write(bytes.subarray(0, 1000));  // and then nothing: only an abort ends it
    } else if (request.url === '/docs.swi') {
      response.writeHead(200, { 'Content-Length': indexBytes.length });
      response.end(indexBytes);
    } else if (request.url === '/page.html') {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end('<!doctype html><p>not a model</p>');
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => server.closeAllConnections?.() ?? server.close());

test('a fetched model reports progress up to its Content-Length', async () => {
  const progress = [];
  const model = await loadModel(`${base}/model.swe`, { onProgress: (p) => progress.push(p) });
  assert.equal(model.info.name, 'swe-en-use-lite-large-para');
  assert.deepEqual(progress[0], { loaded: 0, total: bytes.length });
  assert.deepEqual(progress.at(-1), { loaded: bytes.length, total: bytes.length });
  assert.ok(progress.length > 3, `${progress.length} progress reports`);
  for (let i = 1; i < progress.length; ++i) assert.ok(progress[i].loaded > progress[i - 1].loaded);
  model.dispose();
});

test('without Content-Length the total comes from the model header once it is in', async () => {
  const progress = [];
  const model = await loadModel(new URL(`${base}/chunked.swe`), { onProgress: (p) => progress.push(p) });
  assert.deepEqual(progress[0], { loaded: 0, total: null });
  assert.deepEqual(progress.slice(1).map((p) => p.total), progress.slice(1).map(() => bytes.length));
  assert.deepEqual(progress.at(-1), { loaded: bytes.length, total: bytes.length });
  model.dispose();
});

test('a gzip-encoded response counts decoded bytes against the size in the header', async () => {
  const progress = [];
  const model = await loadModel(`${base}/gzip.swe`, { onProgress: (p) => progress.push(p) });
  assert.equal(model.info.name, 'swe-en-use-lite-large-para');
  assert.deepEqual(progress[0], { loaded: 0, total: null });  // Content-Length counts compressed bytes
  assert.ok(progress.length > 2, `${progress.length} progress reports`);
  for (const p of progress.slice(1)) assert.equal(p.total, bytes.length);
  assert.deepEqual(progress.at(-1), { loaded: bytes.length, total: bytes.length });
  model.dispose();
});

test('a file path, or a file: URL as a string, reports its size once', async () => {
  for (const source of [defaultModel, pathToFileURL(defaultModel).href]) {
    const progress = [];
    (await loadModel(source, { onProgress: (p) => progress.push(p) })).dispose();
    assert.deepEqual(progress, [{ loaded: bytes.length, total: bytes.length }]);
  }
});

test('an AbortSignal stops a download (and an aborted signal stops it before it starts)', async () => {
  const controller = new AbortController();
  const loading = loadModel(`${base}/slow.swe`, {
    signal: controller.signal, onProgress: ({ loaded }) => { if (loaded > 0) controller.abort(); } });
  await assert.rejects(loading, (e) => e.name === 'AbortError');
  await assert.rejects(loadModel(`${base}/model.swe`, { signal: AbortSignal.abort() }), (e) => e.name === 'AbortError');
  await assert.rejects(loadModel(defaultModel, { signal: AbortSignal.abort(new Error('stop')) }), /stop/);
});

test('HTTP errors, refused connections, cut-off bodies and non-models reject with clear SweErrors', async () => {
  await assert.rejects(loadModel(`${base}/missing.swe`), (e) => e instanceof SweError && e.code === 'io' &&
    e.message === `loadModel: fetching ${base}/missing.swe failed: HTTP 404 Not Found`);
  await assert.rejects(loadModel(`${base}/cut.swe`), (e) => e instanceof SweError && e.code === 'io' &&
    /cut\.swe/.test(e.message) && /1000/.test(e.message));
  await assert.rejects(loadModel('http://127.0.0.1:1/model.swe'), (e) => e instanceof SweError &&
    /^loadModel: cannot fetch http:\/\/127\.0\.0\.1:1\/model\.swe: /.test(e.message));
  await assert.rejects(loadModel(`${base}/page.html`), (e) => e instanceof SweError && e.code === 'corrupt');
});

test('options are checked; unknown keys are named', async () => {
  await assert.rejects(loadModel(bytes, { onprogress: () => {} }), /unknown option "onprogress"/);
  await assert.rejects(loadModel(bytes, { onProgress: 1 }), TypeError);
  await assert.rejects(loadModel(bytes, { signal: 'no' }), TypeError);
  await assert.rejects(loadModel(bytes, { cache: 1 }), TypeError);
  await assert.rejects(loadModel(bytes, null), TypeError);
});

test('no source and no model package: the error says what to install', async () => {
  for (const call of [() => loadModel(), () => loadModel({ cache: true })]) {
    await assert.rejects(call(), (e) => e instanceof SweError && /npm install swe-embeddings-model-en/.test(e.message));
  }
});

test('loadIndex: a prebuilt index fetched while its model loads, with progress; its documents searchable', async () => {
  const progress = [];
  const model = loadModel(`${base}/model.swe`);  // a promise: the index downloads meanwhile
  const index = await loadIndex(model, `${base}/docs.swi`, { onProgress: (p) => progress.push(p) });
  assert.equal(index.size, 3);
  assert.deepEqual(progress.at(-1), { loaded: indexBytes.length, total: indexBytes.length });
  const [hit] = index.search('someone plays music', 1);
  assert.deepEqual([hit.id, hit.text, hit.metadata], ['d0', 'A man is playing a guitar.', { i: 0 }]);
  const again = await loadIndex(await model, indexFile, { ids: 'bigint' });  // a path, and a Model itself
  assert.deepEqual(again.search('stocks', 1).map((h) => h.id), ['d2']);
  index.dispose();
  again.dispose();
  (await model).dispose();
});

test('loadIndex: HTTP errors, another model\'s index and bad arguments are refused clearly', async () => {
  const model = await loadModel(bytes);
  await assert.rejects(loadIndex(model, `${base}/missing.swi`), (e) => e instanceof SweError && e.code === 'io' &&
    e.message === `loadIndex: fetching ${base}/missing.swi failed: HTTP 404 Not Found`);
  const other = await loadModel(fixtureModels().f32);
  await assert.rejects(loadIndex(other, indexBytes), (e) => e instanceof SweError && e.code === 'invalid argument' &&
    /^loadIndex: /.test(e.message));
  await assert.rejects(loadIndex(model, `${base}/page.html`), (e) => e instanceof SweError && e.code === 'corrupt');
  await assert.rejects(loadIndex(model), TypeError);
  await assert.rejects(loadIndex('model.swe', indexBytes), /expected a Model/);
  await assert.rejects(loadIndex(model, indexBytes, { wasmUrl: 'x' }), /unknown option "wasmUrl"/);
  await assert.rejects(loadIndex(model, `${base}/slow.swe`, { signal: AbortSignal.abort() }), (e) => e.name === 'AbortError');
  model.dispose();
  other.dispose();
});
