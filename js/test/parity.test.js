// Parity: the same model and texts give bit-identical vectors natively (`swe encode`) and through the
// package, on the backend the suite runs on (SWE_BACKEND: the wasm build, or the Node addon), over the
// STS-B dev sentences (a few thousand real sentences), for every table dtype (so every
// wasm kernel: f32, f16 and int8 gather), with and without dimension truncation. docs/FORMAT.md,
// "Determinism", says why they can agree exactly; no tolerance is allowed here. And rank, dedupe
// and cluster, one implementation in the library (swe_vectors_*), answer through the binding as
// `swe search`, `swe dedupe` and `swe cluster` answer natively.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { loadModel } from '../src/index.js';
import { bitDifferences, cjkFixtureModels, cjkSentences, defaultModel, expectedBackend, fixtureModels, nativeCli,
         nativeVectors, placeholderModel, stsSentences, tempDir } from './helpers.js';

const backend = expectedBackend;  // each test's name says which backend it compared

const sentences = stsSentences();

test('the STS-B dev set gives a few thousand sentences', () => {
  assert.ok(sentences.length >= 2000, `${sentences.length} sentences`);
});

async function checkParity(path, options = {}, texts = sentences) {
  const model = await loadModel(path);
  try {
    const dims = options.dims ?? model.dims;
    const got = model.encode(texts, options);
    const native = nativeVectors(path, texts, options.dims ? ['--dims', String(options.dims)] : []);
    assert.equal(got.length, texts.length * dims);
    assert.equal(native.length, got.length);
    assert.equal(bitDifferences(got, native), 0, `${backend} and native vectors differ`);
    let nonZero = 0;
    for (let r = 0; r < texts.length; ++r) if (got[r * dims] !== 0) ++nonZero;
    assert.ok(nonZero > texts.length * 0.9, 'most texts should have known words');
  } finally {
    model.dispose();
  }
}

for (const dtype of ['f32', 'f16', 'int8']) {
  test(`${backend} and swe encode vectors are bit-identical (${dtype} table)`, async () => {
    await checkParity(fixtureModels()[dtype]);
  });
}

test(`${backend} and swe encode vectors are bit-identical with --dims truncation`, async () => {
  await checkParity(fixtureModels().int8, { dims: 21 });
});

test(`${backend} and swe encode vectors are bit-identical on the shipped default model (subword fallback too)`, async () => {
  await checkParity(defaultModel);
});

test(`${backend} and swe encode vectors are bit-identical on the GloVe placeholder`, {
  skip: existsSync(placeholderModel) ? false : `${placeholderModel} not built (scripts/make-placeholder-model.sh)`,
}, async () => {
  await checkParity(placeholderModel);
});

// Japanese and Chinese text (and mixed scripts) under each CJK mode: the same tokens, so the same bits.
const cjkTexts = cjkSentences();

for (const cjk of ['characters', 'bigrams', 'longest']) {
  test(`${backend} and swe encode vectors are bit-identical on CJK text (cjk ${cjk})`, async () => {
    const path = cjkFixtureModels()[cjk];
    await checkParity(path, {}, cjkTexts);
    const model = await loadModel(path);
    try {
      assert.equal(model.info.tokenizer.cjk, cjk);
      // The modes really differ: 東京 is one token with bigrams (beside its characters) and longest.
      const words = model.tokenize('東京タワーに行きました').map((t) => t.word);
      if (cjk === 'characters') assert.deepEqual(words.slice(0, 2), ['東', '京']);
      if (cjk === 'bigrams') assert.deepEqual(words.slice(0, 3), ['東', '東京', '京']);
      if (cjk === 'longest') assert.ok([...words[0]].length >= 2, words.join(' '));
    } finally {
      model.dispose();
    }
  });
}

// ---- rank, dedupe and cluster: the library's answers through the package and through the swe program ----

// The first 300 STS-B sentences and one without a known word, as a --docs file (ids: line numbers).
const helperTexts = [...sentences.slice(0, 300), '!!! ...'];
const docsFile = join(tempDir(), 'docs.txt');
writeFileSync(docsFile, helperTexts.join('\n') + '\n');
const swe = (...args) => execFileSync(nativeCli(), args.map(String), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const jsonLines = (text) => text.trim().split('\n').map((line) => JSON.parse(line));

test('rank and topk rank as swe search does: the same texts, the same float scores', async () => {
  const model = await loadModel(defaultModel);
  try {
    for (const query of ['a man is playing a guitar', 'the stock market fell', 'zzqqxx']) {
      const { hits } = JSON.parse(swe('search', defaultModel, '--docs', docsFile, '--json', '-k', 20, query));
      const ranked = model.topk(query, helperTexts, 20);
      assert.deepEqual(ranked.map((h) => h.index + 1), hits.map((h) => Number(h.id)), query);
      assert.deepEqual(ranked.map((h) => h.score), hits.map((h) => Math.fround(h.score)), query);
      assert.deepEqual(model.rank(query, helperTexts).slice(0, 20), ranked);
    }
  } finally {
    model.dispose();
  }
});

test('dedupe groups as swe dedupe does', async () => {
  const model = await loadModel(defaultModel);
  try {
    for (const threshold of [0.8, 0.95]) {
      const groups = jsonLines(swe('dedupe', defaultModel, '--docs', docsFile, '--json', '--threshold', threshold))
        .map((g) => [Number(g.id) - 1, ...g.duplicates.map((d) => Number(d.id) - 1)]);
      assert.ok(groups.some((g) => g.length > 1), `no duplicates at ${threshold}: the check lost its case`);
      assert.deepEqual(model.dedupe(helperTexts, threshold).groups, groups, `threshold ${threshold}`);
    }
  } finally {
    model.dispose();
  }
});

test('cluster gives the clusters of swe cluster for a seed, the text without a known word in none', async () => {
  const model = await loadModel(defaultModel);
  try {
    for (const [seed, restarts] of [[0, 4], [7, 1], [4294967295, 2]]) {
      const expected = jsonLines(swe('cluster', defaultModel, '--docs', docsFile, '-k', 5, '--json', '--seed', seed,
                                     '--restarts', restarts)).map((d) => d.cluster ?? -1);
      const { labels } = model.cluster(helperTexts, 5, { seed, restarts });
      assert.deepEqual([...labels], expected, `seed ${seed}`);
      assert.equal(labels.at(-1), -1);
    }
  } finally {
    model.dispose();
  }
});

