// Parity: the same model and texts give bit-identical vectors natively (`swe encode`) and in wasm,
// over the STS-B dev sentences (a few thousand real sentences), for every table dtype (so every
// wasm kernel: f32, f16 and int8 gather), with and without dimension truncation. docs/FORMAT.md,
// "Determinism", says why they can agree exactly; no tolerance is allowed here.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';

import { loadModel } from '../src/index.js';
import { bitDifferences, cjkFixtureModels, cjkSentences, defaultModel, fixtureModels, nativeVectors, placeholderModel,
         stsSentences } from './helpers.js';

const sentences = stsSentences();

test('the STS-B dev set gives a few thousand sentences', () => {
  assert.ok(sentences.length >= 2000, `${sentences.length} sentences`);
});

async function checkParity(path, options = {}, texts = sentences) {
  const model = await loadModel(path);
  try {
    const dims = options.dims ?? model.dims;
    const wasm = model.encode(texts, options);
    const native = nativeVectors(path, texts, options.dims ? ['--dims', String(options.dims)] : []);
    assert.equal(wasm.length, texts.length * dims);
    assert.equal(native.length, wasm.length);
    assert.equal(bitDifferences(wasm, native), 0, 'wasm and native vectors differ');
    let nonZero = 0;
    for (let r = 0; r < texts.length; ++r) if (wasm[r * dims] !== 0) ++nonZero;
    assert.ok(nonZero > texts.length * 0.9, 'most texts should have known words');
  } finally {
    model.dispose();
  }
}

for (const dtype of ['f32', 'f16', 'int8']) {
  test(`wasm and native vectors are bit-identical (${dtype} table)`, async () => {
    await checkParity(fixtureModels()[dtype]);
  });
}

test('wasm and native vectors are bit-identical with --dims truncation', async () => {
  await checkParity(fixtureModels().int8, { dims: 21 });
});

test('wasm and native vectors are bit-identical on the shipped default model (subword fallback too)', async () => {
  await checkParity(defaultModel);
});

test('wasm and native vectors are bit-identical on the GloVe placeholder', {
  skip: existsSync(placeholderModel) ? false : `${placeholderModel} not built (scripts/make-placeholder-model.sh)`,
}, async () => {
  await checkParity(placeholderModel);
});

// Japanese and Chinese text (and mixed scripts) under each CJK mode: the same tokens, so the same bits.
const cjkTexts = cjkSentences();

for (const cjk of ['characters', 'bigrams', 'longest']) {
  test(`wasm and native vectors are bit-identical on CJK text (cjk ${cjk})`, async () => {
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
