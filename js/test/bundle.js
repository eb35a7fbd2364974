// The bundler check of the pack test: builds a page with esbuild inside a project where the release
// tarballs were installed (so only node_modules is resolved), serves it on 127.0.0.1 and runs it in
// Debian's chromium with playwright-core (never `playwright install`). env: SWE_CHROMIUM.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';

import { startServer } from '../../web-demo/server.mjs';

export const executablePath = process.env.SWE_CHROMIUM || '/usr/bin/chromium';

// What a user writes: the wasm through the package's exports and esbuild's file loader, the default
// model with loadModel() and no source (its URL comes from import.meta.url: the .swe is served next to
// the bundle), streamed with progress into the Cache API; and the model again through the file loader.
const PAGE = `
import { initialize, loadModel } from 'swe-embeddings';
import wasmUrl from 'swe-embeddings/dist/swe.wasm';
import modelFile from 'swe-embeddings-model-en/swe-en-use-lite-large.swe';
try {
  await initialize({ wasmUrl });
  const progress = [];
  const model = await loadModel({ cache: true, onProgress: (p) => progress.push(p) });
  const again = await loadModel(new URL(modelFile, import.meta.url));
  const hits = model.rank('someone plays music', ['stock markets fell', 'a man is playing a guitar']);
  window.result = { name: model.info.name, dims: model.dims, vector: Array.from(model.encode('hi')),
                    same: model.encode('hi').every((x, i) => x === again.encode('hi')[i]), progress,
                    best: hits[0].text, cached: (await (await caches.open('swe-embeddings')).keys()).length };
} catch (error) {
  window.result = { error: String(error?.stack ?? error) };
}
`;

/** Bundles the page in `project` into project/site/ and copies the default model next to it. */
export async function buildPage(project) {
  const site = join(project, 'site');
  mkdirSync(site, { recursive: true });
  writeFileSync(join(project, 'page.js'), PAGE);
  writeFileSync(join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="page.js"></script>\n');
  await esbuild.build({
    absWorkingDir: project, entryPoints: ['page.js'], bundle: true, format: 'esm', platform: 'browser',
    outdir: 'site', loader: { '.wasm': 'file', '.swe': 'file' }, logLevel: 'error',
  });
  copyFileSync(join(project, 'node_modules/swe-embeddings-model-en/swe-en-use-lite-large.swe'),
               join(site, 'swe-en-use-lite-large.swe'));
  return site;
}

/**
 * Serves `site`, opens it in chromium twice (the second visit must take the default model from the
 * Cache API) and returns { first, second, modelRequests } (window.result of each visit, and how many
 * times the server was asked for the default model's file).
 */
export async function runPage(site) {
  const { server, url } = await startServer({ root: site, port: 0 });
  let modelRequests = 0;
  server.on('request', (request) => { if (request.url === '/swe-en-use-lite-large.swe') ++modelRequests; });
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
