#!/usr/bin/env node
// The npm package's two backends in Node against the C API, in one run: texts per second of
// model.encode(texts, { out }) (single thread, the same loop on each side) with the native addon
// (swe.node) and with the WebAssembly build, and of swe_model_encode_batch from C
// (build/native/bench/wasm_vs_native), on two corpora: the STS-B dev sentences and the web demo's
// 49-word passages. Inside each backend's process, encode() also takes turns with the bare C call it
// makes (texts written into memory once): the ratio of the two is what the JS costs, measured with the
// same caches and the same machine noise (the robust figure on a busy machine). Then the event loop during model.encodeAsync of 100,000 texts on each backend: its
// delay (perf_hooks.monitorEventLoopDelay, and the largest gap between 1 ms timers), and the texts/s.
//
//   node bench/node_backends.mjs [--rounds N] [--min-time S] [--warmup S] [--async-texts N]
//                                [--model FILE.swe] [--data DIR] [--native PATH] [--addon PATH]
//
// Each side runs in its own process (SWE_BACKEND=native or wasm; the C API bench), the sides taking
// turns for --rounds rounds so that machine noise hits all alike; each measurement encodes the corpus
// repeatedly for --warmup seconds, then for --min-time seconds timed. Medians over rounds. Output: one
// JSON object per line on stdout, a table on stderr. Needs cmake --preset native (the C API bench),
// the node preset (the addon) and scripts/build-wasm.sh.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

import { fail, median, parseArgs, readSentences, round } from './util.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = parseArgs(process.argv.slice(2), {
  rounds: '5', 'min-time': '1', warmup: '0.5', 'async-texts': '100000',
  model: join(root, 'models/swe-en-use-lite-large-para.swe'),
  data: process.env.SWE_SHARED_DATA ?? join(root, '../shared/data'),
  native: join(root, 'build/native/bench/wasm_vs_native'),
  addon: join(root, 'build/node/node/swe.node'),
  mode: '', backend: '', texts: '',  // --mode rate|async: one side's process (what the parent runs)
});

if (args.mode === 'rate') {
  await childRate();
  process.exit(0);
}
if (args.mode === 'async') {
  await childAsync();
  process.exit(0);
}
if (args.mode !== '') fail(`unknown --mode ${args.mode}`);

for (const [what, path] of [['model', args.model], ['C API bench (cmake --preset native)', args.native],
                            ['addon (cmake --preset node)', args.addon], ['wasm (scripts/build-wasm.sh)', join(root, 'js/dist/swe.wasm')]]) {
  if (!existsSync(path)) fail(`${what} not found: ${path}`);
}
const corpusFile = join(root, 'web-demo/build/corpus.json.gz');
if (!existsSync(corpusFile)) execFileSync(process.execPath, [join(root, 'web-demo/scripts/build-corpus.mjs')], { stdio: 'inherit' });
const corpora = {
  sentences: readSentences(join(args.data, 'eval/sts/stsbenchmark/sts-dev.csv')),
  passages: JSON.parse(gunzipSync(readFileSync(corpusFile))).passages.map((p) => p.replace(/\s+/g, ' ')),
};
const tmp = mkdtempSync(join(tmpdir(), 'swe-node-bench-'));
const files = {};
for (const [name, texts] of Object.entries(corpora)) {
  files[name] = join(tmp, `${name}.txt`);
  writeFileSync(files[name], texts.join('\n') + '\n');
}
const env = (backend) => ({ ...process.env, SWE_BACKEND: backend, SWE_NATIVE_ADDON: args.addon });
const node = (backend, extra) => JSON.parse(execFileSync(process.execPath,
  [fileURLToPath(import.meta.url), ...extra, '--model', args.model], { env: env(backend), encoding: 'utf8' }));

const results = {};
try {
  for (const [name, file] of Object.entries(files)) {
    const rates = { capi: [], native: [], wasm: [], native_c: [], wasm_c: [] };
    let kernels = '';
    for (let r = 0; r < Number(args.rounds); ++r) {
      const c = JSON.parse(execFileSync(args.native, [args.model, file, '--repeats', '1', '--min-time', args['min-time'],
                                                     '--warmup', args.warmup], { encoding: 'utf8' }));
      rates.capi.push(c.encode_sentences_per_s);
      kernels = c.kernels;
      for (const backend of ['native', 'wasm']) {
        const timing = ['--min-time', args['min-time'], '--warmup', args.warmup];
        const side = node(backend, ['--mode', 'rate', '--backend', backend, '--texts', file, ...timing]);
        rates[backend].push(side.texts_per_s);
        rates[`${backend}_c`].push(side.c_texts_per_s);
      }
      if (process.env.SWE_BENCH_VERBOSE) console.error(`${name} round ${r}: ${JSON.stringify(Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, Math.round(v.at(-1))])))}`);
    }
    const m = Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, Math.round(median(v))]));
    results[name] = { corpus: name, texts: corpora[name].length,
                      words_per_text: round(corpora[name].reduce((n, t) => n + t.split(' ').length, 0) / corpora[name].length, 1),
                      rounds: Number(args.rounds), kernels, capi_texts_per_s: m.capi, native_texts_per_s: m.native,
                      wasm_texts_per_s: m.wasm, native_over_capi: round(m.native / m.capi, 3),
                      wasm_over_capi: round(m.wasm / m.capi, 3), native_over_wasm: round(m.native / m.wasm, 2),
                      // In the addon's own process: encode() over the bare C call, turn about (the robust ratio).
                      native_c_texts_per_s: m.native_c, native_over_c_same_process: round(median(ratios(rates.native, rates.native_c)), 3),
                      wasm_c_texts_per_s: m.wasm_c, wasm_over_c_same_process: round(median(ratios(rates.wasm, rates.wasm_c)), 3) };
    console.log(JSON.stringify(results[name]));
  }
  const asyncTexts = [];
  for (let i = 0; asyncTexts.length < Number(args['async-texts']); ++i) {
    asyncTexts.push(corpora.passages[i % corpora.passages.length], corpora.sentences[i % corpora.sentences.length]);
  }
  const asyncFile = join(tmp, 'async.txt');
  writeFileSync(asyncFile, asyncTexts.slice(0, Number(args['async-texts'])).join('\n') + '\n');
  for (const backend of ['native', 'wasm']) {
    results[`async_${backend}`] = node(backend, ['--mode', 'async', '--backend', backend, '--texts', asyncFile]);
    console.log(JSON.stringify(results[`async_${backend}`]));
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const fmt = (x) => x.toLocaleString('en-US');
console.error(`encode texts/s, medians of ${args.rounds} rounds (C API kernels: ${results.sentences.kernels}):`);
for (const r of [results.sentences, results.passages]) {
  console.error(`  ${r.corpus.padEnd(10)} (${fmt(r.texts)}, ${r.words_per_text} words): C API ${fmt(r.capi_texts_per_s)}, ` +
                `addon ${fmt(r.native_texts_per_s)} (${r.native_over_capi}x), wasm ${fmt(r.wasm_texts_per_s)} (${r.wasm_over_capi}x)`);
  console.error(`  ${''.padEnd(10)} in the addon's process, encode() over the same C call: ${r.native_over_c_same_process}x ` +
                `(C call ${fmt(r.native_c_texts_per_s)}/s); in wasm's: ${r.wasm_over_c_same_process}x`);
}
for (const backend of ['native', 'wasm']) {
  const a = results[`async_${backend}`];
  console.error(`  encodeAsync of ${fmt(a.texts)} texts (${backend}): ${fmt(a.texts_per_s)} texts/s in ${a.ms} ms; event loop ` +
                `delay max ${a.delay_max_ms} ms, p99 ${a.delay_p99_ms} ms; largest 1 ms-timer gap ${a.timer_gap_max_ms} ms ` +
                `(idle, as long: max ${a.idle_delay_max_ms}, p99 ${a.idle_delay_p99_ms}, gap ${a.idle_timer_gap_max_ms}; ` +
                `a blocking encode() of them holds it ${a.sync_ms} ms)`);
}
console.error('  target: addon >= 0.85x the C API; the event loop never held more than a few ms');

// ---- one side's process ----

function readTexts() { return readFileSync(args.texts, 'utf8').split('\n').filter((line) => line !== ''); }

// One backend's process: model.encode(texts, { out }) and, in the same process and thread, the same C
// call (swe_model_encode_batch through the binding, on texts written into memory once: the C API with
// no JS around it), taking turns in slices of 50 ms so that the machine's noise hits both alike.
async function childRate() {
  const { backend, initialize, loadModel } = await import(join(root, 'js/src/index.js'));
  const texts = readTexts();
  const bytes = readFileSync(args.model);
  const model = await loadModel(bytes);
  if (await backend() !== args.backend) fail(`the ${await backend()} backend runs, not ${args.backend}`);
  const dims = model.dims;
  const out = new Float32Array(texts.length * dims);
  const binding = await initialize();
  const handle = binding.modelLoad(bytes);
  const recordsAt = 8;
  const textsAt = recordsAt + binding.TEXT.size * texts.length;
  const scratch = binding.malloc(textsAt + texts.reduce((n, t) => n + t.length * 3 + 1, 0));
  binding.view(Uint32Array, scratch, 1)[0] = dims;
  binding.writeTexts(texts, scratch + recordsAt, scratch + textsAt);
  const outPtr = binding.malloc(4 * dims * texts.length);
  const sides = {
    js: () => model.encode(texts, { out }),
    c: () => binding.check(binding.c.swe_model_encode_batch(handle, scratch + recordsAt, texts.length, scratch, outPtr,
                                                            texts.length * dims, 0), 'encode'),
  };
  const time = { js: 0, c: 0 };
  const done = { js: 0, c: 0 };
  const run = (seconds, record) => {
    for (const end = performance.now() + seconds * 1000; performance.now() < end;) {
      for (const [name, call] of Object.entries(sides)) {
        const t0 = performance.now();
        let n = 0;
        do { call(); ++n; } while (performance.now() - t0 < 50);
        if (record) { time[name] += performance.now() - t0; done[name] += n * texts.length; }
      }
    }
  };
  run(Number(args.warmup), false);
  run(Number(args['min-time']), true);
  if (!binding.view(Float32Array, outPtr, texts.length * dims).every((x, i) => Object.is(x, out[i]))) fail('the C call and encode() differ');
  console.log(JSON.stringify({ backend: args.backend, texts_per_s: done.js / time.js * 1000, c_texts_per_s: done.c / time.c * 1000 }));
}

async function childAsync() {
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const { backend, loadModel } = await import(join(root, 'js/src/index.js'));
  const texts = readTexts();
  const model = await loadModel(readFileSync(args.model));
  if (await backend() !== args.backend) fail(`the ${await backend()} backend runs, not ${args.backend}`);
  await model.encodeAsync(texts.slice(0, 20000));  // warm up (the JIT, the thread pool)
  const t0 = performance.now();
  const expected = model.encode(texts);
  const syncMs = performance.now() - t0;
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  histogram.enable();
  const t1 = performance.now();
  const vectors = await model.encodeAsync(texts);
  const ms = performance.now() - t1;
  histogram.disable();
  // The floor: the same measures while the process only waits, as long (a busy machine delays any
  // process's timers; that is not encodeAsync's doing).
  const encodeGap = gap;
  const idle = monitorEventLoopDelay({ resolution: 1 });
  gap = 0;
  last = performance.now();
  idle.enable();
  await new Promise((resolve) => setTimeout(resolve, ms));
  idle.disable();
  clearInterval(timer);
  if (!Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength).equals(
    Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength))) fail('encodeAsync and encode differ');
  console.log(JSON.stringify({ bench: 'encodeAsync', backend: args.backend, texts: texts.length, ms: Math.round(ms),
                               texts_per_s: Math.round(texts.length / (ms / 1000)), sync_ms: Math.round(syncMs),
                               delay_max_ms: round(histogram.max / 1e6, 2), delay_p99_ms: round(histogram.percentile(99) / 1e6, 2),
                               delay_mean_ms: round(histogram.mean / 1e6, 2), timer_gap_max_ms: round(encodeGap, 2),
                               idle_delay_max_ms: round(idle.max / 1e6, 2), idle_delay_p99_ms: round(idle.percentile(99) / 1e6, 2),
                               idle_timer_gap_max_ms: round(gap, 2),
                               threadpool: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }));
}

function ratios(a, b) { return a.map((x, i) => x / b[i]); }
