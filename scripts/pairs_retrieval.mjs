// Nearest-neighbour translation retrieval on held-out pairs, the Tatoeba rule (cosine, accuracy of
// both directions averaged) for any "en<TAB>xx" file: an interim check for the multilingual model
// (docs/RESULTS.md, "Multilingual") until `swe eval` scores pairs files itself.
// usage: node scripts/pairs_retrieval.mjs SWE_BIN MODEL PAIRS.tsv [N=1000]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [bin, model, pairs, nArg] = process.argv.slice(2);
if (!pairs) throw new Error('usage: node scripts/pairs_retrieval.mjs SWE_BIN MODEL PAIRS.tsv [N]');
const n = Number(nArg ?? 1000);
const lines = readFileSync(pairs, 'utf8').split('\n').filter((l) => l.trim()).slice(0, n);
const sides = [0, 1].map((c) => lines.map((l) => {
  const cols = l.split('\t');
  if (cols.length !== 2) throw new Error(`${pairs}: not two columns: ${l}`);
  return cols[c].trim();
}));
const dir = mkdtempSync(join(tmpdir(), 'pairs-'));
function encode(texts) {
  const input = join(dir, 'in.txt'), out = join(dir, 'out.npy');
  writeFileSync(input, texts.join('\n') + '\n');
  execFileSync(bin, ['encode', model, input, '-o', out, '--format', 'npy']);
  const buf = readFileSync(out);
  const headerLen = buf.readUInt16LE(8);
  const header = buf.subarray(10, 10 + headerLen).toString('latin1');
  const shape = header.match(/'shape': \((\d+), (\d+)\)/);
  const [rows, dims] = [Number(shape[1]), Number(shape[2])];
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + 10 + headerLen, buf.byteOffset + 10 + headerLen + rows * dims * 4));
  const v = [];
  for (let i = 0; i < rows; ++i) {
    const r = data.subarray(i * dims, (i + 1) * dims);
    let s = 0;
    for (const x of r) s += x * x;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    v.push(r.map((x) => x * inv));
  }
  return v;
}
const [a, b] = sides.map(encode);
rmSync(dir, { recursive: true });
function accuracy(q, c) {
  let right = 0;
  for (let i = 0; i < q.length; ++i) {
    let best = -Infinity, arg = -1;
    for (let j = 0; j < c.length; ++j) {
      let s = 0;
      const x = q[i], y = c[j];
      for (let k = 0; k < x.length; ++k) s += x[k] * y[k];
      if (s > best) { best = s; arg = j; }
    }
    right += arg === i;
  }
  return (100 * right) / q.length;
}
const ab = accuracy(a, b), ba = accuracy(b, a);
console.log(JSON.stringify({ file: pairs, n: lines.length, accuracy: +((ab + ba) / 2).toFixed(1),
  'en->xx': +ab.toFixed(1), 'xx->en': +ba.toFixed(1) }));
