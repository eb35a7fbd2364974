#!/usr/bin/python3
"""Count the lines of training files (tab-separated, plain or .zst) that contain a sentence of an
evaluation set (the STS sets and SciFact's queries): exact, or equal after lower-casing and dropping
everything but letters and digits (stricter than the "ignoring punctuation" filter
../shared/data/README.md describes: spaces and hyphens are dropped too). A file fit to train on has 0.

usage: eval_overlap.py EVAL_DIR TRAIN_FILE...    (EVAL_DIR: ../shared/data/eval)
Prints one line per file (lines, lines with an evaluation sentence, one example) and exits 1 when
any file has one.
"""
import glob
import json
import os
import re
import subprocess
import sys


def normalise(sentence):
    return re.sub(r"[\W_]+", "", sentence.lower())


def eval_sentences(eval_dir):
    """The sentences of the STS sets (STS-B, SICK, STS12-17) and the SciFact queries, normalised."""
    root, out = os.path.join(eval_dir, "sts"), set()
    for path in glob.glob(os.path.join(root, "STS1*", "STS.input.*.txt")):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                out.update(line.rstrip("\n").split("\t")[:2])
    for path in glob.glob(os.path.join(root, "stsbenchmark", "sts-*.csv")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                out.update(line.rstrip("\n").split("\t")[5:7])
    for path in glob.glob(os.path.join(root, "sick2014", "SICK_*.txt")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                out.update(line.rstrip("\n").split("\t")[1:3])
    queries = os.path.join(eval_dir, "retrieval", "scifact", "queries.jsonl")
    if os.path.exists(queries):
        with open(queries, encoding="utf-8") as f:
            out.update(json.loads(line)["text"] for line in f if line.strip())
    return {normalise(s) for s in out} - {""}


def lines(path):
    if path.endswith(".zst"):
        text = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
        return text.decode("utf-8", errors="replace").splitlines()
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    seen = eval_sentences(sys.argv[1])
    if not seen:
        sys.exit(f"no evaluation sentences under {sys.argv[1]}")
    found_any = False
    for path in sys.argv[2:]:
        rows = lines(path)
        hits = [line for line in rows if any(normalise(s) in seen for s in line.split("\t"))]
        found_any = found_any or bool(hits)
        example = f"\te.g. {hits[0][:120]!r}" if hits else ""
        print(f"{path}\t{len(rows)} lines\t{len(hits)} with an evaluation sentence{example}")
    sys.exit(1 if found_any else 0)


if __name__ == "__main__":
    main()
