#!/usr/bin/env bash
# The CPU experiments with the refinement objectives (docs/RESULTS.md, "Refinement objectives on the
# CPU"): variants of recipes/en-use-lite-large-nli-cpu.json, which starts from the shipped default
# model (init.model) and refines it for a few epochs on 2 cores, each scored on the dev sets only
# (STS-B dev, STS12-15, SICK, STS17; SciFact nDCG@10). All variants share one work directory, so the
# teacher's vectors of the KD sentences are computed once (cached); every variant re-runs refine and
# export.
#   bash scripts/experiments/objectives_experiments.sh [NAME...]    (default: every variant; see `variants` below)
# Writes build/objectives/NAME.swe, NAME.json (the recipe), NAME.log, NAME.jsonl (the scores, for
# scripts/experiments/leave_one_out.py), and one line per run to build/objectives/runs.tsv: name, wall seconds
# (training and export), dev scores and their means, each objective's held-out loss (initial -> best)
# and the epoch kept.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export OMP_WAIT_POLICY=PASSIVE  # libgomp's spin-waits halve torch on a shared 2-core machine
swe=build/native/bin/swe
trainer=${SWE_TRAINER:-build/native/trainer/swe-trainer}  # as scripts/experiments/results.sh; the trainer preset builds build/trainer/trainer/swe-trainer
base=recipes/en-use-lite-large-nli-cpu.json
out=build/objectives
tasks=stsb,sts12,sts13,sts14,sts15,sick,sts17,scifact
mkdir -p "$out"
bash scripts/fetch-use-lite.sh >/dev/null
nli='"../shared/data/train/nli/nli_triples.tsv"'
para=../shared/data/train/paraphrase

# NAME -> Python edits of the recipe dict r (o = r["refine"]["objectives"]).
declare -A variants=(
  [kd]='o[:] = [o[0]]'
  [kd-nli0.1]=''
  [kd-nli0.5]='o[1]["weight"] = 0.5'
  [kd-nli0.02]='o[1]["weight"] = 0.02'
  [nli]='o[:] = [o[1]]'
  [nli-2ep]='o[:] = [o[1]]; r["refine"]["max_epochs"] = 2'
  [nli-15ep]='o[:] = [o[1]]; r["refine"]["max_epochs"] = 15'
  [distance]='o[:] = [{"kind": "distance", "weight": 1}]'
  [distance-2ep]='o[:] = [{"kind": "distance", "weight": 1}]; r["refine"]["max_epochs"] = 2'
  [kd-distance]='o[:] = [o[0], {"kind": "distance", "weight": 1}]'
  [kd-nli-para]="o.append({\"kind\": \"contrastive\", \"weight\": 0.1, \"data\": [{\"path\": \"$para/coco_val2017.tsv\", \"max\": 10000}, {\"path\": \"$para/parasci.tsv\", \"max\": 5000}, {\"path\": \"$para/twitterurl.tsv\", \"max\": 5000}]})"
  [pca128]='o[:] = []; r["compress"] = {"method": "pca", "dims": 128}'
  [pca64]='o[:] = []; r["compress"] = {"method": "pca", "dims": 64}'
  [mcr128]='o[:] = []; r["compress"] = {"method": "mcr2", "dims": 128, "clusters": 32}'
  [mcr64]='o[:] = []; r["compress"] = {"method": "mcr2", "dims": 64, "clusters": 32}'
  # Contrastive refinement at scale with lazy Adam (helpers below): NLI triples plus paraphrase pairs.
  [lazy-nli-15ep]='o[:] = [o[1]]; lazy(1e-3, 15)'
  [para3-5ep]='o[:] = [nli(1), para(PARA3)]; lazy(1e-3, 5)'
  [para3-20ep]='o[:] = [nli(1), para(PARA3)]; lazy(1e-3, 20)'
  [para3-lr3e-3]='o[:] = [nli(1), para(PARA3)]; lazy(3e-3, 20)'
  [para5-20ep]='o[:] = [nli(1), para(PARA5)]; lazy(1e-3, 20)'
  [para3-lr1e-2]='o[:] = [nli(1), para(PARA3)]; lazy(1e-2, 20)'
  [para3-lr3e-3-60ep]='o[:] = [nli(1), para(PARA3)]; lazy(3e-3, 60)'
  [para5-lr1e-2]='o[:] = [nli(1), para(PARA5)]; lazy(1e-2, 15)'
  [para3-lr1e-2-tau0.1]='o[:] = [nli(1, tau=0.1), para(PARA3, tau=0.1)]; lazy(1e-2, 20)'
  [para3-lr1e-2-tau0.2]='o[:] = [nli(1, tau=0.2), para(PARA3, tau=0.2)]; lazy(1e-2, 20)'
  [para5-tau0.1]='o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  [para5-tau0.1-seed2]='o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15); r["seed"] = 2'
  [kd-para5-tau0.1]='o[:] = [o[0], nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  # More in-batch negatives, and every MultiPIT pair (the default's recipe caps it at 40k).
  [para5-tau0.1-b256]='o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15); r["refine"]["batch_size"] = 256'
  [para5-tau0.1-b512]='o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15); r["refine"]["batch_size"] = 512'
  [paraall-tau0.1]='o[:] = [nli(1, tau=0.1), para(PARA_ALL, tau=0.1)]; lazy(1e-2, 15)'
  [paraall-tau0.1-seed2]='o[:] = [nli(1, tau=0.1), para(PARA_ALL, tau=0.1)]; lazy(1e-2, 15); r["seed"] = 2'
  # KD corpus size on the CPU: the default's base distilled further on corpus
  # sentences it never saw (lines 1,000,001-1,300,000; its vocabulary, extraction and KD sentences came
  # from the first million), to convergence; then the default's contrastive step on top of each.
  [kdmore100k]='kdmore(100000, 1e-3)'
  [kdmore300k]='kdmore(300000, 1e-3)'
  [kdmore100k-para5]='from_model("kdmore100k"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  [kdmore300k-para5]='from_model("kdmore300k"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  # Vocabulary size: recipes/en-use-lite.json (20,000 words, the first table's
  # "3.3 KD" column) trained whole with every corpus word seen 5 times (71,792), then the default's
  # contrastive step, then PCA to 200 dims (int8 <= 15 MB).
  [vocab80k]='whole("recipes/en-use-lite.json", 80000)'
  # The same before KD (extraction, PCA), from a copy of vocab80k's work directory (made below; the
  # stages are cached by their inputs, so only export runs): run vocab80k first.
  [vocab80k-nokd]='whole("recipes/en-use-lite.json", 80000); r["refine"] = {"method": "none"}'
  [vocab80k-nokd-para5]='from_model("vocab80k-nokd"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  [vocab80k-nokd-para5-pca200]='from_model("vocab80k-nokd-para5"); o[:] = []; r["compress"] = {"method": "pca", "dims": 200}'
  [vocab80k-para5]='from_model("vocab80k"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  [vocab80k-para5-pca200]='from_model("vocab80k-para5"); o[:] = []; r["compress"] = {"method": "pca", "dims": 200}'
  # The default's contrastive step on the base trained to convergence on a GPU (scripts/gpu/experiments.sh
  # kdconv, copied to build/objectives/gpu-kdconv.swe).
  [gpu-kdconv-para5]='from_model("gpu-kdconv"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  [gpu-kdconv-para5-seed2]='from_model("gpu-kdconv"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15); r["seed"] = 2'
  # The same step on the two other GPU runs (vocab122k, kdmore700k; copied to build/objectives/gpu-NAME.swe).
  [gpu-vocab122k-para5]='from_model("gpu-vocab122k"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  [gpu-vocab122k-para5-seed2]='from_model("gpu-vocab122k"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15); r["seed"] = 2'
  [gpu-kdmore700k-para5]='from_model("gpu-kdmore700k"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  # The same step on the GPU runs with KD batches of 1024 (SWE_GPU_BATCH=1024 SWE_GPU_LR=0.003), and on
  # vocab122k cut to its 54,000 commonest words (`swe convert --from swe --top 54000`: 14.8 MB).
  [gpu-kdmore700k-b1024-para5]='from_model("gpu-kdmore700k-b1024"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  [gpu-kdmore700k-b1024-para5-seed2]='from_model("gpu-kdmore700k-b1024"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15); r["seed"] = 2'
  [gpu-vocab122k-top54k-para5]='from_model("gpu-vocab122k-top54k"); o[:] = [nli(1, tau=0.1), para(PARA5, tau=0.1)]; lazy(1e-2, 15)'
  # More supervision, each source added alone to the default (para5-tau0.1): MultiNLI dev triples join
  # the NLI objective (its entailment pairs without a contradiction join the paraphrases); the others
  # join the paraphrase objective. Bible verses are archaic: capped.
  [para5-mnli]='default(triples=MNLI, pairs=[("../nli/mnli_dev_entail_pairs", 961)])'
  [para5-squad]='default(pairs=[("squad11_question_sentence", 10429)])'
  [para5-argkp]='default(pairs=[("argkp_argument_keypoint", 5547)])'
  [para5-concise]='default(pairs=[("wiki_conciseness", 11344)])'
  [para5-bible40k]='default(pairs=[("bible_versions.tsv.zst", 40000)])'
  [para5-mnli-seed2]='default(triples=MNLI, pairs=[("../nli/mnli_dev_entail_pairs", 961)]); r["seed"] = 2'
  [para5-mnli-squad]='default(triples=MNLI, pairs=[("../nli/mnli_dev_entail_pairs", 961), NEW4[0]])'
  # Every new source at once.
  [para5-new5]='default(triples=MNLI, pairs=[("../nli/mnli_dev_entail_pairs", 961)] + NEW4)'
  [para5-new5-seed2]='default(triples=MNLI, pairs=[("../nli/mnli_dev_entail_pairs", 961)] + NEW4); r["seed"] = 2'
  # The 0.3.0 default's recipe (recipes/en-use-lite-large-para.json without its later changes: tau 0.1,
  # NLI weight 1, no abtt; one thread, so that two run side by side), changed one setting at a time.
  # NAME-abttN (any variant's model): abtt with remove N applied to it afterwards (compress.method
  # abtt, docs/TRAINER.md "Compression"; no training).
  [d030]='d030()'
  [d030-bnli]='d030(); o[0]["data"].append("../shared/data/train/nli/nli_triples.breaking_nli.tsv")'
  [d030-nliw2]='d030(); o[0]["weight"] = 2'
  [d030-tau0.05]='d030(); tau(0.05)'
  [d030-tau0.07]='d030(); tau(0.07)'
  [d030-tau0.07-seed2]='d030(); tau(0.07); r["seed"] = 2'
  [d030-tau0.07-nliw2]='d030(); tau(0.07); o[0]["weight"] = 2'
  [d030-tau0.07-nliw2-seed2]='d030(); tau(0.07); o[0]["weight"] = 2; r["seed"] = 2'
  [d030-tau0.07-nliw3]='d030(); tau(0.07); o[0]["weight"] = 3'
  [d030-nlitau0.05-nliw2]='d030(); o[0].update(tau=0.05, weight=2)'
  [d030-lr5e-3]='d030(); r["refine"].update(lr=5e-3, max_epochs=25)'
  [d030-decay6]='d030(); r["refine"].update(lr_decay="linear", max_epochs=6, patience=6)'
  [d030-decay10]='d030(); r["refine"].update(lr_decay="linear", max_epochs=10, patience=10)'
)
# The KD variants' unseen corpus slice (filtered like the whole file: it is a part of it).
slice=$out/en-sentences-1m-1.3m.txt
if [[ " $* " == *" kdmore"* && ! -s $slice ]]; then
  zstd -dc ../shared/data/train/en-sentences.txt.zst | sed -n '1000001,1300000p' > "$slice"
fi
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(kd kd-nli0.1 kd-nli0.5 nli distance pca128 pca64 mcr128 mcr64)
for name in "${names[@]}"; do
  if [[ $name =~ ^(.+)-abtt([0-9]+)$ ]]; then
    variants[$name]="from_model(\"${BASH_REMATCH[1]}\"); o[:] = []; r[\"compress\"] = {\"method\": \"abtt\", \"remove\": ${BASH_REMATCH[2]}}"
  fi
  [ -n "${variants[$name]+x}" ] || { echo "unknown variant $name" >&2; exit 1; }
  if [ "$name" = vocab80k-nokd ] && [ ! -d build/train/objectives-vocab80k-nokd ]; then
    cp -r build/train/objectives-vocab80k build/train/objectives-vocab80k-nokd
  fi
  python3 - "$base" "$out/$name.json" "$out/$name.swe" "$name" <<PY
import json, sys
r = json.load(open(sys.argv[1]))
r["export"]["path"], r["name"] = sys.argv[3], "swe-en-use-lite-large-" + sys.argv[4]
o = r["refine"]["objectives"]
def nli(w, **kw): return dict(o[1], weight=w, **kw)  # the NLI triples objective, reweighted
def para(files, w=1.0, **kw):  # one contrastive objective over paraphrase files, each capped
  path = lambda f: f"$para/{f}" + ("" if f.endswith(".zst") else ".tsv")
  return dict(kind="contrastive", weight=w, data=[{"path": path(f), "max": cap} for f, cap in files], **kw)
def lazy(lr, epochs): r["refine"].update(optimizer="lazy_adam", lr=lr, max_epochs=epochs)
PARA3 = [("coco_val2017", 20000), ("parasci", 10000), ("twitterurl", 11109)]
PARA5 = [("coco_val2017", 50000), ("parasci", 40179), ("twitterurl", 11109), ("multipit", 40000), ("wikisplit", 15000)]
PARA_ALL = PARA5[:3] + [("multipit", 138755), ("wikisplit", 15000)]
def kdmore(n, lr):  # KD only, on the first n sentences of the unseen slice, in a work directory of its own
  r["corpus"] = {"paths": ["$slice"], "max_sentences": n}
  r["refine"]["sentences"], r["refine"]["patience"], r["work_dir"] = n, 2, "build/train/objectives-" + sys.argv[4]
  o[:] = [o[0]]; lazy(lr, 30)
def whole(path, words):  # another base recipe, trained from the corpus, in a work directory of its own
  r.clear(); r.update(json.load(open(path)), name="swe-" + sys.argv[4], work_dir="build/train/objectives-" + sys.argv[4])
  r["vocab"]["size"], r["export"]["path"] = words, sys.argv[3]
MNLI = ["../shared/data/train/nli/mnli_dev_triples.tsv"]
NEW4 = [("squad11_question_sentence", 10429), ("argkp_argument_keypoint", 5547), ("wiki_conciseness", 11344),
        ("bible_versions.tsv.zst", 40000)]
def default(triples=[], pairs=[]):  # the default (para5-tau0.1) with more NLI triple files and paraphrase files
  o[:] = [nli(1, tau=0.1), para(PARA5 + pairs, tau=0.1)]; o[0]["data"] = o[0]["data"] + triples; lazy(1e-2, 15)
def from_model(name): r["init"]["model"] = "$out/" + name + ".swe"
def tau(t):
  for x in o: x["tau"] = t
def d030():  # the default's recipe as it was in 0.3.0, in a work directory of its own
  r.clear(); r.update(json.load(open("recipes/en-use-lite-large-para.json")), name="swe-" + sys.argv[4], threads=1,
                      work_dir="build/train/objectives-" + sys.argv[4])
  r["export"]["path"] = sys.argv[3]; o[:] = r["refine"]["objectives"]; r["refine"]["objectives"] = o
  tau(0.1); o[0]["weight"] = 1; r.pop("compress", None)
${variants[$name]}
if not o: r["refine"] = {"method": "none"}
json.dump(r, open(sys.argv[2], "w"), indent=2)
PY
  SECONDS=0
  "$trainer" train --recipe "$out/$name.json" --quiet 2> "$out/$name.log"
  secs=$SECONDS
  # avg: the six dev sets (STS-B dev, STS12-15, SICK); avg7: with STS17; scifact apart (nDCG@10).
  scores=$("$swe" eval "$out/$name.swe" --tasks "$tasks" --no-details --json "$out/$name.jsonl" 2>/dev/null |
    awk '$4 == "spearman" || $4 == "ndcg@10" {printf "%s=%s ", $2, $(NF-1)}
      $4 == "spearman" && $2 != "sts17" {dev += $(NF-1); n++} $4 == "spearman" {sts += $(NF-1); m++}
      END {printf "avg=%.2f avg7=%.2f", dev / n, sts / m}')
  # Each objective's held-out loss (initial -> best, in recipe order) and the epoch kept.
  heldout=$("$swe" info "$out/$name.swe" | awk '/-heldout/ && /initial/ {i = $NF} /-heldout/ && /best/ {
    printf "%s%s:%s->%s", sep, $2, i, $NF; sep = " "}')
  best=$(sed -n 's/^refine: held-out loss .*(best epoch \(.*\))$/\1/p' "$out/$name.log")
  printf '%s\t%ss\t%s\t%s\tbest epoch %s\n' "$name" "$secs" "$scores" "$heldout" "$best" | tee -a "$out/runs.tsv"
done
