// Assembles the static site that server.mjs (or any static host) serves, in web-demo/build/site/:
// the page (index.html, style.css, main.mjs, worker.mjs, sw.js), the npm package swe-embeddings as a
// user installs it (its package.json "files", resolved through node_modules), the model as model.swe,
// the collection (web-demo/build/corpus.json.gz, from build-corpus.mjs) and assets.json, the list that
// sw.js keeps for offline use (all but the model, which the package caches).
//
// usage: node web-demo/scripts/build-site.mjs [--print-model]
// env:   SWE_DEMO_MODEL=path/to/model.swe overrides MODEL for one build.
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The model the demo serves, relative to the repository root: the one line to change for another model. */
export const MODEL = 'models/swe-en-use-lite-large.swe';

const PAGE_FILES = ['index.html', 'style.css', 'main.mjs', 'worker.mjs', 'sw.js'];
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

function main() {
  const model = resolve(root, process.env.SWE_DEMO_MODEL || MODEL);
  if (process.argv.includes('--print-model')) {
    console.log(relative(root, model));
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
  if (!existsSync(model)) fail(`${model} is missing (bash scripts/make-placeholder-model.sh)`);
  if (!existsSync(corpus)) fail(`${corpus} is missing (node web-demo/scripts/build-corpus.mjs)`);

  const site = join(demo, 'build/site');
  const staging = `${site}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  for (const file of PAGE_FILES) copy(join(demo, file), join(staging, file));
  for (const entry of [...pkg.files, 'package.json']) {
    if (existsSync(join(pkgDir, entry))) copy(join(pkgDir, entry), join(staging, 'vendor/swe-embeddings', entry));
  }
  copy(model, join(staging, 'model.swe'));
  copy(corpus, join(staging, 'corpus.json.gz'));
  // The model is cached by swe-embeddings itself (worker.mjs), not by sw.js.
  const assets = ['./', ...listFiles(staging).filter((f) => f !== 'sw.js' && f !== 'model.swe')];
  writeFileSync(join(staging, 'assets.json'), `${JSON.stringify({ built: new Date().toISOString(), assets }, null, 1)}\n`);
  rmSync(site, { recursive: true, force: true });
  renameSync(staging, site);
  const bytes = listFiles(site).reduce((n, f) => n + statSync(join(site, f)).size, 0);
  console.log(`build-site: ${relative(root, site)}/: ${assets.length} files, ${(bytes / 1e6).toFixed(1)} MB ` +
    `(model ${relative(root, model)}, swe-embeddings ${pkg.version})`);
}

main();
