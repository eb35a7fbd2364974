// The JS API on the backend SWE_BACKEND names (the wasm build, or the native addon): loading from
// every kind of source, encoding, similarity, tokenisation, the index, errors (JS Errors with the
// core's message; the library stays usable) and freeing (dispose, twice, use after dispose).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { Index, Model, SweError, backend, loadModel, version } from '../src/index.js';
import { defaultModel, expectedBackend, fixtureModels, jsRoot, repoRoot, stsSentences } from './helpers.js';

const models = fixtureModels();
const path = models.f32;
const bytes = readFileSync(path);

function norm(v, start = 0, dims = v.length) {
  let s = 0;
  for (let i = start; i < start + dims; ++i) s += v[i] * v[i];
  return Math.sqrt(s);
}

test('version is the VERSION file, the package.json version and the core version', async () => {
  const fileVersion = readFileSync(join(repoRoot, 'VERSION'), 'utf8').trim();
  const pkg = JSON.parse(readFileSync(join(jsRoot, 'package.json'), 'utf8'));
  assert.equal(pkg.version, fileVersion, 'js/package.json "version" must equal the VERSION file');
  assert.equal(await version(), fileVersion);
});

test('the tests run on the backend SWE_BACKEND names (no silent fallback)', async () => {
  assert.equal(await backend(), expectedBackend);
});

test('loads from a path, a file URL, a Uint8Array, an ArrayBuffer and a DataView', async () => {
  const sources = [path, pathToFileURL(path), new Uint8Array(bytes), bytes.buffer.slice(bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength), new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)];
  for (const source of sources) {
    const model = await loadModel(source);
    assert.ok(model instanceof Model);
    assert.equal(model.dims, models.dims);
    assert.equal(model.vocabSize, models.words);
    model.dispose();
  }
});

test('info describes the model', async () => {
  const model = await loadModel(path);
  const { info } = model;
  assert.equal(info.name, 'sts-f32');
  assert.equal(info.dims, models.dims);
  assert.equal(info.dtype, 'f32');
  assert.equal(info.placeholder, true);
  assert.match(info.checksum, /^[0-9a-f]{8}$/);
  assert.ok(Object.isFrozen(info));
  assert.equal(model.info, info, 'parsed once');
  model.dispose();
});

test('encode gives n × dims normalised rows, zero rows for text without known words', async () => {
  const model = await loadModel(bytes);
  const texts = ['A man is playing a guitar.', '', 'qqqzzz xxyyq', 'A woman is slicing an onion.'];
  const v = model.encode(texts);
  assert.ok(v instanceof Float32Array);
  assert.equal(v.length, texts.length * model.dims);
  assert.ok(Math.abs(norm(v, 0, model.dims) - 1) < 1e-5);
  assert.equal(norm(v, model.dims, model.dims), 0);
  assert.equal(norm(v, 2 * model.dims, model.dims), 0);
  assert.ok(Math.abs(norm(v, 3 * model.dims, model.dims) - 1) < 1e-5);
  // One string is one row; rows do not depend on the batch.
  assert.deepEqual(model.encode(texts[3]), v.subarray(3 * model.dims));
  assert.equal(model.encode([]).length, 0);
  // Truncated: the first dims dimensions, renormalised.
  const short = model.encode(texts, { dims: 7 });
  assert.equal(short.length, texts.length * 7);
  assert.ok(Math.abs(norm(short, 0, 7) - 1) < 1e-5);
  // Into a caller's array: the same numbers, the same array back.
  const out = new Float32Array(texts.length * model.dims + 5).fill(7);
  assert.equal(model.encode(texts, { out }), out);
  assert.deepEqual(out.subarray(0, v.length), v);
  assert.equal(out[v.length], 7);
  assert.throws(() => model.encode(texts, { out: new Float32Array(3) }), RangeError);
  assert.throws(() => model.encode(texts, { out: [] }), TypeError);
  model.dispose();
});

test('encode of one string (its own short path) gives the batch row bit for bit, with dims and out', async () => {
  const model = await loadModel(bytes);
  const texts = ['A man is playing a guitar.', '', 'qqqzzz xxyyq', 'naïve café 😀', 'x'.repeat(400000)];
  const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  for (const dims of [0, 7]) {
    const n = dims || model.dims;
    const batch = model.encode(texts, { dims });
    texts.forEach((text, i) => {
      assert.ok(same(model.encode(text, { dims }), batch.subarray(i * n, (i + 1) * n)), `row ${i}, dims ${dims}`);
      const out = new Float32Array(n + 1).fill(7);
      assert.equal(model.encode(text, { dims, out }), out);
      assert.ok(same(out.subarray(0, n), batch.subarray(i * n, (i + 1) * n)));
      assert.equal(out[n], 7);
    });
  }
  assert.throws(() => model.encode('a man', { out: new Float32Array(3) }), RangeError);
  assert.throws(() => model.encode('a man', { dims: -1 }), TypeError);
  model.dispose();
});

test('encode handles non-ASCII text, long batches and large texts', async () => {
  const model = await loadModel(bytes);
  const texts = ['naïve café — 日本語のテキスト 😀', '\u{1F600}'.repeat(1000), 'x'.repeat(300000)];
  for (let i = 0; i < 9000; ++i) texts.push(`a man is playing number ${i}`);
  const v = model.encode(texts);
  assert.equal(v.length, texts.length * model.dims);
  assert.deepEqual(v.subarray(3 * model.dims, 4 * model.dims), model.encode('a man is playing number 0'));
  model.dispose();
});

test('similarity is the cosine of the two vectors', async () => {
  const model = await loadModel(bytes);
  const a = 'A man is playing a guitar.';
  const b = 'A man plays the guitar.';
  const s = model.similarity(a, b);
  const v = model.encode([a, b]);
  let dot = 0;
  for (let i = 0; i < model.dims; ++i) dot += v[i] * v[model.dims + i];
  assert.ok(Math.abs(s - dot) < 1e-5, `${s} vs ${dot}`);
  assert.ok(Math.abs(model.similarity(a, a) - 1) < 1e-5);
  assert.equal(model.similarity(a, ''), 0);
  model.dispose();
});

test('tokenize reports words with string offsets and their matches', async () => {
  const model = await loadModel(bytes);
  const text = 'Ünïcode 😀 man qqqzzz, GUITAR';
  const tokens = model.tokenize(text);
  for (const t of tokens) assert.equal(text.slice(t.start, t.end), t.word);
  const man = tokens.find((t) => t.word === 'man');
  assert.ok(man && man.row >= 0 && man.match === 'exact');
  const unknown = tokens.find((t) => t.word === 'qqqzzz');
  assert.ok(unknown && unknown.row === -1 && unknown.match === 'unknown');
  const guitar = tokens.find((t) => t.word === 'GUITAR');
  assert.ok(guitar && guitar.row >= 0 && guitar.match === 'folded');
  assert.deepEqual(model.tokenize(''), []);
  model.dispose();
});

test('wrong argument types throw TypeErrors, and the model stays usable', async () => {
  const model = await loadModel(bytes);
  assert.throws(() => model.encode(42), TypeError);
  assert.throws(() => model.encode(['ok', 7]), /texts\[1\] is not a string/);
  assert.throws(() => model.encode(['a'], { dims: -1 }), TypeError);
  assert.throws(() => model.encode(['a'], { dims: model.dims + 1 }), RangeError);
  assert.throws(() => model.similarity('a', null), TypeError);
  assert.throws(() => model.tokenize(undefined), TypeError);
  await assert.rejects(loadModel(12), TypeError);
  await assert.rejects(loadModel([1, 2]), TypeError);
  await assert.rejects(loadModel(new Map()), TypeError);  // ({}) is options only: the default model
  assert.equal(model.encode('a man').length, model.dims);
  model.dispose();
});

test('a corrupt, truncated or missing model rejects with a SweError naming the problem', async () => {
  await assert.rejects(loadModel(new Uint8Array(100)), (e) => e instanceof SweError && e.code === 'corrupt' &&
                       /bad magic/.test(e.message));
  await assert.rejects(loadModel(bytes.subarray(0, bytes.length - 1)), (e) => e instanceof SweError &&
                       e.code === 'corrupt');
  const flipped = new Uint8Array(bytes);
  flipped[flipped.length - 100] ^= 0x40;
  await assert.rejects(loadModel(flipped), (e) => e instanceof SweError && /checksum/.test(e.message));
  await assert.rejects(loadModel(new Uint8Array(0)), SweError);
  await assert.rejects(loadModel('/nonexistent/model.swe'), (e) => e instanceof SweError && e.code === 'io');
  // Errors are Errors (never numbers), and the module stays usable.
  const model = await loadModel(bytes);
  assert.equal(model.encode('a man').length, model.dims);
  model.dispose();
});

test('dispose frees the model; later use throws; dispose twice is fine', async () => {
  const model = await loadModel(bytes);
  model.dispose();
  assert.equal(model.disposed, true);
  model.dispose();
  assert.throws(() => model.encode('a'), /disposed/);
  assert.throws(() => model.dims, /disposed/);
});

test('loading and disposing many models does not grow the memory', async () => {
  const heapAfter = async (rounds) => {
    for (let i = 0; i < rounds; ++i) (await loadModel(bytes)).dispose();
    const probe = await loadModel(bytes);
    probe.dispose();
  };
  await heapAfter(3);
  const { initialize } = await import('../src/index.js');
  const { mem } = await initialize();
  // wasm: the heap's size (it only grows); native: the binding's blocks not yet freed (the library's
  // own allocations are the C tests' to check, under AddressSanitizer).
  const inUse = () => (mem.bytes ?? mem.blocks);
  const before = inUse();
  await heapAfter(30);
  assert.equal(inUse(), before, 'the memory grew: something is not freed');
});

test('an index keeps its model alive when the Model object is gone', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const texts = stsSentences().slice(0, 50);
  const reference = await loadModel(bytes);
  const expected = reference.createIndex();
  expected.add(texts.map((_, i) => i), texts);
  const index = (await loadModel(bytes)).createIndex();  // its Model is unreachable from here on
  for (let round = 0; round < 5; ++round) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));  // finalizers run between tasks
    (await loadModel(readFileSync(models.int8))).dispose();  // a freed model's memory would be reused
  }
  index.add(texts.map((_, i) => i), texts);
  assert.deepEqual(index.save(), expected.save());
  assert.deepEqual(index.search(texts[3], 5), expected.search(texts[3], 5));
  index.dispose();
  expected.dispose();
  reference.dispose();
});

test('index: add, search, has, remove, save and load', async () => {
  const model = await loadModel(bytes);
  const index = model.createIndex();
  assert.ok(index instanceof Index);
  assert.equal(index.dims, model.dims);
  assert.equal(index.dtype, 'f32');
  const docs = ['A man is playing a guitar.', 'A woman is slicing an onion.', 'A dog runs in the park.',
                'The stock market fell sharply today.'];
  index.add([10, 20, 30, 40], docs);
  assert.equal(index.size, 4);
  const hits = index.search('A man is playing a guitar.', 2);
  assert.equal(hits.length, 2);
  assert.equal(hits[0].id, 10);
  assert.ok(Math.abs(hits[0].score - 1) < 1e-5);
  assert.ok(hits[0].score >= hits[1].score);
  assert.deepEqual(index.search(model.encode(docs[2]), 1).map((h) => h.id), [30]);
  assert.equal(index.search('anything', 0).length, 0);
  assert.equal(index.search('anything', 100).length, 4);
  assert.equal(index.has(20), true);
  assert.equal(index.remove(20), true);
  assert.equal(index.remove(20), false);
  assert.equal(index.has(20), false);
  index.add(10, 'The stock market fell sharply today.');  // replaces id 10
  assert.equal(index.size, 3);

  const saved = index.save();
  assert.ok(saved instanceof Uint8Array && saved.length > 40);
  const loaded = model.loadIndex(saved);
  assert.equal(loaded.size, 3);
  assert.deepEqual(loaded.search('stock market', 3), index.search('stock market', 3));
  loaded.dispose();
  index.dispose();
  assert.throws(() => index.search('a'), /disposed/);
  model.dispose();
});

test('index: int8 storage, bigint ids, addVectors and argument errors', async () => {
  const model = await loadModel(bytes);
  const index = model.createIndex({ dtype: 'int8', ids: 'bigint' });
  assert.equal(index.dtype, 'int8');
  const big = (1n << 64n) - 1n;
  index.add([big, 1n], ['A man is playing a guitar.', 'A dog runs in the park.']);
  index.addVectors([2], model.encode('A woman is slicing an onion.'));
  const hits = index.search('A man is playing a guitar.', 3);
  assert.equal(hits[0].id, big);
  assert.ok(Math.abs(hits[0].score - 1) < 0.02);
  assert.throws(() => index.add([-1], ['x']), TypeError);
  assert.throws(() => index.add([1.5], ['x']), TypeError);
  assert.throws(() => index.add([1, 2], ['x']), RangeError);
  assert.throws(() => index.addVectors([1], new Float32Array(3)), RangeError);
  assert.throws(() => index.search(42), TypeError);
  assert.throws(() => model.createIndex({ dtype: 'f16' }), TypeError);
  const numbers = model.createIndex();
  numbers.add([big], ['x man']);
  assert.throws(() => numbers.search('man', 1), /bigint/);
  numbers.dispose();
  index.dispose();
  model.dispose();
});

test('index: approximate search with options.candidates', async () => {
  // Real vectors (the default model, STS-B dev sentences): 1,400 entries, 40 other sentences as queries.
  const model = await loadModel(readFileSync(defaultModel));
  const sentences = stsSentences();
  const docs = sentences.slice(0, 1400), queries = sentences.slice(1400, 1440);
  const index = model.createIndex({ dtype: 'int8' });
  index.add(docs.map((_, i) => i), docs);
  const k = 10;
  let found = 0;
  for (const q of queries) {
    const exact = index.search(q, k);
    // Every entry a candidate: exact search, bit for bit.
    assert.deepEqual(index.search(q, { k, candidates: docs.length }), exact);
    assert.deepEqual(index.search(q, k, { candidates: 1e12 }), exact);
    const approx = index.search(q, k, { candidates: 100 });
    assert.equal(approx.length, k);
    const all = new Map(index.search(q, docs.length).map((h) => [h.id, h.score]));
    for (const h of approx) assert.equal(h.score, all.get(h.id));  // exact scores of the hits it found
    const truth = new Set(exact.map((h) => h.id));
    found += approx.filter((h) => truth.has(h.id)).length;
  }
  // Measured 0.84 (and 0.38 with 10 candidates: the path is approximate, not exact search renamed).
  const recall = found / (k * queries.length);
  assert.ok(recall >= 0.7 && recall <= 1, `recall@10 at 100 of 1,400 candidates: ${recall}`);
  const fewest = queries.map((q) => index.search(q, k, { candidates: k }));
  assert.ok(fewest.some((hits, i) => hits.some((h, j) => h.id !== index.search(queries[i], k)[j].id)));
  // searchBatch: each query as search() answers it, minScore applied after.
  const batch = index.searchBatch(queries, { k, candidates: 100, minScore: 0.5 });
  queries.forEach((q, i) => assert.deepEqual(batch[i], index.search(q, k, { candidates: 100, minScore: 0.5 })));
  for (const bad of [5, -1, 1.5, '100', Number.MAX_VALUE]) {
    assert.throws(() => index.search(queries[0], k, { candidates: bad }), /candidates/);
    assert.throws(() => index.searchBatch(queries, { k, candidates: bad }), /candidates/);
  }
  index.dispose();
  model.dispose();
});

test('an index saved with one model is refused by another', async () => {
  const a = await loadModel(models.f32);
  const b = await loadModel(models.int8);
  const index = a.createIndex();
  index.add([1], ['a man']);
  const saved = index.save();
  assert.throws(() => b.loadIndex(saved), (e) => e instanceof SweError);
  assert.throws(() => a.loadIndex(saved.subarray(0, 50)), (e) => e instanceof SweError && e.code === 'corrupt');
  index.dispose();
  a.dispose();
  b.dispose();
});

test('the package ships no Node import outside the dynamically imported node:fs', () => {
  for (const file of readdirSync(join(jsRoot, 'src'))) {
    const source = readFileSync(join(jsRoot, 'src', file), 'utf8');
    const staticImports = [...source.matchAll(/^import .* from '([^']+)'/gm)].map((m) => m[1]);
    for (const spec of staticImports) assert.ok(spec.startsWith('./') || spec.startsWith('../'), `${file}: ${spec}`);
    // A literal import('node:…') makes bundlers for the browser fail (esbuild: "Could not resolve").
    assert.doesNotMatch(source, /import\([^)]*['"]node:/, `${file} imports a node: module by a literal`);
  }
});
