// Shared by the tests: paths, the STS-B sentences, fixture models written by the native `swe convert`
// (the wasm build has no model writer), and native vectors from `swe encode`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { mulberry32 } from '../src/helpers.js';

export const jsRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = join(jsRoot, '..');
export const dataDir = process.env.SWE_SHARED_DATA ?? join(repoRoot, '../shared/data');
export const placeholderModel = join(repoRoot, 'models/glove-100d-50k-int8.swe');
/** The shipped default model (committed). */
export const defaultModel = join(repoRoot, 'models/swe-en-use-lite-large.swe');

/** The native CLI (SWE_CLI, else the native preset's build); fails with what to do when missing. */
export function nativeCli() {
  const cli = process.env.SWE_CLI ?? join(repoRoot, 'build/native/bin/swe');
  if (!existsSync(cli)) {
    throw new Error(`the native swe CLI is needed to write test models: ${cli} is missing ` +
                    '(run scripts/build.sh, or set SWE_CLI)');
  }
  return cli;
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
