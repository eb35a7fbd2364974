#!/usr/bin/python3
"""Leave-one-set-out selection over `swe eval --json` records: for each evaluation set, the candidate
with the best mean score on all the other sets is chosen, and its score on the left-out set is
reported next to the baseline's. A candidate helps when it wins on sets it was not chosen on.

usage: leave_one_out.py BASELINE_MODEL RECORDS.jsonl...   (models are named as swe eval names them:
       the file name without .swe; every model must have a score on every task of the records)
"""
import json
import sys


def load(paths):
    scores = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                scores.setdefault(r["model"], {})[r["task"]] = r["score"]
    return scores


def mean(values):
    return sum(values) / len(values)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    baseline, scores = sys.argv[1], load(sys.argv[2:])
    if baseline not in scores:
        sys.exit(f"no records of the baseline {baseline}")
    tasks = list(scores[baseline])
    for model, by_task in scores.items():
        if sorted(by_task) != sorted(tasks):
            sys.exit(f"{model} is not scored on exactly the baseline's tasks {tasks}")
    print("| left out | chosen on the others | its mean on the others | left-out score | baseline's | change |")
    print("|---|---|---:|---:|---:|---:|")
    changes = []
    for left_out in tasks:
        others = [t for t in tasks if t != left_out]
        chosen = max(scores, key=lambda m: (mean([scores[m][t] for t in others]), m == baseline))
        change = scores[chosen][left_out] - scores[baseline][left_out]
        changes.append(change)
        print(f"| {left_out} | {chosen} | {mean([scores[chosen][t] for t in others]):.2f} | "
              f"{scores[chosen][left_out]:.2f} | {scores[baseline][left_out]:.2f} | {change:+.2f} |")
    print(f"| mean change | | | | | {mean(changes):+.2f} |")


if __name__ == "__main__":
    main()
