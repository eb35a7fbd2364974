// Shared by the tests: paths, the STS-B sentences, fixture models written by the native `swe convert`
// (the wasm build has no model writer), and native vectors from `swe encode`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const jsRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = join(jsRoot, '..');
/** The native addon the tests use (SWE_NATIVE_ADDON, else the `node` preset's build). */
export const nativeAddonPath = process.env.SWE_NATIVE_ADDON ?? join(repoRoot, 'build/node/node/swe.node');
// The tests run on the backend SWE_BACKEND names (scripts/test.sh runs them once per backend); with
// native, on the addon built in this checkout (the package finds it through SWE_NATIVE_ADDON).
if (process.env.SWE_BACKEND === 'native') process.env.SWE_NATIVE_ADDON = nativeAddonPath;
/** The backend the tests must be running on: SWE_BACKEND's, else wasm (the repository has no platform package). */
export const expectedBackend = process.env.SWE_BACKEND ?? 'wasm';
export const dataDir = process.env.SWE_SHARED_DATA ?? join(repoRoot, '../shared/data');
export const placeholderModel = join(repoRoot, 'models/glove-100d-50k-int8.swe');
/** The shipped default model (committed). */
export const defaultModel = join(repoRoot, 'models/swe-en-use-lite-large-para.swe');

/** The native CLI (SWE_CLI, else the native preset's build); fails with what to do when missing. */
export function nativeCli() {
  const cli = process.env.SWE_CLI ?? join(repoRoot, 'build/native/bin/swe');
  if (!existsSync(cli)) {
    throw new Error(`the native swe CLI is needed to write test models: ${cli} is missing ` +
                    '(run scripts/build.sh, or set SWE_CLI)');
  }
  return cli;
}

/** The native addon (the `node` preset's build); fails with what to do when it is missing. */
export function nativeAddon() {
  if (!existsSync(nativeAddonPath)) {
    throw new Error(`the native addon is needed: ${nativeAddonPath} is missing ` +
                    '(cmake --preset node && cmake --build --preset node, or set SWE_NATIVE_ADDON)');
  }
  return createRequire(import.meta.url)(nativeAddonPath);
}

/** The unique sentences of the STS-B dev set (columns s1 and s2, tab-separated, no quoting). */
export function stsSentences() {
  const path = join(dataDir, 'eval/sts/stsbenchmark/sts-dev.csv');
  const seen = new Set();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const cols = line.split('\t');
    if (cols.length < 7) continue;
    for (const s of [cols[5], cols[6]]) if (s.trim() !== '' && !s.includes('\r')) seen.add(s);
  }
  return [...seen];
}

let fixtures = null;
const temporary = [];
process.on('exit', () => { for (const dir of temporary) rmSync(dir, { recursive: true, force: true }); });

/** A new temporary folder, removed when the process exits. */
export function tempDir(prefix = 'swe-js-test-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/**
 * Models of the STS-B dev vocabulary with pseudo-random vectors, one per dtype (f32, f16, int8), 50
 * dimensions (not a multiple of 4 or 8: the kernels' vector loops and their scalar tails both run),
 * values of mixed magnitudes. Written once per test process into a temporary folder.
 */
export function fixtureModels() {
  if (fixtures) return fixtures;
  const cli = nativeCli();
  const dir = tempDir();
  const words = new Set();
  for (const s of stsSentences()) for (const w of s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) words.add(w);
  const next = mulberry32(1234);
  const dims = 50;
  const lines = [`${words.size} ${dims}`];
  for (const w of words) {
    const scale = 10 ** (next() * 4 - 2);  // 0.01 .. 100
    const v = Array.from({ length: dims }, () => ((next() * 2 - 1) * scale).toPrecision(7));
    lines.push(`${w} ${v.join(' ')}`);
  }
  const source = join(dir, 'vectors.txt');
  writeFileSync(source, lines.join('\n') + '\n');
  fixtures = { dir, dims, words: words.size };
  for (const dtype of ['f32', 'f16', 'int8']) {
    const out = join(dir, `sts-${dtype}.swe`);
    execFileSync(cli, ['convert', '--from', 'word2vec', source, '-o', out, '--dtype', dtype, '--name',
                       `sts-${dtype}`, '--placeholder'], { stdio: ['ignore', 'ignore', 'inherit'] });
    fixtures[dtype] = out;
  }
  return fixtures;
}

/**
 * Japanese and Chinese sentences: `perLanguage` of each, spread evenly over the non-English sides of
 * the Tatoeba training pairs (sorted by length there), and a few mixed-script texts.
 */
export function cjkSentences(perLanguage = 1000) {
  const out = [];
  for (const pair of ['en-ja', 'en-zh']) {
    const lines = readFileSync(join(dataDir, `train/parallel/tatoeba_manythings.${pair}.tsv`), 'utf8')
      .split('\n').map((line) => line.split('\t')[1] ?? '').filter((s) => s.trim() !== '' && !s.includes('\r'));
    const step = lines.length / perLanguage;
    for (let i = 0; i < perLanguage && i * step < lines.length; ++i) out.push(lines[Math.floor(i * step)]);
  }
  out.push('iPhone 15を買った', '東京タワーに行きました', '我喜欢学习中文', 'Straße café 東京と大阪 😀 日本語の本');
  return out;
}

let cjkFixtures = null;

/**
 * Models for CJK text, one per CJK mode (characters f32, bigrams int8, longest f16: each table dtype
 * once): the sentences' lower-cased Latin words and every CJK substring of 1 to 4 characters that
 * occurs twice or more, with pseudo-random vectors. swe convert --cjk keeps what each mode can look
 * up (bigrams: characters and pairs; longest: all of them).
 */
export function cjkFixtureModels() {
  if (cjkFixtures) return cjkFixtures;
  const cli = nativeCli();
  const dir = tempDir();
  const counts = new Map();
  for (const s of cjkSentences()) {
    for (const w of s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      for (const run of w.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu) ?? [w]) {
        const chars = [...run];
        for (let i = 0; i < chars.length; ++i) {
          for (let n = 1; n <= 4 && i + n <= chars.length; ++n) {
            const sub = chars.slice(i, i + n).join('');
            counts.set(sub, (counts.get(sub) ?? 0) + 1);
          }
        }
      }
    }
  }
  const next = mulberry32(4321);
  const dims = 50;
  const lines = [];
  for (const [w, count] of counts) {
    if (count < 2 && [...w].length > 1) continue;
    const scale = 10 ** (next() * 4 - 2);
    lines.push(`${w} ${Array.from({ length: dims }, () => ((next() * 2 - 1) * scale).toPrecision(7)).join(' ')}`);
  }
  const source = join(dir, 'cjk-vectors.txt');
  writeFileSync(source, lines.join('\n') + '\n');
  cjkFixtures = { dir, dims };
  for (const [cjk, dtype] of [['characters', 'f32'], ['bigrams', 'int8'], ['longest', 'f16']]) {
    const out = join(dir, `cjk-${cjk}.swe`);
    execFileSync(cli, ['convert', '--from', 'word2vec', source, '-o', out, '--dtype', dtype, '--cjk', cjk, '--name',
                       `cjk-${cjk}`, '--placeholder'], { stdio: ['ignore', 'ignore', 'inherit'] });
    cjkFixtures[cjk] = out;
  }
  return cjkFixtures;
}

/** Native vectors of `sentences` (swe encode → .npy), as a Float32Array. */
export function nativeVectors(model, sentences, extraArgs = []) {
  const dir = tempDir('swe-js-native-');
  const input = join(dir, 'sentences.txt');
  const output = join(dir, 'vectors.npy');
  writeFileSync(input, sentences.join('\n') + '\n');
  execFileSync(nativeCli(), ['encode', model, input, '-o', output, ...extraArgs], { stdio: 'inherit' });
  return readNpyF32(readFileSync(output));
}

// A NumPy 1.0/2.0 file of little-endian float32 values.
function readNpyF32(bytes) {
  if (bytes[0] !== 0x93 || String.fromCharCode(...bytes.subarray(1, 6)) !== 'NUMPY') throw new Error('not .npy');
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = (major === 1 ? 10 : 12) + headerLength;
  const header = new TextDecoder().decode(bytes.subarray(major === 1 ? 10 : 12, start));
  if (!header.includes("'<f4'")) throw new Error(`unexpected .npy dtype: ${header}`);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + bytes.byteLength));
}

/** Number of elements whose bits differ. */
export function bitDifferences(a, b) {
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let differ = 0;
  for (let i = 0; i < x.length; ++i) if (x[i] !== y[i]) ++differ;
  return differ;
}

/** The fixtures' pseudo-random numbers (mulberry32): a function giving uniform floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
