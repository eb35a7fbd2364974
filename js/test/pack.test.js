// Packaging like a user would: js/scripts/release.sh packs swe-embeddings, swe-embeddings-model-en and
// the platform package swe-embeddings-linux-x64 (the native addon); the tarballs are installed into a
// temporary project (offline, no repository paths, no compiler, no Emscripten), then used from Node by
// package name (loadModel() with no source finds the model package; on the main thread and in a worker
// thread; the addon by default, the wasm build with SWE_BACKEND=wasm, the same vectors), and from
// pages bundled with esbuild and Vite, in chromium. Reports the sizes.
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
                         'src/backend.js', 'src/load.js', 'src/helpers.js', 'src/langchain.js', 'src/pool.js',
                         'src/pool-worker.js']);
const platformFiles = ['package.json', 'README.md', 'index.js', 'swe.node'];
const modelFiles = ['package.json', 'README.md', 'index.js', 'index.d.ts', 'swe-en-use-lite-large-para.swe',
                    'swe-en-use-lite-large-para.md'];
let project;

before(() => {
  // The wasm build exists (the other tests use it); the release script would only re-check it.
  const out = tempDir('swe-release-');
  const tarballs = execFileSync('bash', [join(jsRoot, 'scripts/release.sh'), out], {
    encoding: 'utf8', env: { ...process.env, SWE_RELEASE_SKIP_BUILD: '1' }, stdio: ['ignore', 'pipe', 'inherit'] })
    .trim().split('\n');
  const expected = ['', '-model-en', '-linux-x64', ...(projectArm64() ? ['-linux-arm64'] : [])]
    .map((name) => join(out, `swe-embeddings${name}-${version}.tgz`));
  assert.deepEqual(tarballs, expected);
  project = tempDir('swe-consumer-');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // As a user installs from a registry: the library and the model; npm takes the platform package for
  // this machine from the tarball given (offline: nothing is fetched) and skips the others.
  execFileSync(npm, ['install', ...tarballs.slice(0, 3), '--offline', '--no-audit', '--no-fund', '--no-package-lock',
                     '--loglevel=error'], { cwd: project, stdio: ['ignore', 'ignore', 'inherit'] });
  project = { dir: project, tarballs };
});

function projectArm64() { return existsSync(join(repoRoot, 'build/node-aarch64/node/swe.node')); }

function tarFiles(tarball) {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n')
    .map((f) => f.replace(/^package\//, ''));
}

test('release.sh packs the library (wasm inside), the model package and the platform package, nothing else', (t) => {
  const [lib, model, platform] = project.tarballs;
  const files = tarFiles(lib);
  for (const f of files) assert.ok(allowed.has(f), `unexpected file in the package: ${f}`);
  for (const f of allowed) assert.ok(files.includes(f), `missing from the package: ${f}`);
  assert.deepEqual(tarFiles(model).sort(), [...modelFiles].sort());
  assert.deepEqual(tarFiles(platform).sort(), [...platformFiles].sort());
  const wasm = readFileSync(join(jsRoot, 'dist/swe.wasm'));
  t.diagnostic(`${lib}: ${statSync(lib).size} bytes; ${model}: ${statSync(model).size} bytes; ` +
               `${platform}: ${statSync(platform).size} bytes; ` +
               `swe.wasm ${wasm.length} bytes, ${gzipSync(wasm, { level: 9 }).length} gzipped`);
  assert.ok(statSync(lib).size < 500_000, 'the library package should stay small');
  assert.ok(statSync(platform).size < 3_000_000, 'the platform package should stay small');
  // The library names every platform package of this version as optional; each says where it runs.
  const pkg = JSON.parse(execFileSync('tar', ['-xzOf', lib, 'package/package.json'], { encoding: 'utf8' }));
  assert.deepEqual(pkg.optionalDependencies, { 'swe-embeddings-linux-arm64': version, 'swe-embeddings-linux-x64': version });
  const platformPkg = JSON.parse(execFileSync('tar', ['-xzOf', platform, 'package/package.json'], { encoding: 'utf8' }));
  assert.deepEqual([platformPkg.name, platformPkg.os, platformPkg.cpu, platformPkg.libc],
                   ['swe-embeddings-linux-x64', ['linux'], ['x64'], ['glibc']]);
  // The addon needs nothing but glibc: no C++ runtime, no Cap'n Proto, no zstd.
  const needed = execFileSync('readelf', ['-d', join(project.dir, 'node_modules/swe-embeddings-linux-x64/swe.node')],
                              { encoding: 'utf8' }).match(/\(NEEDED\).*\[(.*)\]/g).map((l) => l.replace(/.*\[(.*)\]/, '$1'));
  assert.deepEqual(needed.sort(), ['ld-linux-x86-64.so.2', 'libc.so.6', 'libm.so.6']);
});

test('installed from the tarballs: loadModel() with no source loads the default model in Node', () => {
  writeFileSync(join(project.dir, 'main.js'), `
import { backend, loadModel, version } from 'swe-embeddings';
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
console.log(JSON.stringify({ version: await version(), backend: await backend(), name: model.info.name,
                             dims: model.dims, length: vector.length, vector: Array.from(vector), hit: hit.id,
                             none: index.search('zzqqxx').length, inWorker, saved: Array.from(index.save()),
                             resolved: import.meta.resolve('swe-embeddings') }));
`);
  writeFileSync(join(project.dir, 'worker.js'), `
import { backend, loadModel } from 'swe-embeddings';
import { parentPort } from 'node:worker_threads';
const model = await loadModel();
parentPort.postMessage([await backend(), ...model.encode('a man is playing a guitar').subarray(0, 3)]);
`);
  const run = (env) => JSON.parse(execFileSync(process.execPath, ['main.js'], { cwd: project.dir, encoding: 'utf8',
                                                                              env: { ...process.env, ...env } }));
  const clean = { SWE_BACKEND: '', SWE_NATIVE_ADDON: '' };  // what a user has: neither set
  const native = run(clean);
  const wasm = run({ ...clean, SWE_BACKEND: 'wasm' });
  for (const out of [native, wasm]) {
    assert.equal(out.version, version);
    assert.equal(out.name, 'swe-en-use-lite-large-para');
    assert.equal(out.length, out.dims);
    assert.equal(out.hit, 1);
    assert.equal(out.none, 0, 'a query without a known word has no hits');
    assert.equal(out.inWorker.length, 4);
    assert.ok(out.resolved.startsWith(`file://${project.dir}/node_modules/swe-embeddings/`), out.resolved);
  }
  assert.equal(native.backend, 'native', 'the installed platform package is used by default');
  assert.equal(native.inWorker[0], 'native');
  assert.equal(wasm.backend, 'wasm');
  assert.equal(wasm.inWorker[0], 'wasm');
  assert.deepEqual(native.vector, wasm.vector, 'the two backends\' vectors differ');
  assert.deepEqual(native.inWorker.slice(1), wasm.inWorker.slice(1));
  assert.deepEqual(native.saved, wasm.saved, 'the two backends\' index files differ');
  // Without the platform package (another platform, or npm skipped it): the wasm build, the same vectors.
  const bare = tempDir('swe-consumer-bare-');
  writeFileSync(join(bare, 'package.json'), JSON.stringify({ name: 'bare', private: true, type: 'module' }));
  execFileSync(npm, ['install', ...project.tarballs.slice(0, 2), '--offline', '--no-audit', '--no-fund', '--no-package-lock',
                     '--loglevel=error'], { cwd: bare, stdio: ['ignore', 'ignore', 'inherit'] });
  const script = "import { backend, loadModel } from 'swe-embeddings'; const m = await loadModel(); " +
                 "console.log(JSON.stringify([await backend(), Array.from(m.encode('hi'))]));";
  const [fallback, vector] = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script],
                                                     { cwd: bare, encoding: 'utf8', env: { ...process.env, ...clean } }));
  assert.equal(fallback, 'wasm');
  assert.deepEqual(vector, native.vector, 'the fallback\'s vector differs');
  assert.ok(!existsSync(join(bare, 'node_modules/swe-embeddings-linux-x64')));
});

test('the ARM64 platform package, when built, holds an AArch64 addon', {
  skip: projectArm64() ? false : 'build/node-aarch64 not built (tests/node/arm64.sh builds and tests it)',
}, () => {
  const arm64 = project.tarballs.find((t) => t.includes('-linux-arm64-'));
  assert.deepEqual(tarFiles(arm64).sort(), [...platformFiles].sort());
  const pkg = JSON.parse(execFileSync('tar', ['-xzOf', arm64, 'package/package.json'], { encoding: 'utf8' }));
  assert.deepEqual([pkg.name, pkg.os, pkg.cpu, pkg.libc], ['swe-embeddings-linux-arm64', ['linux'], ['arm64'], ['glibc']]);
  const dir = tempDir('swe-arm64-');
  execFileSync('tar', ['-xzf', arm64, '-C', dir]);
  assert.match(execFileSync('readelf', ['-h', join(dir, 'package/swe.node')], { encoding: 'utf8' }), /Machine:\s+AArch64/);
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

test('a page built with Vite from the installed packages runs in chromium (assets and the pool\'s worker emitted by Vite)',
     { skip: noChromium }, async () => {
  const site = await buildVitePage(project.dir);
  const visits = await runPage(site, /\.swe$/);
  checkPage(visits, modelSize());
  assert.deepEqual(visits.first.pooled, visits.first.vector, 'the WorkerPool\'s workers encode otherwise');
});
