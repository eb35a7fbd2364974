// C++ exceptions inside the wasm build: a file whose container is valid (magic, sizes, CRC-32C, zstd
// frame) but whose Cap'n Proto message is malformed makes Cap'n Proto throw kj::Exception inside the
// core, which must catch it (the build uses native wasm exception handling) and report `corrupt`:
// a SweError in JS, never a trap or a thrown number, and the module keeps working afterwards.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { SweError, loadModel } from '../src/index.js';
import { fixtureModels } from './helpers.js';

// CRC-32C (Castagnoli), reflected, as in docs/FORMAT.md.
function crc32c(bytes) {
  let crc = ~0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; ++k) crc = (crc >>> 1) ^ (0x82f63b78 & -(crc & 1));
  }
  return ~crc >>> 0;
}

// A .swe model container around `payload` (a multiple of 8 bytes) in one stored zstd frame.
function container(payload) {
  const frame = new Uint8Array(4 + 1 + 8 + 3 + payload.length);
  const f = new DataView(frame.buffer);
  f.setUint32(0, 0xfd2fb528, true);
  frame[4] = 0xe0;  // 8-byte content size, single segment
  f.setBigUint64(5, BigInt(payload.length), true);
  const blockHeader = 1 | (payload.length << 3);  // last block, raw
  frame.set([blockHeader & 0xff, (blockHeader >> 8) & 0xff, (blockHeader >> 16) & 0xff], 13);
  frame.set(payload, 16);
  const out = new Uint8Array(40 + frame.length);
  const h = new DataView(out.buffer);
  out.set([0x89, 0x53, 0x57, 0x45, 0x0d, 0x0a, 0x1a, 0x0a]);
  h.setUint32(8, 1, true);   // version
  h.setUint32(12, 1, true);  // kind: model
  h.setBigUint64(16, BigInt(payload.length), true);
  h.setBigUint64(24, BigInt(frame.length), true);
  h.setUint32(32, crc32c(frame), true);
  h.setUint32(36, 0, true);
  out.set(frame, 40);
  return out;
}

test('a malformed Cap\'n Proto message is a corrupt-model SweError (kj::Exception caught in wasm)', async () => {
  const cases = [
    new Uint8Array(16).fill(0xff),                      // segment table claims 2^32 segments
    Uint8Array.from([0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),  // first segment past the end
    Uint8Array.from([0, 0, 0, 0, 1, 0, 0, 0, 0xfd, 0xff, 0xff, 0x7f, 1, 0, 0, 0]),  // root out of bounds
  ];
  for (const payload of cases) {
    await assert.rejects(loadModel(container(payload)), (e) => {
      assert.ok(e instanceof SweError, `expected a SweError, got ${e}`);
      assert.equal(e.code, 'corrupt');
      return true;
    });
  }
  const model = await loadModel(readFileSync(fixtureModels().f32));
  assert.equal(model.encode('a man').length, model.dims);
  model.dispose();
});
