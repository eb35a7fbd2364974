// Assembles the static site that server.mjs (or any static host) serves, in web-demo/build/site/:
// the page (index.html, style.css, main.mjs, worker.mjs, models.mjs, sw.js), the npm package
// swe-embeddings as a user installs it (its package.json "files", resolved through node_modules), the
// models of models.mjs (the default as model.swe, the multilingual one as model-multi.swe when its
// source exists; models.json lists those copied), the collection (web-demo/build/corpus.json.gz, from
// build-corpus.mjs) and assets.json, the list that sw.js keeps for offline use (all but the models,
// which the package caches once loaded).
//
// usage: node web-demo/scripts/build-site.mjs [--print-model]    (--print-model: the default model's path)
// env:   SWE_DEMO_MODEL=path/to/model.swe overrides the default model's source for one build,
//        SWE_DEMO_MULTI_MODEL=path/to/model.swe the multilingual one's.
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
  for (const m of models) copy(m.path, join(staging, m.file));
  const listed = models.map((m) => ({ id: m.id, file: m.file, bytes: statSync(m.path).size }));
  writeFileSync(join(staging, 'models.json'), `${JSON.stringify({ models: listed }, null, 1)}\n`);
  copy(corpus, join(staging, 'corpus.json.gz'));
  // The models are cached by swe-embeddings itself (worker.mjs), not by sw.js.
  const assets = ['./', ...listFiles(staging).filter((f) => f !== 'sw.js' && !f.endsWith('.swe'))];
  writeFileSync(join(staging, 'assets.json'), `${JSON.stringify({ built: new Date().toISOString(), assets }, null, 1)}\n`);
  rmSync(site, { recursive: true, force: true });
  renameSync(staging, site);
  const bytes = listFiles(site).reduce((n, f) => n + statSync(join(site, f)).size, 0);
  const modelList = models.map((m) => `${m.id} ${relative(root, m.path)}`).join(', ');
  console.log(`build-site: ${relative(root, site)}/: ${assets.length} files, ${(bytes / 1e6).toFixed(1)} MB ` +
    `(models: ${modelList}; swe-embeddings ${pkg.version})`);
}

main();
