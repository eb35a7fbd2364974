#!/usr/bin/env python3
# Before/after ratios of two encode_bench builds in one run: alternates BASE and NEW ROUNDS times
# (the machine is shared and noisy), prints the median ns/word per (corpus, mode), the ratio of the
# medians and of the fastest runs, and the spread.
#   python3 bench/compare_builds.py BASE_BINARY NEW_BINARY ROUNDS [encode_bench arguments...]
# Also two wasm_vs_native builds (its load times in ms: `MODEL SENTENCES --mode load`); BASE_BINARY
# and NEW_BINARY may be "BINARY@MODEL" to give each build its own model file (the value of --model,
# else the first argument): e.g. a base build that predates the model file's format.
import json, subprocess, sys, statistics, collections
base, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
args = sys.argv[4:]
res = {b: collections.defaultdict(list) for b in ("base", "new")}
for r in range(rounds):
    for name, b in (("base", base), ("new", new)):
        binary, _, model = b.partition("@")
        run_args = list(args)
        if model:  # the value of --model (encode_bench), else the first argument (wasm_vs_native)
            run_args[run_args.index("--model") + 1 if "--model" in run_args else 0] = model
        out = subprocess.run([binary] + run_args, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            j = json.loads(line)
            if j.get("impl") == "native":
                for key in ("load_ms", "load_file_ms"):
                    if key in j: res[name][("model", key)].append(j[key])
            if j.get("bench") != "encode": continue
            res[name][(j["corpus"], j["mode"])].append(j["ns_per_word"])
# The ratio of the best runs too: the noise of a shared machine only ever adds time.
print(f"{'corpus':8} {'mode':15} {'base':>10} {'new':>10} {'ratio':>6} {'best':>6}  (ns/word or ms; median of {rounds} alternating runs; ratio of the fastest; spread base/new)")
for k in res["base"]:
    b, n = statistics.median(res["base"][k]), statistics.median(res["new"][k])
    bb, bn = min(res["base"][k]), min(res["new"][k])
    sb = f"{bb:.0f}-{max(res['base'][k]):.0f}"; sn = f"{bn:.0f}-{max(res['new'][k]):.0f}"
    print(f"{k[0]:8} {k[1]:15} {b:10.1f} {n:10.1f} {b/n:6.2f} {bb/bn:6.2f}  {sb} / {sn}")
