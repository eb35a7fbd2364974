// The two backends side by side: the same work in one Node process per backend (SWE_BACKEND=wasm and
// native) gives the same vectors, the same index files byte for byte, the same search hits and the
// same errors (message, code, class). The rest of the suite runs once per backend (scripts/test.sh);
// this is where the two meet.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { defaultModel, jsRoot, nativeAddon, nativeAddonPath, repoRoot, stsSentences, tempDir } from './helpers.js';

const dir = tempDir();
const textsFile = join(dir, 'texts.json');
// Real sentences, and texts whose UTF-8 each backend writes its own way (lone surrogates become U+FFFD).
writeFileSync(textsFile, JSON.stringify([...stsSentences().slice(0, 600), 'a \uD800 lone surrogate', 'low \uDC00 one',
                                         'ends high \uD83D', '😀 emoji, Straße, 東京タワー', '', ' ']));

// What each backend computes: hashes of the vectors and of saved indexes (f32 with documents, int8),
// hits, and the errors of failing calls.
const work = `
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { backend, kmeans, loadModel } from ${JSON.stringify(pathToFileURL(join(jsRoot, 'src/index.js')).href)};
const texts = JSON.parse(readFileSync(${JSON.stringify(textsFile)}, 'utf8'));
const hash = (bytes) => createHash('sha256').update(bytes).digest('hex');
const bytes = (floats) => new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
const model = await loadModel(${JSON.stringify(defaultModel)});
const f32 = model.createIndex();
f32.addDocs(texts.map((text, i) => ({ id: 'doc' + i, text, metadata: { i } })));
const int8 = model.createIndex({ dtype: 'int8', dims: 100 });
int8.add(texts.map((_, i) => i), texts);
const again = model.loadIndex(f32.save());
const errors = [];
const attempt = async (what, call) => {
  try { await call(); errors.push([what, 'no error']); } catch (e) { errors.push([what, e.constructor.name, e.code, e.message]); }
};
const corrupt = readFileSync(${JSON.stringify(defaultModel)}).slice(0, 5000);
await attempt('truncated model', () => loadModel(corrupt));
await attempt('not an index', () => model.loadIndex(new Uint8Array(100)));
await attempt('index of another model', async () => (await loadModel(${JSON.stringify(defaultModel)})).loadIndex(
  (await loadModel(new Uint8Array(readFileSync(process.env.OTHER_MODEL)))).createIndex().save()));
await attempt('unknown document', () => f32.get('nope'));
await attempt('k-means k too large', () => kmeans(model.encode(texts.slice(0, 3)), model.dims, 5));
await attempt('NaN vector', () => kmeans(new Float32Array([NaN, 1]), 2, 1));
await attempt('wrong query length', () => f32.search(new Float32Array(3)));
console.log(JSON.stringify({
  backend: await backend(),
  vectors: hash(bytes(model.encode(texts))),
  truncated: hash(bytes(model.encode(texts, { dims: 33 }))),
  async: hash(bytes(await model.encodeAsync(texts))),
  known: Array.from(model.encodeWithInfo(texts).knownWords),
  f32: hash(f32.save()), int8: hash(int8.save()), reloaded: hash(again.save()),
  hits: f32.searchBatch(texts.slice(0, 20), 5, { minScore: 0.2 }),
  approximate: f32.search(texts[7], { k: 5, candidates: 50 }),
  tokens: model.tokenize('Straße café 東京 zzqx'),
  rank: model.topk(texts[0], texts, 10), dedupe: model.dedupe(texts, 0.9).groups,
  cluster: Array.from(model.cluster(texts, 4, { seed: 3 }).labels),
  errors,
}));
`;

function run(backend) {
  const env = { ...process.env, SWE_BACKEND: backend, SWE_NATIVE_ADDON: nativeAddonPath,
                OTHER_MODEL: join(repoRoot, 'models/swe-en-use-lite-large.swe') };
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', work], { env, encoding: 'utf8',
                                                                                         maxBuffer: 1 << 26 }));
}

test('wasm and native give the same vectors, index files, hits and errors', () => {
  nativeAddon();  // fails saying how to build it when it is missing
  const wasm = run('wasm');
  const native = run('native');
  assert.equal(wasm.backend, 'wasm');
  assert.equal(native.backend, 'native');
  assert.equal(wasm.errors.length, 7);
  assert.ok(wasm.errors.every(([, kind]) => kind !== 'no error'), JSON.stringify(wasm.errors));
  assert.ok(wasm.hits.some((hits) => hits.length > 1));
  for (const key of Object.keys(wasm).filter((k) => k !== 'backend')) assert.deepEqual(native[key], wasm[key], key);
});
