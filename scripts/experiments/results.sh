#!/usr/bin/env bash
# Trains the shipped English model and its ablations, scores them next to the teacher and GloVe with
# the same evaluation code, and writes the tables of docs/RESULTS.md (build/results/results.md).
#  1. swe-trainer train --recipe recipes/en-use-lite.json (every stage; resumes; the shipped model);
#  2. ablations that share its extraction (its work dir is copied, so only the later stages re-run):
#     extract (Sec. 3.1 alone: no PCA, no refinement), pca-noabtt (sentence-level PCA keeping the top
#     components), pca-abtt (Sec. 3.2: sentence-level PCA with ABTT), pca-word (word-level PCA with
#     ABTT); none of them refined. The recipe's own model is Sec. 3.3 (KD after 3.2);
#  3. swe eval on the students, the shipped default model and the GloVe placeholder, swe-trainer eval
#     on the teacher (USE-lite).
# On the 2-core machine step 1 takes about 30 minutes (extraction), the rest about 15.
# usage: scripts/experiments/results.sh [--tasks LIST]     (default: all tasks; e.g. --tasks sts for a quick run)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
tasks=all
[ "${1:-}" = --tasks ] && tasks=$2
export OMP_WAIT_POLICY=PASSIVE  # libgomp's spin-waits halve torch on a shared 2-core machine
bash scripts/build.sh >/dev/null
bash scripts/make-placeholder-model.sh >/dev/null
teacher="$(bash scripts/fetch-use-lite.sh)"
swe=build/native/bin/swe
trainer=build/native/trainer/swe-trainer
recipe=recipes/en-use-lite.json
out=build/results
mkdir -p "$out/recipes"
log() { echo "results: $*" >&2; }

SECONDS=0
"$trainer" train --recipe "$recipe" --quiet
log "trained $recipe (${SECONDS}s, resumed stages count as 0)"
base_work=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["work_dir"])' "$recipe")

# variant NAME PYTHON-EDITS: a copy of the recipe with edits applied to the dict r, in its own work dir.
variant() {
  local name=$1 edits=$2 work="$out/work/$1"
  python3 - "$recipe" "$out/recipes/$name.json" "$work" "$out/$name.swe" "$name" <<PY
import json, sys
r = json.load(open(sys.argv[1]))
r["work_dir"], r["export"]["path"], r["name"] = sys.argv[3], sys.argv[4], "swe-en-use-lite-" + sys.argv[5]
$edits
json.dump(r, open(sys.argv[2], "w"), indent=2)
PY
  if [ ! -f "$work/extract.json" ]; then
    mkdir -p "$work"
    cp "$base_work"/{vocab,sample,extract}.json "$base_work"/{vocab.tsv,samples.tsv,generic.txt,vectors.swm,counts.tsv} "$work/"
  fi
  "$trainer" train --recipe "$out/recipes/$name.json" --quiet
}
variant extract    'r["pca"]["mode"] = "none"; r["refine"]["method"] = "none"'
variant pca-noabtt 'r["pca"]["remove"] = 0; r["refine"]["method"] = "none"'
variant pca-abtt   'r["refine"]["method"] = "none"'
variant pca-word   'r["pca"]["mode"] = "word"; r["refine"]["method"] = "none"'

kd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["export"]["path"])' "$recipe")
# The default's base (recipes/en-use-lite-large.json, trained on a GPU machine) and the default (that
# base refined by contrastive learning, recipes/en-use-lite-large-para.json) are scored beside them.
models=(models/glove-100d-50k-int8.swe "$out/extract.swe" "$out/pca-noabtt.swe" "$out/pca-abtt.swe" "$out/pca-word.swe" "$kd"
        models/swe-en-use-lite-large.swe models/swe-en-use-lite-large-para.swe)
rm -f "$out/students.jsonl" "$out/teacher.jsonl"
"$swe" eval "${models[@]}" --tasks "$tasks" --json "$out/students.jsonl" --no-details >/dev/null
"$trainer" eval --teacher use-lite "$teacher" --tasks "$tasks" --json "$out/teacher.jsonl" --quiet >/dev/null
python3 scripts/experiments/results_tables.py "$out/teacher.jsonl" "$out/students.jsonl" -- "${models[@]}" > "$out/results.md"
cat "$out/results.md"
log "done in ${SECONDS}s; tables in $out/results.md"
