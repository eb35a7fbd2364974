#!/usr/bin/env python3
"""The main table of docs/RESULTS.md from `swe eval --json` and `swe-trainer eval --json` records.

usage: results_tables.py TEACHER.jsonl STUDENTS.jsonl -- MODEL.swe...   (columns in the given order)
"""
import json
import os
import sys

STS = ["stsb", "sts12", "sts13", "sts14", "sts15", "sick", "sts17"]
LABELS = {  # model stem -> column heading
    "glove-100d-50k-int8": "GloVe 100-d",
    "extract": "3.1 extraction",
    "pca-noabtt": "3.2 PCA, no ABTT",
    "pca-abtt": "3.2 PCA + ABTT",
    "pca-word": "word-level PCA + ABTT",
    "swe-en-use-lite": "3.3 KD",
    "swe-en-use-lite-large": "3.3 KD, 40k words, N = 50 (shipped)",
}


def load(path):
    scores = {}
    for line in open(path):
        r = json.loads(line)
        scores.setdefault(r["model"], {})[r["task"]] = r
    return scores


def main():
    sep = sys.argv.index("--")
    teacher, students = load(sys.argv[1]), load(sys.argv[2])
    paths = sys.argv[sep + 1:]
    columns = [(name, scores) for name, scores in teacher.items()]
    columns += [(os.path.splitext(os.path.basename(p))[0], students.get(os.path.splitext(os.path.basename(p))[0], {}))
                for p in paths]
    heads = ["USE-lite (teacher)" if n == "use-lite" else LABELS.get(n, n) for n, _ in columns]
    print("| task | metric | " + " | ".join(heads) + " |")
    print("|---|---|" + "---:|" * len(columns))
    tasks = [t for t in STS + ["tatoeba", "sst2", "sst5", "subj", "mpqa", "trec"]
             if any(t in s for _, s in columns)]
    for task in tasks:
        metric = next(s[task]["metric"] for _, s in columns if task in s)
        cells = ["%.1f" % s[task]["score"] if task in s else "" for _, s in columns]
        print("| %s | %s | %s |" % (task, metric, " | ".join(cells)))
        if task == STS[-1] or (task in STS and not any(t in STS for t in tasks[tasks.index(task) + 1:])):
            avg = []
            for _, s in columns:
                have = [s[t]["score"] for t in STS if t in s]
                avg.append("**%.1f**" % (sum(have) / len(have)) if len(have) == len([t for t in STS if t in tasks]) else "")
            print("| STS average | spearman | " + " | ".join(avg) + " |")
    sizes = ["" if n == "use-lite" else "%.1f" % (os.path.getsize(p) / 1e6) for (n, _), p in
             zip(columns, [None] * (len(columns) - len(paths)) + paths)]
    print("| model size (MB) | | " + " | ".join(sizes) + " |")


if __name__ == "__main__":
    main()
