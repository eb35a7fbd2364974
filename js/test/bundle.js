// The bundler checks of the pack test: pages built with esbuild and with Vite inside a project where
// the release tarballs were installed (so only its node_modules is resolved), served on 127.0.0.1 and
// run in Debian's chromium with playwright-core (never `playwright install`). env: SWE_CHROMIUM.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { build as viteBuild } from 'vite';

import { startServer } from '../../web-demo/server.mjs';

export const executablePath = process.env.SWE_CHROMIUM || '/usr/bin/chromium';

// Both pages load the default model with loadModel() and no source once the model package was imported
// (its URL comes from import.meta.url), streamed with progress into the Cache API, and report it in
// `result`, which each page sets as window.result when it is done.
const LOAD_AND_REPORT = `
  const progress = [];
  const model = await loadModel({ cache: true, onProgress: (p) => progress.push(p) });
  const hits = model.rank('someone plays music', ['stock markets fell', 'a man is playing a guitar']);
  const result = { name: model.info.name, dims: model.dims, vector: Array.from(model.encode('hi')), progress,
                   best: hits[0].text, cached: (await (await caches.open('swe-embeddings')).keys()).length };
`;
const CATCH = `catch (error) { window.result = { error: String(error?.stack ?? error) }; }`;

// esbuild does not rewrite new URL(…, import.meta.url): the wasm comes through the package's exports
// and the file loader, the default model is served next to the bundle, and the model is loaded once
// more through the file loader (it must encode the same).
const ESBUILD_PAGE = `
import { initialize, loadModel } from 'swe-embeddings';
import wasmUrl from 'swe-embeddings/dist/swe.wasm';
import 'swe-embeddings-model-en';
import modelFile from 'swe-embeddings-model-en/swe-en-use-lite-large-para.swe';
try {
  await initialize({ wasmUrl });
  ${LOAD_AND_REPORT}
  const again = await loadModel(new URL(modelFile, import.meta.url));
  result.again = Array.from(again.encode('hi'));
  window.result = result;  // last: the test reads it as soon as it is set
} ${CATCH}
`;

// Vite emits both files itself from the packages' new URL(…, import.meta.url), and the WorkerPool's
// worker from its new Worker(new URL(…)) (as a classic script by default): two workers encode as the page does.
const VITE_PAGE = `
import { createWorkerPool, loadModel } from 'swe-embeddings';
import { modelUrl } from 'swe-embeddings-model-en';
try {
  ${LOAD_AND_REPORT}
  const pool = await createWorkerPool(modelUrl, { workers: 2, cache: true });
  result.pooled = Array.from((await pool.encode(['a man', 'hi'])).subarray(model.dims));
  await pool.close();
  window.result = result;
} ${CATCH}
`;

const HTML = (script) => `<!doctype html><meta charset="utf-8"><script type="module" src="${script}"></script>\n`;

/** Bundles the esbuild page in `project` into project/esbuild-site/; returns the site's folder. */
export async function buildEsbuildPage(project) {
  const site = join(project, 'esbuild-site');
  mkdirSync(site, { recursive: true });
  writeFileSync(join(project, 'esbuild-page.js'), ESBUILD_PAGE);
  writeFileSync(join(site, 'index.html'), HTML('esbuild-page.js'));
  await esbuild.build({
    absWorkingDir: project, entryPoints: ['esbuild-page.js'], bundle: true, format: 'esm', platform: 'browser',
    outdir: 'esbuild-site', loader: { '.wasm': 'file', '.swe': 'file' }, logLevel: 'error',
  });
  copyFileSync(join(project, 'node_modules/swe-embeddings-model-en/swe-en-use-lite-large-para.swe'),
               join(site, 'swe-en-use-lite-large-para.swe'));
  return site;
}

/** Builds the Vite page in project/vite/ (vite build) into project/vite/dist/; returns that folder. */
export async function buildVitePage(project) {
  const root = join(project, 'vite');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'main.js'), VITE_PAGE);
  writeFileSync(join(root, 'index.html'), HTML('./main.js'));
  await viteBuild({ root, configFile: false, logLevel: 'error', build: { target: 'es2022', outDir: 'dist' } });
  return join(root, 'dist');
}

/**
 * Serves `site`, opens it in chromium twice (the second visit must take the default model from the
 * Cache API) and returns { first, second, modelRequests } (window.result of each visit, and how many
 * requests for a path matching `modelPath` the server had).
 */
export async function runPage(site, modelPath) {
  const { server, url } = await startServer({ root: site, port: 0 });
  let modelRequests = 0;
  server.on('request', (request) => { if (modelPath.test(request.url)) ++modelRequests; });
  const profile = mkdtempSync(join(tmpdir(), 'swe-bundle-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    const visit = async () => {
      await page.goto(url);
      await page.waitForFunction(() => window.result !== undefined, null, { timeout: 120_000 });
      return page.evaluate(() => window.result);
    };
    const first = await visit();
    const second = await visit();
    return { first, second, modelRequests };
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}
