#!/usr/bin/env bash
# The Matryoshka experiments (docs/RESULTS.md, "Matryoshka dimensions"): variants of the default
# recipe recipes/en-use-lite-large-para.json (the contrastive step on the base model), each scored on
# the seven dev STS sets at 256, 128 and 64 dims (`swe eval --dims N`: the first N dims, normalised).
#   bash scripts/experiments/matryoshka_experiments.sh [NAME...]    (default: para mrl; see `variants` below)
# Writes build/matryoshka/NAME.swe, NAME.json (the recipe), NAME.log, NAME-dN.jsonl (swe eval --json:
# the leave-one-set-out input, scripts/experiments/leave_one_out.py) and one line per run and dims to
# build/matryoshka/runs.tsv: name, wall seconds, dims, each set's score and the 7-set mean (of the
# unrounded scores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export OMP_WAIT_POLICY=PASSIVE  # libgomp's spin-waits halve torch on a shared 2-core machine
swe=build/native/bin/swe
trainer=${SWE_TRAINER:-build/native/trainer/swe-trainer}
base=recipes/en-use-lite-large-para.json
out=build/matryoshka
tasks=stsb,sts12,sts13,sts14,sts15,sick,sts17
mkdir -p "$out"
bash scripts/fetch-use-lite.sh >/dev/null

# NAME -> Python edits of the recipe dict r (f = r["refine"]).
declare -A variants=(
  [para]=''
  [para-seed2]='r["seed"] = 2'
  [mrl]='f["matryoshka"] = [64, 128]'
  [mrl-seed2]='f["matryoshka"] = [64, 128]; r["seed"] = 2'
  [mrl64x2]='f["matryoshka"] = [{"dims": 64, "weight": 2}, 128]'
  # Learned word weights (a scale per row, folded into the rows at the end).
  [ww]='f["word_weights"] = True'
  [ww-seed2]='f["word_weights"] = True; r["seed"] = 2'
)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(para mrl)
for name in "${names[@]}"; do
  [ -n "${variants[$name]+x}" ] || { echo "unknown variant $name" >&2; exit 1; }
  python3 - "$base" "$out/$name.json" "$out/$name.swe" "$name" <<PY
import json, sys
r = json.load(open(sys.argv[1]))
r["export"]["path"], r["name"] = sys.argv[3], "swe-en-use-lite-large-" + sys.argv[4]
f = r["refine"]
${variants[$name]}
json.dump(r, open(sys.argv[2], "w"), indent=2)
PY
  SECONDS=0
  "$trainer" train --recipe "$out/$name.json" --quiet 2> "$out/$name.log"
  secs=$SECONDS
  for dims in 256 128 64; do
    "$swe" eval "$out/$name.swe" --tasks "$tasks" --dims "$dims" --no-details --json "$out/$name-d$dims.jsonl" >/dev/null
    scores=$(python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join("%s=%.1f" % (x["task"], x["score"]) for x in r), "avg=%.2f" % (sum(x["score"] for x in r) / len(r)))' \
      "$out/$name-d$dims.jsonl")
    printf '%s\t%ss\t%s\t%s\n' "$name" "$secs" "$dims" "$scores" | tee -a "$out/runs.tsv"
  done
done
