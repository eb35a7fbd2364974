#!/usr/bin/env node
// The web demo in headless Chromium (Debian's chromium through npm playwright-core): time to first
// search, cold (a fresh browser profile: no HTTP cache, Cache API, service worker or code cache) and
// warm (the same page reloaded), and building the collection's index in the page with a WorkerPool of
// 1 and of N workers (N = navigator.hardwareConcurrency).
//
//   node bench/web_demo_bench.mjs [--rounds N] [--query TEXT] [--pool-rounds N]
//
// Needs the built site (bash scripts/web-demo.sh --build-only). Time to first search: the page is
// opened with ?q=QUERY and the time from navigation start to its first results shown is the figure
// (window.sweDemo.firstResultsMs), with the load's breakdown (ms since navigation: the worker's start,
// the WebAssembly module ready, the model's and the index's downloads and loads). Each round is a
// fresh profile, visited twice (cold, then warm). Output: one JSON object per line on stdout (each
// round, then the medians), a summary on stderr.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { startServer } from '../web-demo/server.mjs';
import { fail, median, parseArgs } from './util.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const site = join(root, 'web-demo/build/site');
const executablePath = process.env.SWE_CHROMIUM || '/usr/bin/chromium';
const args = parseArgs(process.argv.slice(2), { rounds: '5', query: 'smallpox vaccination', 'pool-rounds': '3' });
if (!existsSync(join(site, 'passages.swi'))) fail(`${site} is not built (bash scripts/web-demo.sh --build-only)`);

const { server, url } = await startServer({ root: site, port: 0 });
const rounds = [];
try {
  for (let r = 0; r < Number(args.rounds); ++r) {
    const result = await withBrowser(async (page) => ({ cold: await firstSearch(page), warm: await firstSearch(page) }));
    rounds.push(result);
    console.log(JSON.stringify({ round: r, ...result }));
  }
  const pool = await withBrowser((page) => poolBuild(page, Number(args['pool-rounds'])));
  const summary = { bench: 'web demo time to first search', rounds: rounds.length, query: args.query,
                    cold_ms: median(rounds.map((x) => x.cold.firstResultsMs)),
                    warm_ms: median(rounds.map((x) => x.warm.firstResultsMs)),
                    cold_breakdown: medians(rounds.map((x) => x.cold)), warm_breakdown: medians(rounds.map((x) => x.warm)),
                    pool };
  console.log(JSON.stringify(summary));
  console.error(`time to first search (median of ${rounds.length}): cold ${summary.cold_ms} ms, warm ${summary.warm_ms} ms ` +
                '(targets: 1500 and 1000)');
  console.error(`index of ${pool.passages} passages built in the page: ${pool.runs.map((p) => `${p.workers} workers ` +
                `${p.ms} ms`).join(', ')}`);
} finally {
  server.close();
}

// Runs body(page) in a fresh persistent profile of headless chromium.
async function withBrowser(body) {
  const profile = mkdtempSync(join(tmpdir(), 'swe-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath, headless: true, viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    return await body(context.pages()[0] ?? await context.newPage());
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

// Opens the page with the query and returns the time to its first results and the load's breakdown.
async function firstSearch(page) {
  await page.goto(`${url}?q=${encodeURIComponent(args.query)}`);
  await page.waitForFunction(() => window.sweDemo.firstResultsMs !== null, null, { timeout: 120_000 });
  // The service worker and the caches are filled after the first results: let them finish.
  await page.waitForFunction(async () => (await caches.keys()).includes('swe-demo-v1'), null, { timeout: 60_000 });
  const { firstResultsMs, load } = await page.evaluate(() => window.sweDemo);
  const at = Object.fromEntries(Object.entries(load.at).map(([key, ms]) => [key, Math.round(ms)]));
  return { firstResultsMs: Math.round(firstResultsMs), ...at };
}

// Builds the collection's index in the page (the demo's package and corpus) with a pool of 1 and of
// hardwareConcurrency workers, `times` each, alternating: median ms of pool.encode + addDocs.
async function poolBuild(page, times) {
  await page.goto(url);
  await page.waitForFunction(() => window.sweDemo.ready === true, null, { timeout: 120_000 });
  return page.evaluate(async (times) => {
    const swe = await import('./vendor/swe-embeddings/src/index.js');
    const response = await fetch('corpus.json.gz');
    const corpus = JSON.parse(await new Response(response.body.pipeThrough(new DecompressionStream('gzip'))).text());
    const model = await swe.loadModel('model.swe', { cache: true });
    const counts = [...new Set([1, navigator.hardwareConcurrency || 1])];
    const ms = Object.fromEntries(counts.map((n) => [n, []]));
    let reference = null;
    for (let t = 0; t < times; ++t) {
      for (const workers of counts) {
        const pool = await swe.createWorkerPool('model.swe', { cache: true, workers });
        const t0 = performance.now();
        const vectors = await pool.encode(corpus.passages);
        const index = model.createIndex({ dtype: 'int8' });
        index.addDocs(corpus.passages.map((text, i) => ({ id: String(i), text })), { vectors });
        ms[workers].push(performance.now() - t0);
        await pool.close();
        const saved = index.save();
        index.dispose();
        // The same index, whichever the number of workers.
        reference ??= saved;
        if (saved.length !== reference.length || saved.some((b, i) => b !== reference[i])) throw new Error('indexes differ');
      }
    }
    const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
    return { passages: corpus.passages.length, hardwareConcurrency: navigator.hardwareConcurrency,
             runs: counts.map((workers) => ({ workers, ms: Math.round(med(ms[workers])) })) };
  }, times);
}

function medians(list) {
  return Object.fromEntries(Object.keys(list[0]).map((key) => [key, median(list.map((x) => x[key]))]));
}
