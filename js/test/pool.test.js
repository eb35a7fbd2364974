// WorkerPool in Node (worker threads; the browser's Web Workers run it in web-demo/test): the vectors
// of model.encode(), bit for bit and in order, whatever the number of workers and chunks; options
// checked; a model that does not load rejects with its SweError; a closed pool refuses work.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { SweError, createWorkerPool, loadModel } from '../src/index.js';
import { bitDifferences, defaultModel, stsSentences } from './helpers.js';

const sentences = stsSentences();

test('a pool of workers encodes as model.encode does, in order, bit for bit', async () => {
  const model = await loadModel(defaultModel);
  const expected = model.encode(sentences);
  const expected32 = model.encode(sentences, { dims: 32 });
  model.dispose();
  for (const workers of [1, 3]) {
    const pool = await createWorkerPool(readFileSync(defaultModel), { workers });
    try {
      assert.equal(pool.size, workers);
      assert.equal(pool.dims, 256);
      assert.equal(bitDifferences(await pool.encode(sentences), expected), 0, `${workers} workers`);
      // Batches at once share the workers; each comes back whole and in its own order.
      const [a, b] = await Promise.all([pool.encode(sentences.slice(0, 700)), pool.encode(sentences, { dims: 32 })]);
      assert.equal(bitDifferences(a, expected.subarray(0, 700 * 256)), 0);
      assert.equal(bitDifferences(b, expected32), 0);
      assert.deepEqual(await pool.encode([]), new Float32Array(0));
      await assert.rejects(pool.encode(['a'], { dims: 300 }), RangeError);
      await assert.rejects(pool.encode([1]), TypeError);
    } finally {
      await pool.close();
    }
  }
});

test('a pool whose model does not load rejects with the core\'s error; a closed pool refuses work', async () => {
  await assert.rejects(createWorkerPool(readFileSync(defaultModel).subarray(0, 4000), { workers: 2 }),
                       (e) => e instanceof SweError && e.code === 'corrupt');
  await assert.rejects(createWorkerPool(defaultModel, { workers: 0 }), RangeError);
  await assert.rejects(createWorkerPool(defaultModel, { workers: 1, nope: 1 }), /unknown option "nope"/);
  const pool = await createWorkerPool(defaultModel, { workers: 1 });
  await pool.close();
  await assert.rejects(pool.encode(['a']), /closed/);
});
