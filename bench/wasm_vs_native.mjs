#!/usr/bin/env node
// Encode throughput and model load time: the wasm build in Node (the npm package in js/) vs native
// (bench/wasm_vs_native.cpp through the C API), on the same model and the same sentences, in one run.
//
//   node bench/wasm_vs_native.mjs [--model FILE.swe] [--data DIR] [--rounds N] [--min-time S]
//                                 [--warmup S] [--native PATH]
//   node bench/wasm_vs_native.mjs --base-js DIR [--base-model FILE] [--model FILE.swe] [--loads N]
//   node bench/wasm_vs_native.mjs --mode first [--rounds N] [--base-js DIR] [--model FILE.swe]
//
// Sentences: the unique STS-B dev sentences (DIR/eval/sts/stsbenchmark/sts-dev.csv, columns s1, s2;
// DIR defaults to ../shared/data beside the repository). Model: models/swe-en-use-lite-large-para.swe by
// default. The two sides alternate for --rounds rounds (machine noise hits both alike); each round
// times one model load, then encodes every sentence repeatedly for --warmup seconds (caches and clocks
// settle after the other side ran) and for --min-time seconds timed, single-thread.
// Wasm timings include what the JS API costs: strings to UTF-8 into the heap, vectors copied out of it,
// either into one reused Float32Array (encode(texts, { out }): what the native side does with its
// buffer, the like-for-like number) or into a new array per call (encode(texts)). The numbers are the
// medians over rounds. Output: a table on stderr, one JSON object per line on stdout.
// --base-js DIR: two wasm builds in one process, no native side: the package in DIR (e.g. a copy of
// js/ with main's js/dist) on --base-model (default --model) and this checkout's js/ on --model. Load
// times (loads alternated --loads times each: the same machine noise for both; medians, p10, p90,
// ratio), then encode throughput (the sides take turns for --rounds rounds, each --warmup then
// --min-time seconds of encode(sentences, { out }); medians and the head/base ratio).
// --mode query [--calls N]: the latency of one short query (the STS-B dev sentences of 6-10 words),
// each call timed alone (process.hrtime.bigint; steady_clock natively) after N/5 untimed calls, N
// calls (default 50,000) cycling over the queries; p50 and p90 in ns of: native core (a reused
// Encoder), native C API (swe_model_encode_text), the public JS call model.encode(text) (and with
// { out }: no new array), the raw export _swe_model_encode_text called from JS on texts already in
// the heap (public - raw = the JS wrapper's cost; raw vs core = the wasm cost), and "clock" (an empty
// timed call: its own cost is inside every other figure, on each side). The kinds of call take
// turns, a pass over the queries each. With --base-js DIR: also DIR's public call (a before/after ratio in one run).
// --mode first: what a page or a process that loads the model once pays, in --rounds fresh Node
// processes: importing the package, initialize() (compiling swe.wasm: V8 compiles each function on
// its first call, with a baseline tier, and optimises hot ones later, so every later figure is a
// first call too), the first loadModel(bytes) (the bytes read before timing), the first
// encode(sentence), then a second load; medians, p10, p90 in ms. With --base-js DIR, DIR's package
// and this checkout's take turns (a before/after in one run); without it, the native bench's first
// load in a fresh process too (--mode load --repeats 1).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { fail, median, parseArgs, quantile, readSentences, round } from './util.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = parseArgs(process.argv.slice(2), {
  model: join(root, 'models/swe-en-use-lite-large-para.swe'),
  data: process.env.SWE_SHARED_DATA ?? join(root, '../shared/data'),
  rounds: '7',
  'min-time': '0.5',
  warmup: '0.3',
  native: join(root, 'build/native/bench/wasm_vs_native'),
  'base-js': '',
  'base-model': '',
  loads: '40',
  mode: '',
  js: '',  // --mode first-child: the package directory to load
  calls: '50000',
});
if (args.mode === 'query') {
  await queryLatency();
  process.exit(0);
}
if (args.mode === 'first') {
  firstLoad();
  process.exit(0);
}
if (args.mode === 'first-child') {  // one fresh process of --mode first
  await firstLoadChild();
  process.exit(0);
}
if (args.mode !== '') fail(`unknown --mode ${args.mode} (query, first, or none)`);
if (args['base-js']) {
  await compareBuilds();
  process.exit(0);
}
const rounds = Number(args.rounds);
const minTime = Number(args['min-time']);
const warmup = Number(args.warmup);
for (const [what, path] of [['model', args.model], ['native bench (cmake --preset native)', args.native]]) {
  if (!existsSync(path)) fail(`${what} not found: ${path}`);
}

const sentences = readSentences(join(args.data, 'eval/sts/stsbenchmark/sts-dev.csv'));
const textBytes = sentences.reduce((n, s) => n + Buffer.byteLength(s), 0);
const tmp = mkdtempSync(join(tmpdir(), 'swe-bench-'));
const sentencesFile = join(tmp, 'sentences.txt');
writeFileSync(sentencesFile, sentences.join('\n') + '\n');

const { loadModel, version } = await import(join(root, 'js/src/index.js'));
const modelBytes = readFileSync(args.model);

// Warm up the wasm side (V8 compiles with a baseline tier first and optimises hot functions later).
let model = await loadModel(modelBytes);
for (const start = performance.now(); performance.now() - start < 1000;) model.encode(sentences);

const wasm = { load: [], rate: [], rateNew: [] };
const out = new Float32Array(sentences.length * model.dims);
const native = { load: [], rate: [] };
let kernels = '';
for (let r = 0; r < rounds; ++r) {
  const result = JSON.parse(execFileSync(args.native, [args.model, sentencesFile, '--repeats', '1', '--min-time',
                                                    String(minTime), '--warmup', String(warmup)], { encoding: 'utf8' }));
  native.load.push(result.load_ms);
  native.rate.push(result.encode_sentences_per_s);
  kernels = result.kernels;

  model.dispose();
  const t0 = performance.now();
  model = await loadModel(modelBytes);
  wasm.load.push(performance.now() - t0);
  for (const start = performance.now(); performance.now() - start < warmup * 1000;) model.encode(sentences);
  wasm.rate.push(encodeRate(model, sentences, { out }, minTime));
  wasm.rateNew.push(encodeRate(model, sentences, {}, minTime));
  if (process.env.SWE_BENCH_VERBOSE) {
    console.error(`round ${r}: native ${Math.round(native.rate.at(-1))}, wasm ${Math.round(wasm.rate.at(-1))}`);
  }
}
const dims = model.dims;
model.dispose();
rmSync(tmp, { recursive: true, force: true });

const summary = (impl, m, extra) => ({
  impl, ...extra, model: args.model.replace(root + '/', ''), model_bytes: modelBytes.length, dims,
  sentences: sentences.length, text_bytes: textBytes, rounds, load_ms: round(median(m.load), 2),
  encode_sentences_per_s: Math.round(median(m.rate)),
  encode_mb_per_s: round(median(m.rate) * textBytes / sentences.length / 1e6, 2),
});
const n = summary('native', native, { kernels });
const w = summary('wasm', wasm, { kernels: 'wasm128', node: process.version, swe: await version(),
                                 encode_new_array_sentences_per_s: Math.round(median(wasm.rateNew)) });
const ratio = round(n.encode_sentences_per_s / w.encode_sentences_per_s, 2);
console.log(JSON.stringify(n));
console.log(JSON.stringify(w));
console.log(JSON.stringify({ comparison: 'native/wasm', encode_throughput_ratio: ratio,
                             load_time_ratio: round(w.load_ms / n.load_ms, 2) }));
console.error(`${sentences.length} sentences (${textBytes} bytes), ${dims} dims, ${rounds} rounds, medians`);
console.error(`  native (${kernels}): ${fmt(n.encode_sentences_per_s)} sentences/s, load ${n.load_ms} ms`);
console.error(`  wasm (Node ${process.version}): ${fmt(w.encode_sentences_per_s)} sentences/s into a reused array ` +
              `(${fmt(w.encode_new_array_sentences_per_s)} with a new array per call), load ${w.load_ms} ms`);
console.error(`  wasm is ${round(1 / ratio, 2)}x native (native ${ratio}x the wasm throughput; the target: wasm at least 0.6x)`);

async function compareBuilds() {
  const side = async (dir, path) => ({ path, load: (await import(join(dir, 'src/index.js'))).loadModel,
                                       bytes: readFileSync(path), times: [] });
  const base = await side(args['base-js'], args['base-model'] || args.model), head = await side(join(root, 'js'), args.model);
  for (const s of [base, head]) s.model = await s.load(s.bytes);
  for (let i = 0; i < Number(args.loads); ++i) {
    for (const s of [base, head]) {
      s.model.dispose();
      const t0 = performance.now();
      s.model = await s.load(s.bytes);
      s.times.push(performance.now() - t0);
    }
  }
  for (const [name, s] of [['base', base], ['head', head]]) {
    console.log(JSON.stringify({ impl: `wasm ${name}`, model: s.path, loads: s.times.length, load_ms: round(median(s.times), 2),
                                 p10_ms: round(quantile(s.times, 0.1), 2), p90_ms: round(quantile(s.times, 0.9), 2) }));
  }
  console.log(JSON.stringify({ comparison: 'base/head', load_time_ratio: round(median(base.times) / median(head.times), 2) }));

  const sentences = readSentences(join(args.data, 'eval/sts/stsbenchmark/sts-dev.csv'));
  for (const s of [base, head]) {
    s.out = new Float32Array(sentences.length * s.model.dims);
    s.rates = [];
  }
  // V8 optimises the hot wasm functions after a first tier.
  for (const s of [base, head]) encodeRate(s.model, sentences, { out: s.out }, 1);
  for (let r = 0; r < Number(args.rounds); ++r) {
    for (const s of [base, head]) {
      encodeRate(s.model, sentences, { out: s.out }, Number(args.warmup));
      s.rates.push(encodeRate(s.model, sentences, { out: s.out }, Number(args['min-time'])));
    }
  }
  for (const [name, s] of [['base', base], ['head', head]]) {
    console.log(JSON.stringify({ impl: `wasm ${name}`, model: s.path, sentences: sentences.length, rounds: s.rates.length,
                                 encode_sentences_per_s: Math.round(median(s.rates)),
                                 fastest_sentences_per_s: Math.round(Math.max(...s.rates)) }));
  }
  console.log(JSON.stringify({ comparison: 'head/base', encode_throughput_ratio: round(median(head.rates) / median(base.rates), 2),
                               fastest_ratio: round(Math.max(...head.rates) / Math.max(...base.rates), 2) }));
  for (const s of [base, head]) s.model.dispose();
}

async function queryLatency() {
  const queries = readSentences(join(args.data, 'eval/sts/stsbenchmark/sts-dev.csv'))
    .filter((s) => { const words = s.trim().split(/\s+/).length; return words >= 6 && words <= 10; });
  const calls = Number(args.calls);
  const tmp = mkdtempSync(join(tmpdir(), 'swe-bench-'));
  const queriesFile = join(tmp, 'queries.txt');
  writeFileSync(queriesFile, queries.join('\n') + '\n');
  const native = JSON.parse(execFileSync(args.native, [args.model, queriesFile, '--repeats', '1', '--mode', 'query',
                                                    '--calls', String(calls)], { encoding: 'utf8' }));
  rmSync(tmp, { recursive: true, force: true });

  const { loadModel, initialize } = await import(join(root, 'js/src/index.js'));
  const model = await loadModel(readFileSync(args.model));
  const wasm = await initialize();
  const dims = model.dims;
  // The raw export's inputs, placed once: every query's UTF-8 bytes and one output vector.
  const bytes = queries.map((q) => Buffer.from(q, 'utf8'));
  const textsPtr = wasm.malloc(bytes.reduce((n, b) => n + b.length, 0));
  const outPtr = wasm.malloc(4 * dims);
  const at = [];
  for (let i = 0, p = textsPtr; i < bytes.length; p += bytes[i].length, ++i) { wasm.u8.set(bytes[i], p); at.push(p); }
  const handle = wasm.modelLoad(readFileSync(args.model));  // the raw export's own handle of the same model
  const out = new Float32Array(dims);
  const n = queries.length;
  const calls_ = {
    clock: () => {},
    raw: (i) => wasm.c.swe_model_encode_text(handle, at[i], bytes[i].length, 0, outPtr, dims, 0),
    public: (i) => model.encode(queries[i]),
    public_out: (i) => model.encode(queries[i], { out }),
  };
  let base = null;
  if (args['base-js']) {  // the same public call of another build of the package, for a before/after ratio
    base = await (await import(join(args['base-js'], 'src/index.js'))).loadModel(readFileSync(args['base-model'] || args.model));
    calls_.base_public = (i) => base.encode(queries[i]);
    calls_.base_public_out = (i) => base.encode(queries[i], { out });
  }
  // The kinds of call take turns, each a pass over all queries (machine noise hits all alike; a
  // turn per query would let each call find the rows its predecessor just read in cache).
  const names = Object.keys(calls_);
  const results = Object.fromEntries(names.map((name) => [name, []]));
  for (let pass = -Math.ceil(calls / n / 5); results[names[0]].length < calls; ++pass) {
    for (const name of names) {
      const call = calls_[name], ns = results[name];
      for (let q = 0; q < n; ++q) {
        const start = process.hrtime.bigint();
        call(q);
        if (pass >= 0) ns.push(Number(process.hrtime.bigint() - start));
      }
    }
  }
  for (const name of names) results[name] = Float64Array.from(results[name]).sort();
  // The raw export's vectors are the public call's, bit for bit (else the comparison is void).
  for (let i = 0; i < n; i += 97) {
    wasm.c.swe_model_encode_text(handle, at[i], bytes[i].length, 0, outPtr, dims, 0);
    const raw = new Float32Array(wasm.u8.buffer, outPtr, dims);
    if (!model.encode(queries[i]).every((x, j) => Object.is(x, raw[j]))) fail(`raw and public vectors differ: ${queries[i]}`);
  }
  wasm.free(textsPtr);
  wasm.free(outPtr);
  wasm.c.swe_model_free(handle);
  model.dispose();
  base?.dispose();
  const pct = (ns, f) => ns[Math.floor(ns.length * f)];
  const w = { impl: 'wasm', node: process.version, queries: n, calls: results.clock.length };  // whole passes
  for (const [name, ns] of Object.entries(results)) {
    w[`${name}_p50_ns`] = pct(ns, 0.5);
    w[`${name}_p90_ns`] = pct(ns, 0.9);
  }
  console.log(JSON.stringify(native));
  console.log(JSON.stringify(w));
  const words = queries.reduce((k, q) => k + q.trim().split(/\s+/).length, 0) / n;
  console.error(`${n} queries of 6-10 words (mean ${words.toFixed(1)}), ${w.calls} calls each, ns per call ` +
                `(clock included; an empty timed call costs ${native.clock_p50_ns} native, ${w.clock_p50_ns} in Node, p50):`);
  const row = (what, p50, p90) => console.error(`  ${what.padEnd(44)} p50 ${String(Math.round(p50)).padStart(6)}  p90 ${String(Math.round(p90)).padStart(6)}`);
  row(`native core, reused Encoder (${native.kernels})`, native.core_p50_ns, native.core_p90_ns);
  row('native C API swe_model_encode_text', native.capi_p50_ns, native.capi_p90_ns);
  row('wasm raw export _swe_model_encode_text', w.raw_p50_ns, w.raw_p90_ns);
  row('JS model.encode(text)', w.public_p50_ns, w.public_p90_ns);
  row('JS model.encode(text, { out })', w.public_out_p50_ns, w.public_out_p90_ns);
  if (base) {
    row('base JS model.encode(text)', w.base_public_p50_ns, w.base_public_p90_ns);
    row('base JS model.encode(text, { out })', w.base_public_out_p50_ns, w.base_public_out_p90_ns);
    console.error(`  base/this, p50: ${round(w.base_public_p50_ns / w.public_p50_ns, 2)} (new array), ` +
                  `${round(w.base_public_out_p50_ns / w.public_out_p50_ns, 2)} (out)`);
  }
  console.error(`  targets: native p50 <= 1000 ns (C API ${native.capi_p50_ns - native.clock_p50_ns} net of the clock); ` +
                `JS overhead (public - raw) <= 2000 ns: ${w.public_p50_ns - w.raw_p50_ns} p50, ` +
                `${w.public_out_p50_ns - w.raw_p50_ns} with { out }`);
}

function firstLoad() {
  const sides = args['base-js']
    ? [['base', args['base-js'], args['base-model'] || args.model], ['head', join(root, 'js'), args.model]]
    : [['', join(root, 'js'), args.model]];
  const keys = ['import_ms', 'initialize_ms', 'load_ms', 'first_encode_ms', 'second_load_ms'];
  const runs = Object.fromEntries(sides.map(([name]) => [name, []]));
  const native = [];
  const tmp = mkdtempSync(join(tmpdir(), 'swe-bench-'));
  const sentencesFile = join(tmp, 'sentences.txt');
  writeFileSync(sentencesFile, 'A man is playing a guitar.\n');
  for (let r = 0; r < Number(args.rounds); ++r) {
    for (const [name, dir, model] of sides) {
      const child = [fileURLToPath(import.meta.url), '--mode', 'first-child', '--js', dir, '--model', model];
      runs[name].push(JSON.parse(execFileSync(process.execPath, child, { encoding: 'utf8' })));
    }
    if (!args['base-js'] && existsSync(args.native)) {
      native.push(JSON.parse(execFileSync(args.native, [args.model, sentencesFile, '--mode', 'load', '--repeats', '1'],
                                          { encoding: 'utf8' })));
    }
  }
  rmSync(tmp, { recursive: true, force: true });
  const stats = (t) => `${round(median(t), 2)} (p10 ${round(quantile(t, 0.1), 2)}, p90 ${round(quantile(t, 0.9), 2)})`;
  console.error(`first use in a fresh process, ${args.rounds} processes each, ms: median (p10, p90)`);
  for (const [name] of sides) {
    const summary = { impl: `wasm${name && ' '}${name}`, rounds: runs[name].length };
    for (const key of keys) summary[key] = round(median(runs[name].map((x) => x[key])), 2);
    console.log(JSON.stringify(summary));
    for (const key of keys) console.error(`  wasm${name && ' '}${name} ${key.padEnd(16)} ${stats(runs[name].map((x) => x[key]))}`);
  }
  if (!args['base-js'] && native.length === 0) {
    console.error(`  native: not measured (${args.native} not found: cmake --preset native)`);
  }
  if (native.length > 0) {
    console.log(JSON.stringify({ impl: 'native', rounds: native.length, load_ms: round(median(native.map((x) => x.load_ms)), 2),
                                 load_file_ms: round(median(native.map((x) => x.load_file_ms)), 2) }));
    console.error(`  native load_ms         ${stats(native.map((x) => x.load_ms))} (from the file: ` +
                  `${stats(native.map((x) => x.load_file_ms))})`);
  }
}

async function firstLoadChild() {
  const bytes = readFileSync(args.model);
  const t0 = performance.now();
  const { initialize, loadModel } = await import(join(args.js, 'src/index.js'));
  const t1 = performance.now();
  await initialize();
  const t2 = performance.now();
  let model = await loadModel(bytes);
  const t3 = performance.now();
  model.encode('A man is playing a guitar.');
  const t4 = performance.now();
  model.dispose();
  model = await loadModel(bytes);
  const t5 = performance.now();
  console.log(JSON.stringify({ import_ms: t1 - t0, initialize_ms: t2 - t1, load_ms: t3 - t2, first_encode_ms: t4 - t3,
                               second_load_ms: t5 - t4 }));
}

// Sentences encoded per second by model.encode(sentences, options), repeated for at least `seconds`.
function encodeRate(model, sentences, options, seconds) {
  let encoded = 0;
  const start = performance.now();
  do {
    model.encode(sentences, options);
    encoded += sentences.length;
  } while (performance.now() - start < seconds * 1000);
  return encoded / ((performance.now() - start) / 1000);
}

function fmt(x) { return x.toLocaleString('en-US'); }
