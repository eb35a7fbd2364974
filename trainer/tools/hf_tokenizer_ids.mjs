#!/usr/bin/env node
// Reference token ids from Hugging Face's JavaScript tokenizer (@huggingface/tokenizers 0.2.0, the code
// transformers.js 4.3.1 bundles: its PreTrainedTokenizer.encode is `new Tokenizer(tokenizer.json,
// tokenizer_config.json).encode(text).ids`), for the parity test of swe-trainer's WordPiece tokenizer
// (tests/trainer/wordpiece_test.cpp, TrainerWordPieceHfParity).
//
// Offline: the tokenizer.json files come from ../shared/data/tokenizers/*/ (every one whose model is
// WordPiece), the sentences from ../shared/data (below), plus the hand-made sentences of the bert golden
// fixture (tests/trainer/fixtures/bert_golden/golden.json: accents, CJK, emoji, controls, added
// tokens written literally, a 120-character word, ...). Ids include [CLS] and [SEP]; no truncation.
// Also the t5 golden fixture's Unigram tokenizer on the same sentences (ids with </s>, no truncation).
//
//   bash scripts/fetch-hf-tokenizers.sh                   # installs the package, then runs this
//   node trainer/tools/hf_tokenizer_ids.mjs --out FILE    # (default .cache/hf-tokenizers/wordpiece_ids.json)
//   node trainer/tools/hf_tokenizer_ids.mjs --ids TOKENIZER_DIR "text" ...   # print ids, for debugging
//
// Writes JSON: {package, sentences: [...], tokenizers: {name: [[ids] per sentence]},
//               unigram: {t5_golden: {ids: [[ids] per sentence], normalized: [text per sentence]}}}.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, readdirSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cache = process.env.SWE_HF_TOKENIZERS_CACHE || join(root, '.cache/hf-tokenizers');
const data = process.env.SWE_SHARED_DATA || join(root, '../shared/data');
const pkgDir = join(cache, 'node_modules/@huggingface/tokenizers');
if (!existsSync(pkgDir)) {
  console.error(`hf_tokenizer_ids: ${cache} has no @huggingface/tokenizers: run bash scripts/fetch-hf-tokenizers.sh`);
  process.exit(1);
}
const require = createRequire(join(cache, 'package.json'));
const { Tokenizer } = require('@huggingface/tokenizers');
const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;

function load(dir) {
  const json = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8'));
  const configPath = join(dir, 'tokenizer_config.json');
  const config = existsSync(configPath) ? JSON.parse(readFileSync(configPath, 'utf8')) : {};
  return { json, tokenizer: new Tokenizer(json, config) };
}

// Tab-separated columns of every `every`-th line (after an optional header), no quote handling.
function tsv(path, cols, { every = 1, header = false } = {}, out) {
  const lines = readFileSync(join(data, path), 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (header && i === 0) return;
    if (!line || i % every) return;
    const fields = line.split('\t');
    for (const c of cols) if (c < fields.length) out.push(fields[c]);
  });
}

function sentences() {
  const all = [];
  tsv('eval/sts/stsbenchmark/sts-dev.csv', [5, 6], {}, all);
  tsv('eval/sts/stsbenchmark/sts-train.csv', [5, 6], {}, all);
  tsv('eval/sts/sick2014/SICK_train.txt', [1, 2], { header: true }, all);
  tsv('eval/sts/sick2014/SICK_trial.txt', [1, 2], { header: true }, all);
  for (const t of ['track4a.es-en', 'track4b.es-en', 'track5.en-en']) tsv(`eval/sts/STS17/STS.input.${t}.txt`, [0, 1], {}, all);
  tsv('train/parallel/tatoeba_manythings.en-de.tsv', [0, 1], { every: 10 }, all);
  tsv('train/parallel/tatoeba_manythings.en-zh.tsv', [0, 1], { every: 4 }, all);
  tsv('train/parallel/tatoeba_manythings.en-ja.tsv', [0, 1], { every: 10 }, all);
  tsv('train/parallel/multi30k.train.en-de.tsv', [0, 1], { every: 10 }, all);
  const golden = join(root, 'tests/trainer/fixtures/bert_golden/golden.json');
  if (existsSync(golden)) all.push(...JSON.parse(readFileSync(golden, 'utf8')).sentences);
  return [...new Set(all)];
}

const args = process.argv.slice(2);
if (args[0] === '--ids') {
  const { tokenizer } = load(resolve(args[1]));
  for (const text of args.slice(2)) console.log(JSON.stringify({ text, ids: tokenizer.encode(text).ids }));
  process.exit(0);
}
const out = args[0] === '--out' ? resolve(args[1]) : join(cache, 'wordpiece_ids.json');
const texts = sentences();
const result = { package: `@huggingface/tokenizers@${version}`, sentences: texts, tokenizers: {} };
for (const name of readdirSync(join(data, 'tokenizers')).sort()) {
  const dir = join(data, 'tokenizers', name);
  if (!existsSync(join(dir, 'tokenizer.json'))) continue;
  const { json, tokenizer } = load(dir);
  if (json.model?.type !== 'WordPiece') continue;
  const t0 = Date.now();
  result.tokenizers[name] = texts.map((s) => tokenizer.encode(s).ids);
  console.error(`hf_tokenizer_ids: ${name}: ${texts.length} sentences in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
// The t5 teacher's Unigram tokenizer (the golden fixture's, a real SentencePiece model converted by
// transformers): ids and the normalised text. This package's Precompiled normalizer does not read the
// charsmap (it strips controls, maps some spaces and applies NFKC), so the parity test compares ids only
// where both normalisations agree (tests/trainer/unigram_tokenizer_test.cpp).
const t5 = join(root, 'tests/trainer/fixtures/t5_golden/model');
if (existsSync(join(t5, 'tokenizer.json'))) {
  const { tokenizer } = load(t5);
  result.unigram = { t5_golden: { ids: texts.map((s) => tokenizer.encode(s).ids), normalized: texts.map((s) => tokenizer.normalizer(s)) } };
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result));
console.error(`hf_tokenizer_ids: wrote ${out}`);
