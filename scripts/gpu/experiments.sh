#!/usr/bin/env bash
# The GPU runs of docs/RESULTS.md ("Trained on a GPU"), side by side on one GPU, after
# scripts/gpu/build.sh, with the corpus carried as .gpu/en-sentences.txt.zst (scripts/gpu/pack.sh corpus):
#   kdconv     the default's base recipe (recipes/en-use-lite-large.json) trained to convergence:
#              at most 200 epochs, patience 5 (the shipped base stopped at its cap of 40, still falling)
#   vocab122k  the same with every word seen at least twice in the whole corpus (vocab.min_count 2,
#              size 150,000: 121,727 words exist), to convergence likewise
#   kdmore700k the shipped base (init.model) distilled further on the 721,093 corpus lines it never saw
#              (after the first 1,000,000), as the CPU's kdmore100k (lazy Adam 1e-3), to convergence
#              (at most 100 epochs, patience 3)
# Writes OUT/NAME.swe (split into 15 MB parts when larger: `cat NAME.swe.part* > NAME.swe`),
# OUT/logs.tar.gz (recipes, logs, each stage's JSON with its seconds) and prints each run's wall time;
# SWE_GPU_TIMEOUT (seconds) stops each run, which then leaves no model; SWE_GPU_THREADS (default 5)
# sets each run's CPU threads (15 for one run alone on the 16-core machine); SWE_GPU_BATCH and SWE_GPU_LR
# replace every run's refine batch size and learning rate (a GPU runs batches of 1024 as fast as of 128).
#   bash scripts/gpu/experiments.sh OUT [NAME...]
set -eo pipefail
out=$1; shift
names=("$@"); [ ${#names[@]} -eq 0 ] && names=(kdconv vocab122k kdmore700k)
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export OMP_WAIT_POLICY=PASSIVE
trainer=build/trainer-cuda/trainer/swe-trainer
mkdir -p build/gpu "$out"
[ -s .gpu/corpus.txt ] || unzstd .gpu/en-sentences.txt.zst > .gpu/corpus.txt
[ -s .gpu/unseen.txt ] || tail -n +1000001 .gpu/corpus.txt > .gpu/unseen.txt
SWE_GPU_THREADS=${SWE_GPU_THREADS:-5} python3 - <<'PY'
import json, os
def recipe(path, name, epochs):
    r = json.load(open(path))
    r.update(name="swe-" + name, work_dir="build/train/gpu-" + name, device="cuda",
             threads=int(os.environ["SWE_GPU_THREADS"]))
    r["corpus"]["paths"] = [".gpu/corpus.txt"]
    r["export"]["path"] = "build/gpu/" + name + ".swe"
    r["refine"].update(max_epochs=epochs, patience=5)
    return r
def tune(r):
    if os.environ.get("SWE_GPU_BATCH"): r["refine"]["batch_size"] = int(os.environ["SWE_GPU_BATCH"])
    if os.environ.get("SWE_GPU_LR"): r["refine"]["lr"] = float(os.environ["SWE_GPU_LR"])
    return r
r = recipe("recipes/en-use-lite-large.json", "kdconv", 200)
json.dump(tune(r), open("build/gpu/kdconv.json", "w"), indent=2)
r = recipe("recipes/en-use-lite-large.json", "vocab122k", 400)
del r["corpus"]["max_sentences"]
r["vocab"].update(size=150000, min_count=2)
json.dump(tune(r), open("build/gpu/vocab122k.json", "w"), indent=2)
r = recipe("recipes/en-use-lite-large-nli-cpu.json", "kdmore700k", 100)
r["corpus"] = {"paths": [".gpu/unseen.txt"]}
r["refine"].update(objectives=[{"kind": "kd", "weight": 1}], sentences=721093, patience=3,
                   optimizer="lazy_adam", lr=1e-3)
json.dump(tune(r), open("build/gpu/kdmore700k.json", "w"), indent=2)
PY
for name in "${names[@]}"; do
  ( SECONDS=0; timeout "${SWE_GPU_TIMEOUT:-3600}" "$trainer" train --recipe build/gpu/$name.json --quiet \
      > build/gpu/$name.log 2>&1 && rc=0 || rc=$?; echo "$name: rc $rc, ${SECONDS} s" | tee -a build/gpu/walls.txt ) &
done
wait
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> build/gpu/walls.txt || true
for name in "${names[@]}"; do
  f=build/gpu/$name.swe
  [ -s $f ] || continue
  if [ $(stat -c %s $f) -gt 15000000 ]; then split -b 15000000 -d $f "$out/$name.swe.part"; else cp $f "$out/"; fi
done
tar -czf "$out/logs.tar.gz" build/gpu/*.json build/gpu/*.log build/gpu/walls.txt build/train/gpu-*/*.json
cat build/gpu/walls.txt
