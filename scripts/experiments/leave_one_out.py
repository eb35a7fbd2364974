#!/usr/bin/python3
"""Leave-one-set-out selection over `swe eval --json` records: for each evaluation set, the candidate
with the best mean score on all the other sets is chosen, and its score on the left-out set is
reported next to the baseline's. A candidate helps when it wins on sets it was not chosen on.

usage: leave_one_out.py BASELINE_MODEL RECORDS.jsonl... [--report RECORDS.jsonl...]
       (models are named as swe eval names them: the file name without .swe; every model must have a
       score on every task of the records). With --report, the candidates are chosen on the first
       records (e.g. dev queries) and the left-out set's scores are read from the --report records
       (e.g. the same sets' test queries).
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


def check(baseline, scores):
    if baseline not in scores:
        sys.exit(f"no records of the baseline {baseline}")
    tasks = list(scores[baseline])
    for model, by_task in scores.items():
        if sorted(by_task) != sorted(tasks):
            sys.exit(f"{model} is not scored on exactly the baseline's tasks {tasks}")
    return tasks


def leave_one_out(baseline, scores, report=None):
    """Prints the table; `report` (default: `scores`) holds the left-out scores. Returns the changes."""
    report = report or scores
    tasks = check(baseline, scores)
    if check(baseline, report) != tasks or sorted(report) != sorted(scores):
        sys.exit("the --report records must score the same models on the same tasks")
    print("| left out | chosen on the others | its mean on the others | left-out score | baseline's | change |")
    print("|---|---|---:|---:|---:|---:|")
    changes = []
    for left_out in tasks:
        others = [t for t in tasks if t != left_out]
        chosen = max(scores, key=lambda m: (mean([scores[m][t] for t in others]), m == baseline))
        change = report[chosen][left_out] - report[baseline][left_out]
        changes.append(change)
        print(f"| {left_out} | {chosen} | {mean([scores[chosen][t] for t in others]):.2f} | "
              f"{report[chosen][left_out]:.2f} | {report[baseline][left_out]:.2f} | {change:+.2f} |")
    print(f"| mean change (worst) | | | | | {mean(changes):+.2f} ({min(changes):+.2f}) |")
    return changes


def main():
    args = sys.argv[1:]
    report = None
    if "--report" in args:
        at = args.index("--report")
        report, args = args[at + 1:], args[:at]
    if len(args) < 2 or report == []:
        sys.exit(__doc__)
    leave_one_out(args[0], load(args[1:]), load(report) if report else None)


if __name__ == "__main__":
    main()
