#!/usr/bin/env bash
# Builds the fuzzers (preset "fuzz", clang + libFuzzer + ASan/UBSan), writes the seed corpus and runs
# every target, then prints a summary (executions, exec/s, corpus files before/after, result) that it
# also writes to build/fuzz/summary.md. Exits non-zero if any target finds a crash.
# usage: tests/fuzz/run.sh [SECONDS] [RUNS]
#   SECONDS  wall time per target (default 60; 0 = no limit, then RUNS must be given)
#   RUNS     also stop a target after this many executions (default: no cap)
# FUZZ_PARALLEL=1 runs the targets side by side (one process each) instead of one after another: a
# long campaign on a multi-core machine. The corpus (build/fuzz/corpus) persists and grows across runs.
# FUZZ_TIMEOUT (default 10) is libFuzzer's per-input limit in wall-clock seconds: raise it for a run
# at nice 19 on a busy machine, where a starved process can pass 10 s on an input that takes 1 ms.
set -euo pipefail
seconds=${1:-60}
runs=${2:--1}
[ "$seconds" != 0 ] || [ "$runs" != -1 ] || { echo "fuzz: SECONDS 0 needs RUNS" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"
work=build/fuzz/corpus
mkdir -p "$work/model" "$work/index" "$work/log" "$work/text" "$work/docs" "$work/http" build/fuzz/artifacts
build/fuzz/tests/fuzz/make_fuzz_seeds "$work"
printf 'The cat sat on the mat.\nStraße Café 日本語 😀 unaffable\n' > "$work/text/seed0.txt"
printf '\xff\xfe\xc3\x28 \xe2\x82 ##aff \xf0\x9f' > "$work/text/seed1.txt"
# CJK text; the first byte (0..5) picks tokenizer_fuzz's bigrams/longest model.
for m in 0 1 2 3 4 5; do
  printf '%s 東京タワーに行きました。我喜欢学习中文 iPhone 15を買った 日本語\xff東京\n' "$m" > "$work/text/seed-cjk$m.txt"
done
# Documents files for docs_reader_fuzz: the first byte's low bit picks .jsonl (1) or plain text (0).
printf '1{"text": "the cat", "id": "a", "metadata": {"k": [1, {"x": null}]}}\n{"text": "dog", "id": 7}\n{"text": "\xff\xc3"}\n' > "$work/docs/seed-jsonl.txt"
printf '1{"text": "a", "metadata": [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]}\n{"id": "", "text": "b"}\n{"text": 1}\n' > "$work/docs/seed-jsonl-bad.txt"
printf '0the cat sat\n\n\xff\xfe caf\xc3\xa9\r\nlast' > "$work/docs/seed-text.txt"
# What clients send swe serve (http_parser_fuzz): the first byte picks the size of the pieces.
printf '\x07POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Length: 13\r\n\r\n{"input":"a"}GET /health HTTP/1.1\r\n\r\n' > "$work/http/seed-pipelined.txt"
printf '\x03POST /embed HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n5;x=y\r\n{"inp\r\n8\r\nuts":"a"\r\n1\r\n}\r\n0\r\nX-T: 1\r\n\r\n' > "$work/http/seed-chunked.txt"
printf '\x01\r\nGET /metrics?x=1 HTTP/1.0\nConnection: keep-alive\n\nGET / HTTP/2.0\r\n\r\n' > "$work/http/seed-http10.txt"
printf '\x05POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n' > "$work/http/seed-bad.txt"
rm -f build/fuzz/*.row
targets=(model_reader_fuzz:model index_reader_fuzz:index index_log_fuzz:log tokenizer_fuzz:text docs_reader_fuzz:docs
         http_parser_fuzz:http)

# fuzz NAME CORPUS: the regression inputs, then the campaign; writes build/fuzz/NAME.{log,row}.
fuzz() {
  local name=$1 corpus=$work/$2 log=build/fuzz/$1.log before result=clean
  # Inputs that once crashed (tests/fuzz/regressions/<corpus>-*) must keep passing.
  for input in tests/fuzz/regressions/"$2"-*; do
    [ -e "$input" ] || continue
    "build/fuzz/tests/fuzz/$name" "$input" >"$log" 2>&1 || { tail -n 30 "$log"; echo "fuzz: regression $input FAILED"; return 1; }
  done
  before=$(find "$corpus" -type f | wc -l)
  echo "fuzz: $name for ${seconds}s (runs cap ${runs/#-1/none}), $before corpus files"
  if ! "build/fuzz/tests/fuzz/$name" -max_total_time="$seconds" -runs="$runs" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-10}" \
      -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 "$corpus" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $name FAILED (crash input in build/fuzz/artifacts)"
    result=CRASH
  fi
  stat() { grep -oP "^stat::$1: *\K[0-9]+" "$log" || echo "?"; }
  echo "| $name | $(stat number_of_executed_units) | $(stat average_exec_per_sec) | $before |" \
       "$(find "$corpus" -type f | wc -l) | $(stat peak_rss_mb) | $result |" > "build/fuzz/$name.row"
  [ "$result" = clean ]
}

status=0
if [ "${FUZZ_PARALLEL:-0}" = 1 ]; then
  pids=()
  for target in "${targets[@]}"; do fuzz "${target%%:*}" "${target##*:}" & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
else
  for target in "${targets[@]}"; do fuzz "${target%%:*}" "${target##*:}" || status=1; done
fi
{
  echo "| fuzzer | executions | exec/s | corpus before | corpus after | peak RSS MB | result |"
  echo "|---|---:|---:|---:|---:|---:|---|"
  for target in "${targets[@]}"; do cat "build/fuzz/${target%%:*}.row" 2>/dev/null || true; done
} | tee build/fuzz/summary.md
[ "$status" = 0 ] && echo "fuzz: all targets ran clean" || echo "fuzz: FAILED"
exit "$status"
