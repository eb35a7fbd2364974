#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, runs every GoogleTest suite (ctest), then the
# sanitizer build's suites and the fuzzers for a bounded time. FUZZ_SECONDS (default 60) per fuzzer;
# SWE_SKIP_ASAN=1 skips the sanitizer pass for a quicker local loop (CI never sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
mkdir -p build
ctest --preset native -j"$(nproc)" 2>&1 | tee build/ctest-native.log
if [ "${SWE_SKIP_ASAN:-0}" != 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j"$(nproc)"
  ctest --preset asan -j"$(nproc)" 2>&1 | tee build/ctest-asan.log
fi
bash tests/fuzz/run.sh "${FUZZ_SECONDS:-60}"
# The WebAssembly build and the npm package's tests (node:test; parity with the native build above).
bash scripts/build-wasm.sh
(cd js && node --test --test-reporter=spec test/) 2>&1 | tee build/node-test.log
# One closing line over every suite that ran (ctest's own summaries are above).
cat build/ctest-*.log | awk '/tests passed, [0-9]+ tests failed out of/ {
  for (i = 1; i <= NF; i++) { if ($i == "out") total += $(i + 2); if ($i == "failed") failed += $(i - 2) } }
  END { printf "tests: %d passed, %d failed\n", total - failed, failed }'
awk '/^[^ ]+ (pass|fail|skipped) [0-9]+$/ { n[$2] = $3 }
  END { printf "js tests: %d passed, %d failed, %d skipped\n", n["pass"], n["fail"], n["skipped"] }' build/node-test.log
