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
    "swe-en-use-lite-large": "3.3 KD, 40k words, N = 50 (the default's base)",
    "swe-en-use-lite-large-para": "+ contrastive (NLI, paraphrases): the default",
}


def load(path):
    scores = {}
    for line in open(path):
        r = json.loads(line)
        scores.setdefault(r["model"], {})[r["task"]] = r
    return scores


def stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def main():
    sep = sys.argv.index("--")
    teacher, students = load(sys.argv[1]), load(sys.argv[2])
    paths = sys.argv[sep + 1:]
    # (name, scores, size in MB or None): the teacher first, then the models in the given order.
    columns = [(name, scores, None) for name, scores in teacher.items()]
    columns += [(stem(p), students.get(stem(p), {}), os.path.getsize(p) / 1e6) for p in paths]
    heads = ["USE-lite (teacher)" if n == "use-lite" else LABELS.get(n, n) for n, _, _ in columns]
    print("| task | metric | " + " | ".join(heads) + " |")
    print("|---|---|" + "---:|" * len(columns))
    tasks = [t for t in STS + ["tatoeba", "scifact", "sst2", "sst5", "subj", "mpqa", "trec"]
             if any(t in s for _, s, _ in columns)]
    sts = [t for t in tasks if t in STS]
    for task in tasks:
        metric = next(s[task]["metric"] for _, s, _ in columns if task in s)
        cells = ["%.1f" % s[task]["score"] if task in s else "" for _, s, _ in columns]
        print("| %s | %s | %s |" % (task, metric, " | ".join(cells)))
        if task == "scifact":  # BEIR's second figure, from the details
            cells = ["%.1f" % s[task]["details"]["recall@100"] if task in s else "" for _, s, _ in columns]
            print("| scifact | recall@100 | %s |" % " | ".join(cells))
        if sts and task == sts[-1]:  # the average of every STS task that ran, for the columns that have them all
            avg = ["**%.1f**" % (sum(s[t]["score"] for t in sts) / len(sts)) if all(t in s for t in sts) else ""
                   for _, s, _ in columns]
            print("| STS average | spearman | " + " | ".join(avg) + " |")
    sizes = ["" if size is None else "%.1f" % size for _, _, size in columns]
    print("| model size (MB) | | " + " | ".join(sizes) + " |")


if __name__ == "__main__":
    main()
