#!/usr/bin/env bash
# Builds the fuzzers (preset "fuzz", clang + libFuzzer + ASan/UBSan), writes the seed corpus and runs
# every target for SECONDS each (default 60). Exits non-zero if any target finds a crash.
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"
work=build/fuzz/corpus
mkdir -p "$work/model" "$work/index" "$work/text" build/fuzz/artifacts
build/fuzz/tests/fuzz/make_fuzz_seeds "$work"
printf 'The cat sat on the mat.\nStraße Café 日本語 😀 unaffable\n' > "$work/text/seed0.txt"
printf '\xff\xfe\xc3\x28 \xe2\x82 ##aff \xf0\x9f' > "$work/text/seed1.txt"
for target in model_reader_fuzz:model index_reader_fuzz:index tokenizer_fuzz:text; do
  name=${target%%:*}
  echo "fuzz: $name for ${seconds}s"
  log=build/fuzz/$name.log
  # Inputs that once crashed (tests/fuzz/regressions/<corpus>-*) must keep passing.
  for input in tests/fuzz/regressions/"${target##*:}"-*; do
    [ -e "$input" ] || continue
    "build/fuzz/tests/fuzz/$name" "$input" >"$log" 2>&1 || { tail -n 30 "$log"; echo "fuzz: regression $input FAILED"; exit 1; }
  done
  if ! "build/fuzz/tests/fuzz/$name" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 "$work/${target##*:}" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $name FAILED (crash input in build/fuzz/artifacts)"
    exit 1
  fi
  grep -E "^(stat::number_of_executed_units|Done)" "$log" || tail -n 3 "$log"
done
echo "fuzz: all targets ran clean"
