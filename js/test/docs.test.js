// An index that keeps its documents (string ids, texts, JSON metadata): adding, getting, listing,
// removing, searching one query or many, errors, and files that round-trip with the native CLI.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { SweError, loadModel } from '../src/index.js';
import { fixtureModels, nativeCli, repoRoot, tempDir } from './helpers.js';

const models = fixtureModels();
const docs = [
  { id: 'guitar', text: 'A man is playing a guitar.', metadata: { lang: 'en', tags: ['music'] } },
  { id: 'onion', text: 'A woman is slicing an onion.' },
  { id: 'dog', text: 'A dog runs in the park.', metadata: 7 },
  { id: 'stocks', text: 'The stock market fell sharply today.', metadata: null },
];

test('documents: addDocs, get, ids, has, remove and search hits with texts and metadata', async () => {
  const model = await loadModel(models.f32);
  const index = model.createIndex();
  index.addDocs(docs);
  assert.equal(index.size, 4);
  assert.equal(index.docCount, 4);
  assert.deepEqual(index.ids(), ['guitar', 'onion', 'dog', 'stocks']);
  assert.deepEqual(index.get('guitar'), docs[0]);
  assert.deepEqual(index.get('onion'), { id: 'onion', text: 'A woman is slicing an onion.' });  // no metadata
  assert.deepEqual(index.get('stocks'), { id: 'stocks', text: docs[3].text });  // null: no metadata, as in the CLI
  const [hit] = index.search('A man is playing a guitar.', 1);
  assert.deepEqual(Object.keys(hit), ['id', 'score', 'text', 'metadata']);
  assert.equal(hit.id, 'guitar');
  assert.ok(Math.abs(hit.score - 1) < 1e-5);
  assert.deepEqual(hit.metadata, docs[0].metadata);

  index.addDocs([{ id: 'dog', text: 'A man is playing a guitar!', metadata: { v: 2 } }]);  // replaces 'dog'
  assert.equal(index.size, 4);
  assert.deepEqual(index.get('dog'), { id: 'dog', text: 'A man is playing a guitar!', metadata: { v: 2 } });
  assert.deepEqual(index.search('playing guitar', 2).map((h) => h.id).sort(), ['dog', 'guitar']);

  index.add([100], ['stock markets fell']);  // an entry without a document: its integer id
  assert.deepEqual(index.ids(), ['guitar', 'onion', 'dog', 'stocks', 100]);
  assert.deepEqual(index.search('stock markets fell', 1), [{ id: 100, score: index.search('stock markets fell', 1)[0].score }]);
  assert.equal(index.has('onion'), true);
  assert.equal(index.remove('onion'), true);
  assert.equal(index.remove('onion'), false);
  assert.equal(index.has('onion'), false);
  assert.equal(index.docCount, 3);
  assert.deepEqual(index.search('zzqqxx'), []);
  index.dispose();
  model.dispose();
});

test('documents: searchBatch answers as search does, with minScore', async () => {
  const model = await loadModel(models.int8);
  const index = model.createIndex();
  index.addDocs(docs);
  const queries = ['a man plays guitar', 'zzqqxx', 'stock market', 'a dog in a park'];
  const batch = index.searchBatch(queries, 2);
  assert.deepEqual(batch, queries.map((q) => index.search(q, 2)));
  assert.deepEqual(batch[1], []);  // no known word: no hits
  const floor = batch[0][0].score;
  const kept = index.searchBatch(queries, { k: 4, minScore: floor });
  assert.deepEqual(kept, queries.map((q) => index.search(q, 4, { minScore: floor })));
  assert.ok(kept[0].length >= 1 && kept[0].every((h) => h.score >= floor));
  assert.deepEqual(index.searchBatch([], 3), []);
  assert.deepEqual(index.searchBatch(['a man'], 0), [[]]);
  assert.throws(() => index.searchBatch('a man'), TypeError);
  assert.throws(() => index.searchBatch(['a'], 2, { minScore: NaN }), /minScore/);
  index.dispose();
  model.dispose();
});

test('documents: bad input is refused before anything is added', async () => {
  const model = await loadModel(models.f32);
  const index = model.createIndex();
  const text = 'a man';
  assert.throws(() => index.addDocs([{ id: 'a', text }, { id: 'a', text }]), /docs\[1\]: duplicate document id "a"/);
  assert.throws(() => index.addDocs([{ id: '', text }]), /docs\[0\]\.id must be a non-empty string/);
  assert.throws(() => index.addDocs([{ id: 3, text }]), TypeError);
  assert.throws(() => index.addDocs([{ id: 'a' }]), /docs\[0\]\.text must be a string/);
  assert.throws(() => index.addDocs([{ id: 'a', text, metadata: { n: 1n } }]), /metadata cannot be written as JSON/);
  const cycle = {};
  cycle.self = cycle;
  assert.throws(() => index.addDocs([{ id: 'a', text }, { id: 'b', text, metadata: cycle }]), /docs\[1\]\.metadata/);
  assert.throws(() => index.addDocs([{ id: 'a', text, metadata: () => 1 }]), /metadata cannot be written as JSON/);
  assert.throws(() => index.addDocs('a man'), TypeError);
  assert.equal(index.size, 0);
  assert.throws(() => index.get('missing'), (e) => e instanceof SweError && e.code === 'not found' && /"missing"/.test(e.message));
  assert.throws(() => index.get(1), /document id is a string/);
  index.dispose();
  model.dispose();
});

test('documents: save and load round-trip in JS and with the native CLI', async () => {
  const model = await loadModel(models.f32);
  const index = model.createIndex();
  index.addDocs(docs);
  const saved = index.save();
  const loaded = model.loadIndex(saved);
  assert.deepEqual(loaded.ids(), index.ids());
  assert.deepEqual(docs.map((d) => loaded.get(d.id)), docs.map((d) => index.get(d.id)));
  assert.deepEqual(loaded.search('a man plays', 4), index.search('a man plays', 4));
  loaded.dispose();

  // JS → CLI: swe index get / ids / query read the documents JS wrote.
  const dir = tempDir();
  const fromJs = join(dir, 'js.swi');
  writeFileSync(fromJs, saved);
  const cli = (...args) => execFileSync(nativeCli(), args, { encoding: 'utf8' });
  assert.deepEqual(cli('index', 'ids', fromJs).trim().split('\n'), index.ids());
  assert.deepEqual(JSON.parse(cli('index', 'get', fromJs, 'guitar')), docs[0]);
  const answer = cli('index', 'query', models.f32, fromJs, 'A dog runs in the park.', '-k', '1');
  assert.match(answer, /dog/);

  // CLI → JS: an index built from a .jsonl file by swe index build loads with its documents.
  const jsonl = join(dir, 'docs.jsonl');
  writeFileSync(jsonl, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const fromCli = join(dir, 'cli.swi');
  cli('index', 'build', models.f32, '--docs', jsonl, '-o', fromCli);
  const native = model.loadIndex(readFileSync(fromCli));
  assert.deepEqual(native.ids(), docs.map((d) => d.id));
  for (const d of docs) assert.deepEqual(native.get(d.id), index.get(d.id));
  assert.deepEqual(native.get('guitar'), docs[0]);
  const [a, b] = [native.search('a woman slicing', 4), index.search('a woman slicing', 4)];
  assert.deepEqual(a.map((h) => h.id), b.map((h) => h.id));
  for (let i = 0; i < a.length; ++i) assert.ok(Math.abs(a[i].score - b[i].score) < 1e-6);
  native.dispose();
  index.dispose();
  model.dispose();
});

// index.saveChanges(): the bytes to write at an offset of the file the index was loaded from, one
// change record at its end (the CLI then reads both changes), or the whole index for a new one.
test('documents: saveChanges appends a record the CLI reads, and the CLI appends records JS reads', async () => {
  const model = await loadModel(models.f32);
  const dir = tempDir();
  const file = join(dir, 'log.swi');
  const cli = (...args) => execFileSync(nativeCli(), args, { encoding: 'utf8' });
  const created = model.createIndex();
  created.addDocs(docs.slice(0, 2));
  const first = created.saveChanges();
  assert.equal(first.offset, 0);  // created, not loaded: the whole index
  writeFileSync(file, first.bytes);
  created.dispose();

  // The CLI appends its change; JS loads both and appends its own.
  const jsonl = join(dir, 'more.jsonl');
  writeFileSync(jsonl, JSON.stringify(docs[2]) + '\n');
  cli('index', 'add', models.f32, file, '--docs', jsonl);
  const before = readFileSync(file);
  const index = model.loadIndex(before);
  assert.deepEqual(index.ids(), ['guitar', 'onion', 'dog']);
  assert.deepEqual(index.saveChanges(), { offset: before.length, bytes: new Uint8Array(0) });  // nothing yet
  index.addDocs([docs[3]]);
  index.remove('onion');
  const { offset, bytes } = index.saveChanges();
  assert.equal(offset, before.length);
  assert.ok(bytes.length > 0 && bytes.length < 2048, `${bytes.length} bytes for two changes`);
  const fd = openSync(file, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
  assert.deepEqual(cli('index', 'ids', file).trim().split('\n').sort(), ['dog', 'guitar', 'stocks']);
  assert.deepEqual(JSON.parse(cli('index', 'get', file, 'stocks')), { id: 'stocks', text: docs[3].text });

  // A record written after another file's bytes is not that file's: readers ignore it.
  const other = model.createIndex();
  other.addDocs([docs[1]]);
  const foreign = new Uint8Array([...other.save(), ...bytes]);
  assert.deepEqual(model.loadIndex(foreign).ids(), ['onion']);
  other.dispose();
  index.dispose();
  model.dispose();
});

// Stored metadata that is not JSON within 128 levels (tests/fixtures/stored-metadata.swi, written by core
// as no swe writer would) is shown as the CLI and swe serve show it: the document without it, and why.
test('documents: stored metadata that cannot be shown is said so, the rest of the document kept', async () => {
  const model = await loadModel(models.f32);
  const index = model.loadIndex(readFileSync(join(repoRoot, 'tests/fixtures/stored-metadata.swi')));
  assert.deepEqual(index.get('deep'), { id: 'deep', text: 'text of deep',
                                        metadataError: 'the stored metadata cannot be shown: JSON nested deeper than 128 levels' });
  assert.deepEqual(index.get('bad'), { id: 'bad', text: 'text of bad', metadataError: 'the stored metadata cannot be shown: not JSON' });
  assert.deepEqual(index.get('fine'), { id: 'fine', text: 'text of fine', metadata: { k: 1 } });
  const hits = index.search(new Float32Array([0.1, 0.2, 1, 0]), 3);
  assert.deepEqual(hits.map((h) => [h.id, 'metadataError' in h, 'metadata' in h]), [['fine', false, true], ['bad', true, false], ['deep', true, false]]);
  index.dispose();
  model.dispose();
});
