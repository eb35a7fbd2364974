// model.encodeAsync: the vectors of encode(), bit for bit, over several chunks in flight (on the
// native backend the libuv thread pool runs them; with wasm they run between turns of the event loop),
// the event loop served while it runs, dispose() while it runs, and a failing chunk's error.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';

import { initialize, loadModel } from '../src/index.js';
import { bitDifferences, defaultModel, stsSentences } from './helpers.js';

// More texts than one chunk holds (4,096), and one that is longer than a chunk's byte bound alone.
const sentences = stsSentences();
const texts = [...sentences, ...sentences, ...sentences, 'a man is playing a guitar '.repeat(50_000), ...sentences,
               ...sentences, ...sentences];

test('encodeAsync gives encode\'s vectors bit for bit, in order, over several chunks', async () => {
  const model = await loadModel(defaultModel);
  try {
    assert.ok(texts.length > 3 * 4096);
    const expected = model.encode(texts);
    const got = await model.encodeAsync(texts);
    assert.equal(got.length, expected.length);
    assert.equal(bitDifferences(got, expected), 0);
    const dims = 64;
    assert.equal(bitDifferences(await model.encodeAsync(texts, { dims }), model.encode(texts, { dims })), 0);
    assert.deepEqual(await model.encodeAsync('a man'), model.encode(['a man']));
    assert.deepEqual(await model.encodeAsync([]), new Float32Array(0));
    await assert.rejects(model.encodeAsync([1]), TypeError);
    await assert.rejects(model.encodeAsync(['a'], { dims: 100_000 }), RangeError);
  } finally {
    model.dispose();
  }
});

test('the event loop runs while encodeAsync works', async () => {
  const model = await loadModel(defaultModel);
  try {
    // A timer that is due (1 ms) runs before the encoding ends (after it, the continuation below runs
    // at once, before any timer): it could not, were the event loop blocked until the end.
    let ticks = 0;
    const timer = setInterval(() => ++ticks, 1);
    const encoding = model.encodeAsync(texts);
    const ticksAtStart = ticks;
    await encoding;
    const ticksAtEnd = ticks;
    clearInterval(timer);
    assert.ok(ticksAtEnd > ticksAtStart, 'no timer ran while encodeAsync worked');
  } finally {
    model.dispose();
  }
});

test('dispose() while encodeAsync runs frees the model after it, the vectors intact', async () => {
  const reference = await loadModel(defaultModel);
  const expected = reference.encode(texts);
  reference.dispose();
  const model = await loadModel(defaultModel);
  const encoding = model.encodeAsync(texts);
  model.dispose();
  assert.equal(model.disposed, true);
  assert.throws(() => model.encode('a'), /disposed/);
  await assert.rejects(model.encodeAsync(['a']), /disposed/);
  // Other models load meanwhile: a model freed too early would have its memory reused under the encoder.
  for (let i = 0; i < 3; ++i) (await loadModel(readFileSync(defaultModel))).dispose();
  assert.equal(bitDifferences(await encoding, expected), 0);
});

test('a chunk that fails rejects encodeAsync with the core\'s error, and nothing is left held', async () => {
  const binding = await initialize();
  const model = binding.modelLoad(readFileSync(defaultModel));
  try {
    // dims beyond the model's: refused by swe_model_encode_batch itself, in every chunk.
    await assert.rejects(binding.encodeAsync(model, texts, binding.modelDims(model) + 1),
                         (e) => e.code === 'invalid argument' && /^encodeAsync: /.test(e.message));
    // As many chunks at once as there are CPUs (up to libuv's 4 threads): more only slow the JS thread.
    if (binding.async !== null) assert.equal(binding.asyncInFlight, Math.min(4, availableParallelism()));
    const blocks = binding.mem.blocks;
    if (blocks !== undefined) {  // native: every chunk's memory was given back
      await binding.encodeAsync(model, texts, 16);
      assert.equal(binding.mem.blocks, blocks);
    }
  } finally {
    binding.c.swe_model_free(model);
  }
});
