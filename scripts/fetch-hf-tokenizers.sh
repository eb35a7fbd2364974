#!/usr/bin/env bash
# Fetches Hugging Face's JavaScript tokenizers from the npm registry into a git-ignored cache, pinned
# (npm checks the tarball against the registry's sha512 integrity), and writes the reference token ids
# that the trainer's WordPiece parity test compares with (tests/trainer/wordpiece_test.cpp):
#   @huggingface/tokenizers@0.2.0   the tokenizer of transformers.js: @huggingface/transformers 4.3.1
#                                   bundles exactly this version (its own package also pulls ~470 MB of
#                                   onnxruntime and sharp that a tokenizer does not need) (Apache-2.0)
# Then runs trainer/tools/hf_tokenizer_ids.mjs, which tokenizes the real sentences of ../shared/data
# (STS-B train+dev, SICK train+trial, STS17, and a sample of the Tatoeba / Multi30k parallel sentences:
# English, German, Spanish, Japanese, Chinese) with every WordPiece tokenizer.json under
# ../shared/data/tokenizers/, offline, into $cache/wordpiece_ids.json (with the ids of the t5 teacher's
# golden Unigram tokenizer, tests/trainer/fixtures/t5_golden/model, on the same sentences).
# Idempotent: installs only when the pinned version is missing, and rewrites the ids only when the
# script or an input is newer than them. Prints the ids file on stdout.
#   bash scripts/fetch-hf-tokenizers.sh          # into .cache/hf-tokenizers (or $SWE_HF_TOKENIZERS_CACHE)
# Used by scripts/test.sh before the tests. Nothing fetched or written here is committed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${SWE_HF_TOKENIZERS_CACHE:-$root/.cache/hf-tokenizers}"
pkg=@huggingface/tokenizers@0.2.0
out="$cache/wordpiece_ids.json"
data="$root/../shared/data"

. "$root/scripts/npm-pinned.sh"
if ! npm_pinned_installed "$cache" "$pkg"; then
  npm_pinned_install fetch-hf-tokenizers "$cache" "swe: Hugging Face JS tokenizers cache" "$pkg"
  npm_pinned_installed "$cache" "$pkg" || { echo "fetch-hf-tokenizers: the package did not install as expected" >&2; exit 1; }
fi
[ -d "$data/tokenizers" ] || { echo "fetch-hf-tokenizers: no shared data at $data" >&2; exit 1; }
tool="$root/trainer/tools/hf_tokenizer_ids.mjs"
if [ ! -f "$out" ] || [ "$tool" -nt "$out" ] || [ "$0" -nt "$out" ] ||
   [ -n "$(find "$data/tokenizers" "$data/eval/sts" "$data/train/parallel" "$root/tests/trainer/fixtures/bert_golden/golden.json" \
                 "$root/tests/trainer/fixtures/t5_golden/model/tokenizer.json" -newer "$out" -print -quit)" ]; then
  SWE_HF_TOKENIZERS_CACHE="$cache" node "$tool" --out "$out" >&2
fi
echo "$out"
