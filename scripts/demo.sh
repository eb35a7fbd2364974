#!/usr/bin/env bash
# The main job on the shipped default model (models/swe-en-use-lite-large.swe, distilled from Universal
# Sentence Encoder Lite; its model card is beside it): builds swe and searches a few thousand real
# sentences (the STS Benchmark dev sentences from ../shared/data) for each QUERY given (or three
# example queries). SWE_MODEL=path picks another model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh >/dev/null
model=${SWE_MODEL:-models/swe-en-use-lite-large.swe}
data=${SWE_SHARED_DATA:-../shared/data}
docs=build/demo-docs.txt
cut -f6,7 "$data/eval/sts/stsbenchmark/sts-dev.csv" | tr '\t' '\n' | awk 'NF && !seen[$0]++' > "$docs"
[ $# -gt 0 ] || set -- "a man is playing a guitar" "stock markets fell sharply" "a dog runs across the grass"
build/native/bin/swe info "$model"
build/native/bin/swe search "$model" --docs "$docs" -k 5 "$@"
