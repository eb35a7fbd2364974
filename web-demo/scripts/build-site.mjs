// Assembles the static site that server.mjs (or any static host) serves, in web-demo/build/site/:
// the page (index.html, style.css, main.mjs, worker.mjs, models.mjs, sw.js), the npm package
// swe-embeddings as a user installs it (its package.json "files", resolved through node_modules), the
// models of models.mjs (the default as model.swe, the multilingual one as model-multi.swe when its
// source exists), the prebuilt index of the collection for each model that has one in models.mjs
// (`swe index build MODEL --docs passages.jsonl --dtype int8`: every passage with its address's year,
// president and party as metadata), models.json (the models copied and the collection's facts), the
// collection (web-demo/build/corpus.json.gz, from build-corpus.mjs: what a model without an index
// embeds in the page) and assets.json, the list that sw.js keeps for offline use (all but the models
// and indexes, which the package caches once loaded, and the collection, which sw.js keeps once a model
// without an index fetched it).
//
// usage: node web-demo/scripts/build-site.mjs [--print-model]    (--print-model: the default model's path)
// env:   SWE_DEMO_MODEL=path/to/model.swe overrides the default model's source for one build,
//        SWE_DEMO_MULTI_MODEL=path/to/model.swe the multilingual one's; SWE_CLI the swe program (default
//        build/native/bin/swe).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { MODELS } from '../models.mjs';

// The environment variable that overrides each model's source for one build.
const OVERRIDES = { en: 'SWE_DEMO_MODEL', multi: 'SWE_DEMO_MULTI_MODEL' };

const PAGE_FILES = ['index.html', 'style.css', 'main.mjs', 'worker.mjs', 'models.mjs', 'sw.js'];
const demo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(demo, '..');

function fail(message) {
  console.error(`build-site: ${message}`);
  process.exit(1);
}

/** Copies a file or a directory tree. */
function copy(from, to) {
  if (statSync(from).isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) copy(join(from, name), join(to, name));
  } else {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
}

/** Every file under dir, as paths relative to base with forward slashes. */
function listFiles(dir, base = dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path, base) : [relative(base, path).split('\\').join('/')];
  });
}

/**
 * Writes the prebuilt index of the collection for `model` at `out` with the swe program: every
 * passage as a document (id: its number), its address's year, president and party as metadata.
 */
function buildIndex(corpus, model, out) {
  const cli = process.env.SWE_CLI || join(root, 'build/native/bin/swe');
  if (!existsSync(cli)) fail(`${cli} is missing (bash scripts/build.sh, or set SWE_CLI)`);
  const docs = join(demo, 'build/passages.jsonl');
  const lines = corpus.passages.map((text, i) => {
    const [year, president, party] = corpus.addresses[corpus.address[i]];
    return JSON.stringify({ id: String(i), text, metadata: { year, president, party } });
  });
  writeFileSync(docs, `${lines.join('\n')}\n`);
  execFileSync(cli, ['index', 'build', model, '--docs', docs, '-o', out, '--dtype', 'int8'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Each model of models.mjs with the path its file is read from (env overrides applied). */
function sources() {
  return MODELS.map((m) => ({ ...m, path: resolve(root, process.env[OVERRIDES[m.id]] || m.source) }));
}

function main() {
  const [model, ...others] = sources();
  if (process.argv.includes('--print-model')) {
    console.log(relative(root, model.path));
    return;
  }
  const require = createRequire(import.meta.url);
  let pkgJson;
  try {
    pkgJson = require.resolve('swe-embeddings/package.json');
  } catch {
    fail('cannot resolve swe-embeddings (run npm install in the repository root)');
  }
  const pkg = require(pkgJson);
  const pkgDir = dirname(pkgJson);
  const corpus = join(demo, 'build/corpus.json.gz');
  if (!existsSync(join(pkgDir, 'dist/swe.wasm'))) fail(`${pkgDir}/dist/swe.wasm is missing (bash scripts/build-wasm.sh)`);
  if (!existsSync(model.path)) fail(`${model.path} is missing (bash scripts/make-placeholder-model.sh)`);
  if (!existsSync(corpus)) fail(`${corpus} is missing (node web-demo/scripts/build-corpus.mjs)`);
  const models = [model];
  for (const m of others) {
    if (existsSync(m.path)) models.push(m);
    else console.log(`build-site: ${relative(root, m.path)} is missing: the site offers no ${m.id} model`);
  }

  const site = join(demo, 'build/site');
  const staging = `${site}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  for (const file of PAGE_FILES) copy(join(demo, file), join(staging, file));
  for (const entry of [...pkg.files, 'package.json']) {
    if (existsSync(join(pkgDir, entry))) copy(join(pkgDir, entry), join(staging, 'vendor/swe-embeddings', entry));
  }
  const collection = JSON.parse(gunzipSync(readFileSync(corpus)));
  for (const m of models) {
    copy(m.path, join(staging, m.file));
    if (m.index) buildIndex(collection, m.path, join(staging, m.index));
  }
  const listed = models.map((m) => ({ id: m.id, file: m.file, bytes: statSync(m.path).size, index: m.index ?? null }));
  const facts = { title: collection.title, passages: collection.passages.length, addresses: collection.addresses.length };
  writeFileSync(join(staging, 'models.json'), `${JSON.stringify({ models: listed, collection: facts }, null, 1)}\n`);
  copy(corpus, join(staging, 'corpus.json.gz'));
  // Models and indexes are cached by swe-embeddings itself (worker.mjs), not by sw.js; the collection
  // is fetched only by a model without an index (sw.js keeps it then).
  const assets = ['./', ...listFiles(staging).filter((f) => f !== 'sw.js' && f !== 'corpus.json.gz' && !/\.sw[ei]$/.test(f))];
  writeFileSync(join(staging, 'assets.json'), `${JSON.stringify({ built: new Date().toISOString(), assets }, null, 1)}\n`);
  rmSync(site, { recursive: true, force: true });
  renameSync(staging, site);
  const bytes = listFiles(site).reduce((n, f) => n + statSync(join(site, f)).size, 0);
  const modelList = models.map((m) => `${m.id} ${relative(root, m.path)}`).join(', ');
  console.log(`build-site: ${relative(root, site)}/: ${assets.length} files, ${(bytes / 1e6).toFixed(1)} MB ` +
    `(models: ${modelList}; swe-embeddings ${pkg.version})`);
}

main();
