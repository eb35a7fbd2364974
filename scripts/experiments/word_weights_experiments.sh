#!/usr/bin/env bash
# Corpus word weights on the shipped English models (docs/RESULTS.md, "Word weights from corpus
# frequencies"): counts each vocabulary row over the training corpus with the model's own tokenizer
# (once, cached), writes SIF (a in 1e-2 .. 1e-5) and log-rank Zipf weights into copies of the default
# and its base, scores every copy on the dev sets, and prints the leave-one-set-out tables.
#   bash scripts/experiments/word_weights_experiments.sh
# Writes build/word-weights/: counts.tsv, the weight files, the weighted models, weights-MODEL.jsonl/.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
swe=build/native/bin/swe
out=build/word-weights
tasks=stsb,sts12,sts13,sts14,sts15,sick,sts17,scifact
mkdir -p "$out"
if [ ! -s "$out/counts.tsv" ]; then
  zstd -dc ../shared/data/train/en-sentences.txt.zst |
    nice "$swe" tokenize models/swe-en-use-lite-large-para.swe --count - >"$out/counts.tsv.tmp"
  mv "$out/counts.tsv.tmp" "$out/counts.tsv"
fi
schemes=(sif-1e-2 sif-3e-3 sif-1e-3 sif-3e-4 sif-1e-4 sif-3e-5 sif-1e-5 zipf)
for scheme in "${schemes[@]}"; do
  case $scheme in
    sif-*) /usr/bin/python3 scripts/word_weights.py "$out/counts.tsv" sif --a "${scheme#sif-}" >"$out/$scheme.tsv" ;;
    zipf) /usr/bin/python3 scripts/word_weights.py "$out/counts.tsv" zipf >"$out/$scheme.tsv" ;;
  esac
done
# The base has the default's 39,998 words (its init.model), so the default's counts fit it too.
for model in swe-en-use-lite-large-para swe-en-use-lite-large; do
  weighted=()
  for scheme in "${schemes[@]}"; do
    nice "$swe" convert --from swe "models/$model.swe" -o "$out/$model.$scheme.swe" --weights "$out/$scheme.tsv" >/dev/null
    weighted+=("$out/$model.$scheme.swe")
  done
  nice "$swe" eval "models/$model.swe" "${weighted[@]}" --tasks "$tasks" --no-details \
    --json "$out/weights-$model.jsonl" --markdown "$out/weights-$model.md" >/dev/null
  echo "## $model"
  cat "$out/weights-$model.md"
  echo
  /usr/bin/python3 scripts/experiments/leave_one_out.py "$model" "$out/weights-$model.jsonl"
  echo
done
