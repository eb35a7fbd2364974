// Packaging like a user would: js/scripts/release.sh packs swe-embeddings and swe-embeddings-model-en,
// both tarballs are installed into a temporary project (offline, no repository paths, no Emscripten),
// then used from Node by package name (loadModel() with no source finds the model package; on the main
// thread and in a worker thread), and from pages bundled with esbuild and Vite, in chromium. Reports
// the sizes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { buildEsbuildPage, buildVitePage, executablePath, runPage } from './bundle.js';
import { jsRoot, repoRoot, tempDir } from './helpers.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const version = readFileSync(join(repoRoot, 'VERSION'), 'utf8').trim();
const allowed = new Set(['package.json', 'README.md', 'index.d.ts', 'dist/swe.js', 'dist/swe.wasm',
                         'src/index.js', 'src/binding.js', 'src/checks.js', 'src/model.js', 'src/search-index.js',
                         'src/wasm.js', 'src/load.js', 'src/helpers.js', 'src/langchain.js']);
const modelFiles = ['package.json', 'README.md', 'index.js', 'index.d.ts', 'swe-en-use-lite-large-para.swe',
                    'swe-en-use-lite-large-para.md'];
let project;

before(() => {
  // The wasm build exists (the other tests use it); the release script would only re-check it.
  const out = tempDir('swe-release-');
  const tarballs = execFileSync('bash', [join(jsRoot, 'scripts/release.sh'), out], {
    encoding: 'utf8', env: { ...process.env, SWE_RELEASE_SKIP_BUILD: '1' }, stdio: ['ignore', 'pipe', 'inherit'] })
    .trim().split('\n');
  assert.deepEqual(tarballs, [join(out, `swe-embeddings-${version}.tgz`), join(out, `swe-embeddings-model-en-${version}.tgz`)]);
  project = tempDir('swe-consumer-');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync(npm, ['install', ...tarballs, '--offline', '--no-audit', '--no-fund', '--no-package-lock',
                     '--loglevel=error'], { cwd: project, stdio: ['ignore', 'ignore', 'inherit'] });
  project = { dir: project, tarballs };
});

function tarFiles(tarball) {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n')
    .map((f) => f.replace(/^package\//, ''));
}

test('release.sh packs the library (wasm inside) and the model package, nothing else', (t) => {
  const [lib, model] = project.tarballs;
  const files = tarFiles(lib);
  for (const f of files) assert.ok(allowed.has(f), `unexpected file in the package: ${f}`);
  for (const f of allowed) assert.ok(files.includes(f), `missing from the package: ${f}`);
  assert.deepEqual(tarFiles(model).sort(), [...modelFiles].sort());
  const wasm = readFileSync(join(jsRoot, 'dist/swe.wasm'));
  t.diagnostic(`${lib}: ${statSync(lib).size} bytes; ${model}: ${statSync(model).size} bytes; ` +
               `swe.wasm ${wasm.length} bytes, ${gzipSync(wasm, { level: 9 }).length} gzipped`);
  assert.ok(statSync(lib).size < 500_000, 'the library package should stay small');
});

test('installed from the tarballs: loadModel() with no source loads the default model in Node', () => {
  writeFileSync(join(project.dir, 'main.js'), `
import { loadModel, version } from 'swe-embeddings';
import { Worker } from 'node:worker_threads';
const model = await loadModel();
const vector = model.encode('hi');
const index = model.createIndex();
index.add([1, 2], ['a man is playing a guitar', 'a woman is slicing an onion']);
const hit = index.search('someone plays the guitar', 1)[0];
const inWorker = await new Promise((resolve, reject) => {
  const worker = new Worker(new URL('./worker.js', import.meta.url));
  worker.once('message', resolve);
  worker.once('error', reject);
});
console.log(JSON.stringify({ version: await version(), name: model.info.name, dims: model.dims,
                             length: vector.length, hit: hit.id, none: index.search('zzqqxx').length, inWorker,
                             resolved: import.meta.resolve('swe-embeddings') }));
`);
  writeFileSync(join(project.dir, 'worker.js'), `
import { loadModel } from 'swe-embeddings';
import { parentPort } from 'node:worker_threads';
const model = await loadModel();
parentPort.postMessage(Array.from(model.encode('a man is playing a guitar').subarray(0, 3)));
`);
  const out = JSON.parse(execFileSync(process.execPath, ['main.js'], { cwd: project.dir, encoding: 'utf8' }));
  assert.equal(out.version, version);
  assert.equal(out.name, 'swe-en-use-lite-large-para');
  assert.equal(out.length, out.dims);
  assert.equal(out.hit, 1);
  assert.equal(out.none, 0, 'a query without a known word has no hits');
  assert.equal(out.inWorker.length, 3);
  assert.ok(out.resolved.startsWith(`file://${project.dir}/node_modules/swe-embeddings/`), out.resolved);
});

// What each page must show: the default model, loaded with progress up to its size, ranking right, in
// the Cache API, and read from there on the second visit.
function checkPage({ first, second, modelRequests }, size) {
  assert.equal(first.error, undefined, first.error);
  assert.equal(second.error, undefined, second.error);
  assert.equal(first.name, 'swe-en-use-lite-large-para');
  assert.equal(first.vector.length, first.dims);
  assert.equal(first.best, 'a man is playing a guitar');
  assert.deepEqual(first.progress.at(-1), { loaded: size, total: size });
  assert.ok(first.progress.length > 3, `progress reported ${first.progress.length} times`);
  for (let i = 1; i < first.progress.length; ++i) assert.ok(first.progress[i].loaded >= first.progress[i - 1].loaded);
  assert.equal(first.cached, 1);
  assert.deepEqual(second.vector, first.vector);
  assert.equal(modelRequests, 1, 'the second visit must read the model from the Cache API');
}

const noChromium = existsSync(executablePath) ? false : `${executablePath} is missing (apt-get install chromium)`;
const modelSize = () => statSync(join(project.dir, 'node_modules/swe-embeddings-model-en/swe-en-use-lite-large-para.swe')).size;

test('a page bundled with esbuild from the installed packages runs in chromium, cached on reload',
     { skip: noChromium }, async () => {
  const site = await buildEsbuildPage(project.dir);
  const visits = await runPage(site, /^\/swe-en-use-lite-large-para\.swe$/);
  checkPage(visits, modelSize());
  assert.deepEqual(visits.first.again, visits.first.vector, 'the model through the file loader encodes the same');
});

test('a page built with Vite from the installed packages runs in chromium (assets emitted by Vite)',
     { skip: noChromium }, async () => {
  const site = await buildVitePage(project.dir);
  checkPage(await runPage(site, /\.swe$/), modelSize());
});
