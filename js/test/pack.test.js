// Packaging like a user would: `npm pack`, install the tarball into a temporary project (offline, no
// repository paths), then use it from Node by its package name (ESM import), on the main thread and in
// a worker thread. Reports the package size and the gzip size of the wasm.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { fixtureModels, jsRoot, tempDir } from './helpers.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const allowed = new Set(['package.json', 'README.md', 'index.d.ts', 'dist/swe.js', 'dist/swe.wasm',
                         'src/index.js', 'src/model.js', 'src/search-index.js', 'src/wasm.js']);

test('npm pack → install into a fresh project → import "swe-embeddings" from Node', async (t) => {
  const packDir = tempDir('swe-pack-');
  const [info] = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', packDir], {
    cwd: jsRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const files = info.files.map((f) => f.path);
  for (const f of files) assert.ok(allowed.has(f), `unexpected file in the package: ${f}`);
  for (const f of ['dist/swe.js', 'dist/swe.wasm', 'src/index.js', 'index.d.ts']) {
    assert.ok(files.includes(f), `missing from the package: ${f}`);
  }
  const tarball = join(packDir, info.filename);
  const wasm = readFileSync(join(jsRoot, 'dist/swe.wasm'));
  const wasmGzip = gzipSync(wasm, { level: 9 }).length;
  t.diagnostic(`package ${info.filename}: ${statSync(tarball).size} bytes packed, ${info.unpackedSize} unpacked, ` +
               `${files.length} files; swe.wasm ${wasm.length} bytes, ${wasmGzip} gzipped`);
  assert.ok(info.unpackedSize < 2_000_000, 'the package should stay small');

  const project = tempDir('swe-consumer-');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync(npm, ['install', tarball, '--offline', '--no-audit', '--no-fund', '--no-package-lock',
                     '--loglevel=error'], { cwd: project, stdio: ['ignore', 'ignore', 'inherit'] });
  const model = fixtureModels().int8;
  writeFileSync(join(project, 'main.js'), `
import { loadModel, version } from 'swe-embeddings';
import { Worker } from 'node:worker_threads';
const model = await loadModel(process.argv[2]);
const vectors = model.encode(['a man is playing a guitar', 'a woman is slicing an onion']);
const index = model.createIndex();
index.add([1, 2], ['a man is playing a guitar', 'a woman is slicing an onion']);
const hit = index.search('someone plays the guitar', 1)[0];
const inWorker = await new Promise((resolve, reject) => {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: process.argv[2] });
  worker.once('message', resolve);
  worker.once('error', reject);
});
console.log(JSON.stringify({ version: await version(), dims: model.dims, length: vectors.length, hit: hit.id,
                             similarity: model.similarity('a man', 'a man'), inWorker,
                             resolved: import.meta.resolve('swe-embeddings') }));
index.dispose();
model.dispose();
`);
  writeFileSync(join(project, 'worker.js'), `
import { loadModel } from 'swe-embeddings';
import { parentPort, workerData } from 'node:worker_threads';
const model = await loadModel(workerData);
parentPort.postMessage(Array.from(model.encode('a man is playing a guitar').subarray(0, 3)));
model.dispose();
`);
  const out = JSON.parse(execFileSync(process.execPath, ['main.js', model], { cwd: project, encoding: 'utf8' }));
  assert.equal(out.version, JSON.parse(readFileSync(join(jsRoot, 'package.json'), 'utf8')).version);
  assert.equal(out.length, 2 * out.dims);
  assert.equal(out.hit, 1);
  assert.ok(Math.abs(out.similarity - 1) < 1e-5);
  assert.equal(out.inWorker.length, 3);
  assert.ok(out.resolved.startsWith(`file://${project}/node_modules/swe-embeddings/`), out.resolved);
});
