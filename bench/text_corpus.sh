#!/usr/bin/env bash
# Writes the realistic-text bench corpus, one text per line: the web demo's 36,402 State of the Union
# passages (names, numbers, dates, old spellings; built by web-demo/scripts/build-corpus.mjs when
# missing) and the first N sentences of the training corpus (novels and essays from many sources).
#
#   bash bench/text_corpus.sh [OUT] [N]     (defaults: build/bench/realistic.txt, 20000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/bench/realistic.txt}"
lines="${2:-20000}"
passages="$root/web-demo/build/corpus.json.gz"
sentences="$root/../shared/data/train/en-sentences.txt.zst"
[ -f "$passages" ] || node "$root/web-demo/scripts/build-corpus.mjs"
mkdir -p "$(dirname "$out")"
node -e '
  const j = JSON.parse(require("zlib").gunzipSync(require("fs").readFileSync(process.argv[1])));
  process.stdout.write(j.passages.map((p) => p.replace(/\s+/g, " ")).join("\n") + "\n");
' "$passages" > "$out.tmp"
zstd -dc "$sentences" | head -n "$lines" >> "$out.tmp" || true  # head closes the pipe early
mv "$out.tmp" "$out"
echo "text_corpus: $out: $(wc -l < "$out") texts, $(wc -c < "$out") bytes" >&2
