#!/usr/bin/env bash
# The main job on the shipped default model (models/swe-en-use-lite-large-para.swe: distilled from Universal
# Sentence Encoder Lite, then refined on paraphrases and NLI; its model card is beside it): installs only what the native build needs,
# builds only the swe program (no tests, benchmarks or trainer) and searches a few thousand real
# sentences (the STS Benchmark dev sentences from ../shared/data) for each QUERY given (or three
# example queries). SWE_MODEL=path picks another model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --native
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DSWE_BUILD_TESTS=OFF -DSWE_BUILD_BENCH=OFF \
  -DSWE_BUILD_TRAINER=OFF >/dev/null
cmake --build build/demo --target swe_cli -j"$(nproc)" >/dev/null
swe=build/demo/bin/swe
model=${SWE_MODEL:-models/swe-en-use-lite-large-para.swe}
data=${SWE_SHARED_DATA:-../shared/data}
docs=build/demo-docs.txt
cut -f6,7 "$data/eval/sts/stsbenchmark/sts-dev.csv" | tr '\t' '\n' | awk 'NF && !seen[$0]++' > "$docs"
[ $# -gt 0 ] || set -- "a man is playing a guitar" "stock markets fell sharply" "a dog runs across the grass"
"$swe" info "$model"
"$swe" search "$model" --docs "$docs" -k 5 "$@"
