// The TypeScript declarations (index.d.ts) compile against a use of the whole API (types-check.ts),
// resolved by package name as a user's project resolves it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';

import { jsRoot } from './helpers.js';

test('index.d.ts describes the API (tsc --strict)', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
                                              '--moduleResolution', 'nodenext', '--lib', 'es2022,dom',
                                              join(jsRoot, 'test/types-check.ts')], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stdout + result.stderr);
});
