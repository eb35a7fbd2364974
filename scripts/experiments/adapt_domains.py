#!/usr/bin/python3
"""The retrieval domains on which `swe-trainer adapt`'s defaults are chosen (docs/RESULTS.md, "adapt"),
built from ../shared/data into a cache (never committed):

  scifact    BEIR SciFact: the 5,183 abstracts; dev = the claims of qrels/train.tsv, test = qrels/test.tsv
  squad      SQuAD v1.1 dev questions -> the Wikipedia sentence that answers each (every distinct
             sentence of squad11_question_sentence.tsv is a passage)
  argkp      ArgKP key points -> the arguments that match them (every distinct argument is a passage):
             a key point reads like a query ("Assisted suicide reduces suffering") and the arguments
             are the text a user has, so they are what adapt sees
  twitterurl news headlines -> the tweets that link the same article (every distinct tweet is a passage)

Each domain is a folder OUT/NAME with passages.txt (one passage a line: the corpus `adapt` sees; no
query is in it) and two BEIR directories over the same passages, dev/ and test/, each with its own
half of the queries (seeded split; SciFact keeps its own splits). Defaults are chosen on dev/ only
and reported on test/ (scripts/experiments/adapt_experiments.py).

usage: adapt_domains.py [--data ../shared/data] [--out .cache/adapt-domains]
"""
import argparse
import json
import os
import random


def write_beir(folder, passages, queries, qrels):
    """passages: [text]; queries: {qid: text}; qrels: {qid: [passage index]}."""
    os.makedirs(f"{folder}/qrels", exist_ok=True)
    with open(f"{folder}/corpus.jsonl", "w", encoding="utf-8") as f:
        for i, text in enumerate(passages):
            f.write(json.dumps({"_id": f"p{i}", "title": "", "text": text}, ensure_ascii=False) + "\n")
    with open(f"{folder}/queries.jsonl", "w", encoding="utf-8") as f:
        for qid in sorted(qrels):
            f.write(json.dumps({"_id": qid, "text": queries[qid]}, ensure_ascii=False) + "\n")
    with open(f"{folder}/qrels/test.tsv", "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid in sorted(qrels):
            for p in sorted(set(qrels[qid])):
                f.write(f"{qid}\tp{p}\t1\n")


def write_domain(out, name, passages, queries, dev, test):
    folder = f"{out}/{name}"
    os.makedirs(folder, exist_ok=True)
    with open(f"{folder}/passages.txt", "w", encoding="utf-8") as f:
        f.writelines(p + "\n" for p in passages)
    write_beir(f"{folder}/dev", passages, queries, dev)
    write_beir(f"{folder}/test", passages, queries, test)
    print(f"{name}: {len(passages)} passages, {len(dev)} dev and {len(test)} test queries")


def clean(text):
    return " ".join(text.split())


def pairs_domain(out, name, path, query_column):
    """A pairs file as queries (one column) over every distinct text of the other (the passages);
    the queries split in two halves, seeded."""
    passages, index, queries, qrels = [], {}, {}, {}
    query_ids = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 2:
                continue
            query, passage = clean(cols[query_column]), clean(cols[1 - query_column])
            if not query or not passage:
                continue
            if passage not in index:
                index[passage] = len(passages)
                passages.append(passage)
            qid = query_ids.setdefault(query, f"q{len(query_ids)}")
            queries[qid] = query
            qrels.setdefault(qid, []).append(index[passage])
    ids = sorted(qrels, key=lambda q: int(q[1:]))
    random.Random(1).shuffle(ids)
    half = len(ids) // 2
    write_domain(out, name, passages, queries, {q: qrels[q] for q in ids[:half]}, {q: qrels[q] for q in ids[half:]})


def scifact_domain(out, src):
    passages, index = [], {}
    with open(f"{src}/corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            index[d["_id"]] = len(passages)
            passages.append(clean(d["title"].rstrip(".") + ". " + d["text"]))
    queries = {}
    with open(f"{src}/queries.jsonl", encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            queries[q["_id"]] = q["text"]
    splits = {}
    for split in ("train", "test"):
        qrels = {}
        with open(f"{src}/qrels/{split}.tsv", encoding="utf-8") as f:
            next(f)
            for line in f:
                qid, doc, score = line.rstrip("\n").split("\t")[:3]
                if int(score) > 0:
                    qrels.setdefault(qid, []).append(index[doc])
        splits[split] = qrels
    write_domain(out, "scifact", passages, queries, splits["train"], splits["test"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--out", default=".cache/adapt-domains")
    a = parser.parse_args()
    para = f"{a.data}/train/paraphrase"
    scifact_domain(a.out, f"{a.data}/eval/retrieval/scifact")
    pairs_domain(a.out, "squad", f"{para}/squad11_question_sentence.tsv", 0)
    pairs_domain(a.out, "argkp", f"{para}/argkp_argument_keypoint.tsv", 1)
    pairs_domain(a.out, "twitterurl", f"{para}/twitterurl.tsv", 0)


if __name__ == "__main__":
    main()
