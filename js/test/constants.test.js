// The JS reads the C API's constants (status codes, match kinds, dtypes) from the wasm module at
// start-up instead of keeping copies. This checks that what it reads is exactly what swe.h declares:
// a constant added to swe.h without its name function learning it, or a renumbering, fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { initialize } from '../src/backend.js';
import { repoRoot } from './helpers.js';

/** { NAME: value } of the `#define`-free enum constants of swe.h that start with `prefix`. */
function headerConstants(prefix) {
  const header = readFileSync(join(repoRoot, 'libswe/include/swe.h'), 'utf8');
  const out = {};
  for (const m of header.matchAll(new RegExp(`\\b${prefix}([A-Z0-9_]+)\\s*=\\s*(\\d+)`, 'g'))) out[m[1]] = Number(m[2]);
  return out;
}

/** swe.h's SUFFIX as the C API spells its name: lower case, words apart ("INVALID_ARGUMENT" -> "invalid argument"). */
const spoken = (suffix) => suffix.toLowerCase().replaceAll('_', ' ');

test('status names and codes come from the module and match swe.h', async () => {
  const wasm = await initialize();
  const header = { ...headerConstants('SWE_ERR_'), OK: headerConstants('SWE_')['OK'] };
  assert.equal(wasm.statusNames.length, Object.keys(header).length);
  for (const [suffix, code] of Object.entries(header)) {
    assert.equal(wasm.statusNames[code], spoken(suffix), suffix);
    assert.equal(wasm.statusCodes[spoken(suffix)], code, suffix);
  }
  // The names the package itself relies on.
  assert.equal(wasm.statusCodes['not found'], header.NOT_FOUND);
  assert.equal(wasm.statusNames[wasm.statusCodes['out of memory']], 'out of memory');
});

test('match kinds come from the module and match swe.h', async () => {
  const wasm = await initialize();
  const header = headerConstants('SWE_MATCH_');
  assert.equal(wasm.matchNames.length, Object.keys(header).length);
  for (const [suffix, code] of Object.entries(header)) assert.equal(wasm.matchNames[code], spoken(suffix), suffix);
});

test('dtypes come from the module and match swe.h', async () => {
  const wasm = await initialize();
  const header = headerConstants('SWE_DTYPE_');
  assert.equal(wasm.dtypeNames.length, Object.keys(header).length);
  for (const [suffix, code] of Object.entries(header)) {
    assert.equal(wasm.dtypeNames[code], suffix.toLowerCase(), suffix);
    assert.equal(wasm.dtypeCodes[suffix.toLowerCase()], code, suffix);
  }
});
