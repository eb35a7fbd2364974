// Cross-lingual search in the demo's collection, measured with the native `swe search`: for each model,
// the rank (1-10; "miss" beyond) of the first passage on a topic for one query per language. The
// table of docs/RESULTS.md ("Cross-lingual search in the web demo's collection") comes from this; the
// browser test asserts a few of these ranks in the page.
//
// usage: node web-demo/scripts/search-ranks.mjs MODEL.swe...
//        (needs build/native/bin/swe and web-demo/build/corpus.json.gz: bash scripts/web-demo.sh --build-only)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// [topic, what a passage on it matches, queries: English first, then German, Japanese, Chinese]
const TOPICS = [
  ['clean air', /Clean air, clean water, open spaces/,
    ['clean air and clean water', 'saubere Luft und sauberes Wasser', 'きれいな空気ときれいな水', '清洁的空气和清洁的水']],
  ['health insurance', /health (care|insurance)/i,
    ['health insurance for every American', 'Krankenversicherung für alle Amerikaner', 'すべてのアメリカ人のための医療保険', '为每个美国人提供医疗保险']],
  ['slavery', /slaver/i, ['the abolition of slavery', 'die Abschaffung der Sklaverei', '奴隷制の廃止', '废除奴隶制']],
  ['Panama canal', /Panama.*canal|canal.*Panama/i,
    ['the Panama canal', 'der Panamakanal', 'der Kanal durch Panama', 'パナマ運河', '巴拿马运河']],
  ['smallpox', /smallpox|vaccinat/i, ['smallpox vaccination', 'Impfung gegen Pocken', '天然痘の予防接種', '天花疫苗接种']],
  ['transatlantic telegraph', /telegraph.*(Atlantic|Europe)|(Atlantic|Europe).*telegraph/i,
    ['the transatlantic telegraph', 'der transatlantische Telegraf', '大西洋横断電信', '跨大西洋电报']],
  ['moon landing', /walked the surface of the moon/,
    ['the first men to walk on the moon', 'die ersten Menschen, die auf dem Mond gelaufen sind', '月面を歩いた最初の人類', '月面',
      '第一批在月球上行走的人']],
];

const models = process.argv.slice(2);
if (models.length === 0) {
  console.error('usage: node web-demo/scripts/search-ranks.mjs MODEL.swe...');
  process.exit(2);
}
const corpus = JSON.parse(gunzipSync(readFileSync(join(root, 'web-demo/build/corpus.json.gz'))));
const dir = mkdtempSync(join(tmpdir(), 'search-ranks-'));
try {
  const docs = join(dir, 'passages.txt');  // one passage a line, as swe search --docs reads them
  writeFileSync(docs, corpus.passages.map((p) => p.replace(/\s+/g, ' ')).join('\n') + '\n');
  const queries = TOPICS.flatMap(([, , qs]) => qs);
  for (const model of models) {
    const out = execFileSync(join(root, 'build/native/bin/swe'), ['search', model, '--docs', docs, '-k', '10', '--json', ...queries],
      { encoding: 'utf8', maxBuffer: 1 << 28 });
    const hits = new Map(out.trim().split('\n').map((line) => JSON.parse(line)).map((r) => [r.query, r.hits]));
    console.log(`## ${model}`);
    for (const [topic, onTopic, qs] of TOPICS) {
      const ranks = qs.map((q) => `${q}: ${hits.get(q).findIndex((h) => onTopic.test(h.text)) + 1 || 'miss'}`);
      console.log(`${topic} | ${ranks.join(' | ')}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
