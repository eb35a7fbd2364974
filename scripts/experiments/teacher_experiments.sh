#!/usr/bin/env bash
# The teacher fine-tuning experiments (docs/RESULTS.md, "Teacher fine-tuning"): recipes/use-lite-tuned.json
# and variants of it, each tuned by `swe-trainer tune` in a work directory of its own, then the
# tuned teacher (and, with snapshots, the weights of every evaluation) scored as a teacher on the dev
# sets by `swe-trainer eval --teacher use-lite DIR --teacher-weights FILE` (the code of `swe eval`).
#   bash scripts/experiments/teacher_experiments.sh [NAME...]          (default: every variant below)
#   SWE_TEACHER_TASKS=LIST   the tasks scored (default: the seven STS dev sets; add scifact for the chosen)
#   SWE_THREADS=N            torch threads of the tuning and the scoring (default 1)
# Writes build/teacher/NAME.json (the recipe), NAME.log, NAME.jsonl (the tuned teacher's scores, model
# NAME) and NAME.step-N.jsonl (each snapshot's, model NAME.step-N), for scripts/experiments/leave_one_out.py, and one
# line per run to build/teacher/runs.tsv: name, wall seconds of the tuning, best step / steps, scores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export OMP_WAIT_POLICY=PASSIVE  # libgomp's spin-waits halve torch on a shared 2-core machine
trainer=${SWE_TRAINER:-build/native/trainer/swe-trainer}
tasks=${SWE_TEACHER_TASKS:-stsb,sts12,sts13,sts14,sts15,sick,sts17}
threads=${SWE_THREADS:-1}  # one torch thread: two are slower on 2 cores shared with other jobs
base=recipes/use-lite-tuned.json
out=build/teacher
mkdir -p "$out"
dir=$(bash scripts/fetch-use-lite.sh)

# NAME -> Python edits of the recipe dict r (t = r["tune"], o = t["objectives"]).
declare -A variants=(
  # The recipe: NLI triples only (12,220: SNLI dev + test, MultiNLI dev), lr 1e-4, 4 epochs, the
  # held-out loss and a snapshot at each epoch's end.
  [nli-lr1e-4]=''
  [nli-lr5e-5]='t.update(lr=5e-5)'
  [nli-lr2e-5]='t.update(lr=2e-5)'
  # The NLI triples and as many paraphrase pairs (12,961: seeded subsets of the default student's files), 2 epochs.
  [nli-para13k-lr1e-4]='para({"coco_val2017": 4000, "parasci": 3000, "twitterurl": 1500, "multipit": 2500, "wikisplit": 1000, "../nli/mnli_dev_entail_pairs": 961}); t.update(max_epochs=2)'
)

# Scores one weights file as the teacher NAME: NAME.jsonl.
score() {
  local weights=$1 name=$2
  "$trainer" eval --teacher use-lite "$dir" --teacher-weights "$weights" --tasks "$tasks" --threads "$threads" \
    --json "$out/$name.raw.jsonl" > /dev/null 2>> "$out/$name.eval.log"
  python3 -c 'import json,sys
with open(sys.argv[2], "w") as f:
    for l in open(sys.argv[1]):
        r = json.loads(l); r["model"] = sys.argv[3]; f.write(json.dumps(r) + "\n")' \
    "$out/$name.raw.jsonl" "$out/$name.jsonl" "$name"
  rm -f "$out/$name.raw.jsonl"
}

names=("$@")
[ ${#names[@]} -eq 0 ] && names=("${!variants[@]}")
for name in "${names[@]}"; do
  [ -n "${variants[$name]+x}" ] || { echo "unknown variant $name" >&2; exit 1; }
  python3 - "$base" "$out/$name.json" "$name" "$dir" <<PY
import json, sys
r = json.load(open(sys.argv[1]))
r["name"], r["work_dir"] = "use-lite-" + sys.argv[3], "build/teacher/" + sys.argv[3]
t = r["tune"]; o = t["objectives"]
def para(caps):  # a paraphrase objective: files of ../shared/data/train/paraphrase by name, each capped
  o.append({"kind": "contrastive", "weight": 1,
            "data": [{"path": f"../shared/data/train/paraphrase/{n}.tsv", "max": c} for n, c in caps.items()]})
${variants[$name]}
json.dump(r, open(sys.argv[2], "w"), indent=2)
PY
  SECONDS=0
  "$trainer" tune --recipe "$out/$name.json" --threads "$threads" 2> "$out/$name.log"
  secs=$SECONDS
  weights=build/teacher/$name/teacher.safetensors
  score "$weights" "$name"
  for snap in build/teacher/"$name"/teacher.step-*.safetensors; do
    [ -e "$snap" ] || continue
    step=${snap##*step-}; step=${step%.safetensors}
    [ -s "$out/$name.step-$step.jsonl" ] || score "$snap" "$name.step-$step"
  done
  best=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stats"]; print("%d/%d" % (s["best_step"], s["steps"]))' "$weights.json")
  scores=$(python3 -c 'import json,sys
rs = [json.loads(l) for l in open(sys.argv[1])]
sts = [r["score"] for r in rs if r["metric"] == "spearman"]
print(" ".join("%s=%.2f" % (r["task"], r["score"]) for r in rs), "avg7=%.2f" % (sum(sts) / len(sts)))' "$out/$name.jsonl")
  printf '%s\t%ss\tbest step %s\t%s\n' "$name" "$secs" "$best" "$scores" | tee -a "$out/runs.tsv"
done
