#!/usr/bin/python3
"""`swe-trainer adapt` settings on several retrieval domains (scripts/experiments/adapt_domains.py builds
them), for choosing its defaults by leave-one-domain-out (docs/RESULTS.md, "adapt").

Every setting adapts the base model to each domain's passages.txt (no query seen), then scores the
adapted model and the base on the domain's dev and test queries with `swe eval --beir`. A run is the
recipe that `adapt --print-recipe` prints with the setting applied, run by `train` in one work directory
per domain and number of sentences, so the teacher's vectors of those sentences are computed once and
reused by every setting that uses them (the `adapt` command itself drops them when it finishes).

  adapt_experiments.py run [SETTING...]   adapt and score (default: every setting below); a setting whose
                                          scores are recorded is skipped
  adapt_experiments.py report             leave-one-domain-out: for each domain, the setting with the best
                                          mean dev gain on the other domains, and its gain on the left-out
                                          domain's test queries; then each setting's test gains

A setting is a name such as s5000-w5000-e30-lr0.05-m2 (sentences, words, max epochs, lr, min count).
Writes OUT/records.jsonl (one line per setting, domain and split: nDCG@10, the base's, the words added,
seconds), OUT/logs/ and OUT/DOMAIN/ (work directories and models). Environment: SWE_TRAINER, SWE (the
programs), SWE_ADAPT_OUT (default build/adapt-exp), SWE_ADAPT_DOMAINS (default .cache/adapt-domains),
SWE_USE_LITE_DIR (the teacher; default: what scripts/fetch-use-lite.sh prints).
"""
import json
import os
import re
import subprocess
import sys
import time

import leave_one_out

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAINER = os.environ.get("SWE_TRAINER", f"{ROOT}/build/native/trainer/swe-trainer")
SWE = os.environ.get("SWE", f"{ROOT}/build/native/bin/swe")
OUT = os.environ.get("SWE_ADAPT_OUT", f"{ROOT}/build/adapt-exp")
DOMAINS_DIR = os.environ.get("SWE_ADAPT_DOMAINS", f"{ROOT}/.cache/adapt-domains")
BASE = f"{ROOT}/models/swe-en-use-lite-large-para.swe"
DOMAINS = ["scifact", "squad", "argkp", "twitterurl"]
SPLITS = ["dev", "test"]
DEFAULT = {"s": 5000, "w": 5000, "e": 30, "lr": 0.05, "m": 2}

# One factor at a time around the shipped default, then combinations (added as the first pass showed).
SETTINGS = [
    "s5000-w5000-e30-lr0.05-m2",
    "s1000-w5000-e30-lr0.05-m2", "s2000-w5000-e30-lr0.05-m2", "s20000-w5000-e30-lr0.05-m2",
    "s0-w5000-e30-lr0.05-m2",
    "s5000-w1000-e30-lr0.05-m2", "s5000-w2000-e30-lr0.05-m2", "s5000-w20000-e30-lr0.05-m2",
    "s5000-w5000-e10-lr0.05-m2", "s5000-w5000-e60-lr0.05-m2", "s5000-w5000-e100-lr0.05-m2",
    "s5000-w5000-e30-lr0.01-m2", "s5000-w5000-e30-lr0.02-m2", "s5000-w5000-e30-lr0.1-m2",
    "s5000-w5000-e30-lr0.2-m2",
    "s5000-w5000-e30-lr0.05-m3", "s5000-w5000-e30-lr0.05-m5",
]


def parse_setting(name):
    m = re.fullmatch(r"s(\d+)-w(\d+)-e(\d+)-lr([0-9.e-]+)-m(\d+)", name)
    if not m:
        sys.exit(f"bad setting {name!r} (e.g. s5000-w5000-e30-lr0.05-m2)")
    return {"s": int(m[1]), "w": int(m[2]), "e": int(m[3]), "lr": float(m[4]), "m": int(m[5])}


def teacher_dir():
    env = os.environ.get("SWE_USE_LITE_DIR")
    if env:
        return env
    return subprocess.run(["bash", f"{ROOT}/scripts/fetch-use-lite.sh"], check=True, capture_output=True,
                          text=True).stdout.strip()


def load_records():
    path = f"{OUT}/records.jsonl"
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def append_records(records):
    with open(f"{OUT}/records.jsonl", "a", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def evaluate(model, domain):
    """nDCG@10 of `model` on the domain's dev and test queries."""
    tasks = ",".join(f"beir:{DOMAINS_DIR}/{domain}/{split}" for split in SPLITS)
    out = subprocess.run([SWE, "eval", model, "--tasks", tasks, "--json", "/dev/stdout"], check=True,
                         capture_output=True, text=True).stdout
    scores = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            scores[r["task"].rsplit("/", 1)[1]] = r["score"]
    return scores


def run_setting(name, teacher, base_scores, done):
    p = parse_setting(name)
    for domain in DOMAINS:
        if (name, domain) in done:
            continue
        folder = f"{OUT}/{domain}"
        os.makedirs(f"{OUT}/logs", exist_ok=True)
        os.makedirs(folder, exist_ok=True)
        model = f"{folder}/{name}.swe"
        recipe_text = subprocess.run(
            [TRAINER, "adapt", "--model", BASE, "--corpus", f"{DOMAINS_DIR}/{domain}/passages.txt",
             "--words", str(p["w"]), "--min-count", str(p["m"]), "--sentences", str(p["s"]),
             "--max-epochs", str(p["e"]), "--teacher", "use-lite", teacher, "-o", model,
             "--work", f"{folder}/s{p['s']}.work", "--print-recipe"],
            check=True, capture_output=True, text=True).stdout
        recipe = json.loads(recipe_text)
        recipe["refine"]["lr"] = p["lr"]
        recipe_path = f"{folder}/{name}.json"
        with open(recipe_path, "w", encoding="utf-8") as f:
            json.dump(recipe, f, indent=2)
        start = time.time()
        log = f"{OUT}/logs/{domain}-{name}.log"
        with open(log, "w", encoding="utf-8") as f:
            rc = subprocess.run(["nice", "-n", "5", TRAINER, "train", "--recipe", recipe_path, "--quiet"],
                                stdout=f, stderr=subprocess.STDOUT,
                                env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE")).returncode
        seconds = time.time() - start
        if rc != 0:
            print(f"{domain} {name}: swe-trainer failed ({rc}); see {log}", file=sys.stderr)
            continue
        refine = json.load(open(f"{folder}/s{p['s']}.work/refine.json", encoding="utf-8"))["stats"]
        with open(f"{folder}/s{p['s']}.work/added_words.tsv", encoding="utf-8") as f:
            added = sum(1 for _ in f)
        scores = evaluate(model, domain)
        os.remove(model)  # 11 MB each: the scores are what is kept
        records = [{"setting": name, "domain": domain, "split": split, "ndcg10": scores[split],
                    "base": base_scores[domain][split], "gain": scores[split] - base_scores[domain][split],
                    "words_added": added, "train_sentences": refine["train_sentences"],
                    "best_epoch": refine["best_epoch"], "epochs_run": len(refine["heldout_loss"]),
                    "heldout_loss": [refine["initial_heldout_loss"], refine["best_heldout_loss"]],
                    "seconds": round(seconds, 1)} for split in SPLITS]
        append_records(records)
        print(f"{domain} {name}: dev {records[0]['gain']:+.2f} test {records[1]['gain']:+.2f} "
              f"({added} words, {seconds:.0f} s)", flush=True)


def mean(values):
    return sum(values) / len(values)


def report():
    by = {}  # split -> setting -> domain -> nDCG@10, the base model's as "base"
    for r in load_records():
        by.setdefault(r["split"], {}).setdefault(r["setting"], {})[r["domain"]] = r["ndcg10"]
        by[r["split"]].setdefault("base", {})[r["domain"]] = r["base"]
    complete = {s for s in by.get("dev", {}) if all(d in by["dev"][s] and d in by["test"][s] for d in DOMAINS)}
    dev = {s: g for s, g in by["dev"].items() if s in complete}
    test = {s: g for s, g in by["test"].items() if s in complete}
    print("Leave one domain out: chosen on the other domains' dev queries, scored on the left-out domain's "
          "test queries (nDCG@10; the baseline: the unadapted default)\n")
    leave_one_out.leave_one_out("base", dev, test)
    print("\nEvery setting: the test gain per domain (the dev gain in brackets), their mean and the worst\n")
    print("| setting | " + " | ".join(DOMAINS) + " | mean | worst |")
    print("|---|" + "---:|" * (len(DOMAINS) + 2))
    gain = lambda split, s, d: by[split][s][d] - by[split]["base"][d]
    for s in sorted(complete - {"base"}, key=lambda s: -mean([gain("dev", s, d) for d in DOMAINS])):
        t = [gain("test", s, d) for d in DOMAINS]
        cells = [f"{gain('test', s, d):+.2f} ({gain('dev', s, d):+.2f})" for d in DOMAINS]
        print(f"| {s} | " + " | ".join(cells) + f" | {mean(t):+.2f} | {min(t):+.2f} |")
    print("\nThe unadapted default's nDCG@10 (dev / test): " +
          ", ".join(f"{d} {by['dev']['base'][d]:.1f} / {by['test']['base'][d]:.1f}" for d in DOMAINS))


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("run", "report"):
        sys.exit(__doc__)
    if sys.argv[1] == "report":
        report()
        return
    os.makedirs(OUT, exist_ok=True)
    settings = sys.argv[2:] or SETTINGS
    for s in settings:
        parse_setting(s)
    teacher = teacher_dir()
    base_scores = {d: evaluate(BASE, d) for d in DOMAINS}
    done = {(r["setting"], r["domain"]) for r in load_records()}
    for s in settings:
        run_setting(s, teacher, base_scores, done)


if __name__ == "__main__":
    main()
