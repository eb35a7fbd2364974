// What users do with vectors, on the shipped default model: how many words were known, search without
// junk (no hits for a query with no known word, minScore), the WordLlama-style helpers (similarity
// matrix, rank, topk, filter, dedupe, cluster) and the LangChain-style SweEmbeddings with a real vector
// store (examples/orama.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

import { SweEmbeddings, cosine, kmeans, loadModel, nearDuplicateGroups, similarityMatrix } from '../src/index.js';
import { defaultModel, jsRoot } from './helpers.js';

const model = await loadModel(defaultModel);
const docs = ['A man is playing a guitar.', 'The stock market fell sharply.', 'A chef is slicing onions.',
              'zzqqxx'];

test('encodeWithInfo: the vectors of encode() and the known words of each text', () => {
  const texts = ['a man plays', 'zzqqxx', '', 'the cat zzqqxx sat'];
  const { vectors, knownWords } = model.encodeWithInfo(texts);
  assert.deepEqual(vectors, model.encode(texts));
  assert.deepEqual([...knownWords], [3, 0, 0, 3]);
  assert.deepEqual([...model.encodeWithInfo('hi').knownWords], [1]);
  assert.equal(model.encodeWithInfo(texts, { dims: 8 }).vectors.length, 4 * 8);
  assert.throws(() => model.encodeWithInfo([1]), TypeError);
});

test('index search: no hits for a query without known words; minScore drops weak hits', () => {
  const index = model.createIndex();
  index.add([0, 1, 2, 3], docs);
  assert.deepEqual(index.search('zzqqxx'), []);
  assert.deepEqual(index.search(new Float32Array(model.dims)), []);
  const all = index.search('someone plays music', 10);
  assert.equal(all.length, 4);
  assert.equal(all[0].id, 0);
  const strong = index.search('someone plays music', 10, { minScore: 0.3 });
  assert.deepEqual(strong, all.filter((h) => h.score >= 0.3));
  assert.ok(strong.length >= 1 && strong.length < all.length);
  assert.deepEqual(index.search('someone plays music', { k: 1, minScore: 0.3 }), strong.slice(0, 1));
  assert.throws(() => index.search('music', 3, { minScore: 'high' }), TypeError);
  index.dispose();
});

test('cosine and similarityMatrix agree with the model and with each other', () => {
  const v = model.encode(docs.slice(0, 3));
  const d = model.dims;
  const m = similarityMatrix(v, d);
  assert.equal(m.length, 9);
  for (let i = 0; i < 3; ++i) {
    assert.ok(Math.abs(m[i * 3 + i] - 1) < 1e-5);
    for (let j = 0; j < 3; ++j) {
      assert.ok(Math.abs(m[i * 3 + j] - m[j * 3 + i]) < 1e-6);
      assert.ok(Math.abs(m[i * 3 + j] - model.similarity(docs[i], docs[j])) < 1e-5);
    }
  }
  assert.deepEqual(model.similarityMatrix(docs.slice(0, 3)), m);
  assert.equal(model.similarityMatrix(docs.slice(0, 2), docs).length, 8);
  assert.equal(cosine([1, 0], [2, 0]), 1);
  assert.equal(cosine([1, 0], [0, 0]), 0);
  assert.ok(Math.abs(cosine(new Float32Array([1, 1]), new Float32Array([1, 0])) - Math.SQRT1_2) < 1e-7);
  assert.throws(() => cosine([1], [1, 2]), RangeError);
  assert.throws(() => similarityMatrix(new Float32Array(5), 2), RangeError);
});

test('rank, topk and filter: best first, nothing for a query without known words', () => {
  const ranked = model.rank('someone performs music', docs);
  assert.equal(ranked.length, docs.length);
  assert.deepEqual(ranked[0], { index: 0, text: docs[0], score: ranked[0].score });
  for (let i = 1; i < ranked.length; ++i) assert.ok(ranked[i - 1].score >= ranked[i].score);
  assert.equal(ranked.find((r) => r.index === 3).score, 0, 'a text without known words scores 0');
  assert.deepEqual(model.rank('zzqqxx', docs), []);
  assert.deepEqual(model.topk('someone performs music', docs, 2), ranked.slice(0, 2));
  assert.deepEqual(model.topk('cooking dinner', docs, 1).map((r) => r.index), [2]);
  assert.deepEqual(model.filter('cooking vegetables', docs, 0.3), [docs[2]]);
  assert.deepEqual(model.filter('zzqqxx', docs, -1), []);
  assert.deepEqual(model.rank('music', docs, { minScore: 0.99 }), []);
  assert.deepEqual(model.topk('someone performs music', docs, 99), ranked);
  assert.deepEqual(model.topk('someone performs music', docs, 0), []);
  assert.deepEqual(model.rank('someone performs music', []), []);
  assert.throws(() => model.topk('music', docs, -1), TypeError);
  assert.throws(() => model.filter('music', docs), TypeError);
  assert.throws(() => model.rank('music', docs, { minScore: NaN }), TypeError);
  // The scores of an index of the same texts (one ranking rule, the library's), ties by position.
  const index = model.createIndex();
  index.add([0, 1, 2, 3], docs);
  assert.deepEqual(index.search('someone performs music', 4).map((h) => [h.id, h.score]),
                   ranked.map((r) => [r.index, r.score]));
  index.dispose();
  const twice = model.rank('a guitar', [docs[0], docs[1], docs[0]]);
  assert.deepEqual(twice.map((r) => r.index), [0, 2, 1]);
  assert.equal(twice[0].score, twice[1].score);
});

test('dedupe groups near-duplicates under their first text', () => {
  const texts = ['A cat sat on the mat.', 'Stocks fell today.', 'a cat sat on the mat', 'zzqqxx', 'zzqqxx',
                 'The cat sat on a mat!', 'It rained all day.'];
  const { texts: kept, groups } = model.dedupe(texts, 0.9);
  assert.deepEqual(groups, [[0, 2, 5], [1], [3], [4], [6]]);
  assert.deepEqual(kept, [texts[0], texts[1], texts[3], texts[4], texts[6]]);
  // 0, 2 and 5 have the same words (a bag of words, summed exactly in any order): identical vectors.
  assert.deepEqual(model.dedupe(texts, 1.0).groups, [[0, 2, 5], [1], [3], [4], [6]], 'only the identical vectors merge at 1.0');
  assert.equal(model.dedupe(texts, -1).groups.length, 3, 'everything with a known word merges at -1');
  assert.throws(() => model.dedupe(texts, 2), RangeError);
  assert.deepEqual(nearDuplicateGroups(new Float32Array(0), 4, 0.5), []);
  // A zero row first is a group of its own even at -1: the rows after it do not join it.
  assert.deepEqual(nearDuplicateGroups(new Float32Array([0, 0, 1, 0, 0, 1]), 2, -1), [[0], [1, 2]]);
  // A row whose dot with itself times its inverse norm squared rounds to 0.9999999999999998.
  const row = [-0.2152811586856842, 0.4290890693664551, -0.49124860763549805, 0.3892102539539337];
  assert.deepEqual(nearDuplicateGroups(new Float32Array([...row, ...row]), 4, 1.0), [[0, 1]]);
});

test('cluster: k-means separates topics, the same on every run for a seed', () => {
  const animals = ['a cat sleeps on the sofa', 'the dog barked at the cat', 'kittens and puppies play',
                   'a horse runs in the field'];
  const money = ['stock prices fell sharply', 'the bank raised interest rates', 'investors sold their shares',
                 'the market rallied on earnings'];
  const texts = [...animals, ...money];
  const { labels, centroids, inertia, iterations } = model.cluster(texts, 2);
  assert.equal(centroids.length, 2 * model.dims);
  assert.ok(iterations >= 1 && inertia > 0);
  const first = labels.slice(0, 4);
  assert.ok(first.every((l) => l === first[0]), `animals split: ${labels}`);
  assert.ok(labels.slice(4).every((l) => l !== first[0]), `money mixed with animals: ${labels}`);
  for (let seed = 0; seed < 5; ++seed) {
    const a = model.cluster(texts, 3, { seed });
    assert.deepEqual(model.cluster(texts, 3, { seed }), a);
  }
  assert.throws(() => model.cluster(texts, 9), RangeError);
  assert.throws(() => model.cluster(texts, 0), RangeError);
  // A text with no known word is in no cluster, and k counts the texts that have one.
  const withUnknown = model.cluster([...texts, 'zzqqxx'], 2);
  assert.deepEqual(withUnknown.labels.slice(0, 8), labels);
  assert.equal(withUnknown.labels[8], -1);
  assert.equal(withUnknown.inertia, inertia);
  assert.throws(() => model.cluster(['zzqqxx', 'a cat'], 2), /nonzero rows/);
  // Restarts share one random stream: the first of R starts is the single start, the best of R never
  // worse. A single start at seed 0 stops in a local optimum here (the default of 4 finds the split).
  let better = false;
  for (let seed = 0; seed < 4; ++seed) {
    const one = model.cluster(texts, 2, { seed, restarts: 1 }).inertia;
    const many = model.cluster(texts, 2, { seed, restarts: 8 }).inertia;
    assert.ok(many <= one, `seed ${seed}: ${many} > ${one}`);
    better ||= many < one;
  }
  assert.ok(better, 'no single start was improved on: the restarts check lost its case');
  for (const restarts of [0, 1.5, 1001]) assert.throws(() => model.cluster(texts, 2, { restarts }), RangeError);
});

test('kmeans recovers well-separated groups and never leaves a centre unused', () => {
  // Three tight groups of 2-d points (off the origin: a zero row is in no cluster); k-means++ must
  // start one centre in each.
  const points = [];
  for (const [x, y] of [[1, 1], [10, 1], [1, 10]]) {
    for (let i = 0; i < 20; ++i) points.push(x + (i % 5) * 0.1, y + Math.floor(i / 5) * 0.1);
  }
  for (let seed = 0; seed < 20; ++seed) {
    const { labels } = kmeans(new Float32Array(points), 2, 3, { seed });
    for (let g = 0; g < 3; ++g) {
      const group = labels.slice(g * 20, g * 20 + 20);
      assert.ok(group.every((l) => l === group[0]), `seed ${seed}: group ${g} split`);
    }
    assert.equal(new Set(labels).size, 3, `seed ${seed}: ${labels}`);
  }
  // Duplicates only: k centres, labels defined, no NaN.
  const same = kmeans(new Float32Array(8).fill(1), 2, 2);
  assert.ok(!same.centroids.some(Number.isNaN));
  assert.equal(same.inertia, 0);
  // The origin, a zero row (what a text without a known word encodes to), is left out: label -1.
  assert.deepEqual([...kmeans([0, 0, 1, 1, 9, 9], 2, 2).labels].map((l) => l < 0), [true, false, false]);
  // Any array of numbers (as float32); a non-finite value is refused.
  assert.deepEqual(kmeans([0, 1, 0, 1.5, 9, 9], 2, 2, { seed: 3 }).labels, kmeans(new Float64Array([0, 1, 0, 1.5, 9, 9]), 2, 2, { seed: 3 }).labels);
  assert.throws(() => kmeans([0, 1, NaN, 1], 2, 1), RangeError);
  assert.throws(() => nearDuplicateGroups([0, Infinity], 2, 0.5), RangeError);
});

test('nearDuplicateGroups and kmeans need the started module, and say so', () => {
  const script = "import('./src/index.js').then((m) => { for (const f of [() => m.kmeans([1, 0], 2, 1), " +
                 "() => m.nearDuplicateGroups([1, 0], 2, 0.5)]) { try { f(); } catch (e) { console.log(e.message); } } })";
  const lines = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: jsRoot, encoding: 'utf8' })
    .trim().split('\n');
  assert.equal(lines.length, 2);
  for (const line of lines) assert.match(line, /has not started: await initialize\(\) \(or loadModel\(\)\) first/);
});

test('SweEmbeddings: embedDocuments and embedQuery as LangChain.js calls them', async () => {
  const embeddings = new SweEmbeddings({ model });
  const vectors = await embeddings.embedDocuments(docs);
  assert.equal(vectors.length, docs.length);
  assert.ok(vectors.every((v) => Array.isArray(v) && v.length === model.dims));
  assert.deepEqual(vectors[1], Array.from(model.encode(docs[1])));
  assert.deepEqual(await embeddings.embedQuery(docs[0]), vectors[0]);
  assert.deepEqual(await embeddings.embedDocuments([]), []);
  const short = new SweEmbeddings({ source: defaultModel, dims: 64 });
  assert.equal((await short.embedQuery('hi')).length, 64);
  assert.throws(() => new SweEmbeddings({ modle: model }), /unknown option "modle"/);
  await assert.rejects(new SweEmbeddings({ source: '/nonexistent.swe' }).embedQuery('hi'), /nonexistent/);
});

test('examples/orama.mjs: SweEmbeddings with the Orama vector store finds the right document', () => {
  const run = (...args) => execFileSync(process.execPath, [join(jsRoot, 'examples/orama.mjs'), defaultModel, ...args],
                                        { cwd: jsRoot, encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  const hits = run();
  assert.match(hits[0], /^0\.\d{3} {2}A man is playing a guitar on stage\.$/);
  assert.match(run('cooking', 'dinner')[0], /slicing onions/);
  assert.deepEqual(run('zzqqxx'), []);
});
