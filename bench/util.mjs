// What the Node benches (bench/*.mjs) share: their options, their corpora and their statistics.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Prints "SCRIPT: message" on stderr and exits with status 1. */
export function fail(message) {
  console.error(`${basename(process.argv[1], '.mjs')}: ${message}`);
  process.exit(1);
}

/** `--name value` pairs over `defaults` (an object of strings); an unknown name fails. */
export function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; ++i) {
    const name = argv[i].replace(/^--/, '');
    if (!(name in defaults) || i + 1 >= argv.length) fail(`unknown option or missing value: ${argv[i]}`);
    out[name] = argv[++i];
  }
  return out;
}

/** The distinct sentences of an STS-B file (columns 6 and 7 of its tab-separated lines). */
export function readSentences(path) {
  const seen = new Set();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const cols = line.split('\t');
    if (cols.length < 7) continue;
    for (const s of [cols[5], cols[6]]) if (s.trim() !== '') seen.add(s);
  }
  return [...seen];
}

export function quantile(values, f) { return [...values].sort((a, b) => a - b)[Math.floor(values.length * f)]; }
export function median(values) { return quantile(values, 0.5); }
export function round(x, digits) { return Number(x.toFixed(digits)); }
