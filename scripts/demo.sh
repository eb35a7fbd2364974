#!/usr/bin/env bash
# The main job on the default model: builds swe, makes the default model if it is not there yet, and
# searches a few thousand real sentences (the STS Benchmark dev sentences from ../shared/data) for
# each QUERY given (or three example queries).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh >/dev/null
model=models/glove-100d-50k-int8.swe
[ -f "$model" ] || bash scripts/make-placeholder-model.sh
data=${SWE_SHARED_DATA:-../shared/data}
docs=build/demo-docs.txt
cut -f6,7 "$data/eval/sts/stsbenchmark/sts-dev.csv" | tr '\t' '\n' | awk 'NF && !seen[$0]++' > "$docs"
[ $# -gt 0 ] || set -- "a man is playing a guitar" "stock markets fell sharply" "a dog runs across the grass"
build/native/bin/swe info "$model"
build/native/bin/swe search "$model" --docs "$docs" -k 5 "$@"
