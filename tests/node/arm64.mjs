// What tests/node/arm64.sh compares between the x86-64 and the ARM64 addon: the backend in use and
// hashes of the vectors of the STS-B dev sentences (all dims, 64, and through encodeAsync) and of an
// int8 index of them saved, printed as one JSON line.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { backend, loadModel } = await import(join(root, 'js/src/index.js'));
const seen = new Set();
const csv = readFileSync(join(process.env.SWE_SHARED_DATA ?? join(root, '../shared/data'), 'eval/sts/stsbenchmark/sts-dev.csv'), 'utf8');
for (const line of csv.split('\n')) {
  const cols = line.split('\t');
  if (cols.length >= 7) for (const s of [cols[5], cols[6]]) if (s.trim() !== '') seen.add(s);
}
const texts = [...seen];
const model = await loadModel(join(root, 'models/swe-en-use-lite-large-para.swe'));
const hash = (view) => createHash('sha256').update(new Uint8Array(view.buffer, view.byteOffset, view.byteLength)).digest('hex');
const index = model.createIndex({ dtype: 'int8' });
index.add(texts.map((_, i) => i), texts);
console.log(JSON.stringify({
  backend: await backend(), texts: texts.length, vectors: hash(model.encode(texts)),
  dims64: hash(model.encode(texts, { dims: 64 })), async: hash(await model.encodeAsync(texts)), index: hash(index.save()),
}));
