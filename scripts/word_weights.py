#!/usr/bin/python3
"""Word weights from corpus counts, for `swe convert --from swe IN.swe -o OUT.swe --weights FILE`.

Reads `swe tokenize MODEL --count CORPUS` output ("word<TAB>count", one line per vocabulary row) and
prints "word<TAB>weight" for every word:
  sif A   a / (a + p(w)), p(w) = count / total count (Arora et al.'s smooth inverse frequency)
  zipf    log(1 + rank), rank 1 = the most frequent word (Model2Vec's log-rank weighting); words never
          seen rank after every seen one, in row order
"""
import argparse
import math
import sys


def read_counts(path):
    words, counts = [], []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            word, tab, count = line.rstrip("\n").rpartition("\t")
            if not tab or not count.isdigit():
                sys.exit(f"{path}:{number}: expected 'word<TAB>count'")
            words.append(word)
            counts.append(int(count))
    if sum(counts) == 0:
        sys.exit(f"{path}: no word was counted")
    return words, counts


def sif_weights(counts, a):
    total = sum(counts)
    return [a / (a + c / total) for c in counts]


def zipf_weights(counts):
    order = sorted(range(len(counts)), key=lambda i: -counts[i])  # stable: ties keep row order
    weights = [0.0] * len(counts)
    for rank, i in enumerate(order, 1):
        weights[i] = math.log(1 + rank)
    return weights


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("counts", help="swe tokenize MODEL --count CORPUS output")
    parser.add_argument("scheme", choices=["sif", "zipf"])
    parser.add_argument("--a", type=float, default=1e-3, help="SIF's a (default 1e-3)")
    args = parser.parse_args()
    if not args.a > 0:
        sys.exit("--a must be > 0")
    words, counts = read_counts(args.counts)
    weights = sif_weights(counts, args.a) if args.scheme == "sif" else zipf_weights(counts)
    out = sys.stdout
    for word, weight in zip(words, weights):
        out.write(f"{word}\t{weight:.9g}\n")


if __name__ == "__main__":
    main()
