#!/usr/bin/env bash
# ARM64: core and its tests cross-compiled with Debian's aarch64 compiler (preset `aarch64`), run under
# qemu-aarch64 once per kernel variant (SWE_SIMD=generic, neon), parity tests included; the preset leaves
# out the tests of wall-clock bounds and huge pages, which emulation cannot meet (x86 runs them). Then
# the Node addon for arm64 (tests/node/arm64.sh: the same vectors and index file as x86-64's). Needs the
# packages of scripts/install-deps.sh (the cross compiler, qemu-user, the arm64 multiarch libraries).
# Logs: build/ctest-aarch64-<variant>.log (scripts/test.sh's summary counts them).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset aarch64 >/dev/null
cmake --build --preset aarch64 -j"$(nproc)"
mkdir -p build
for variant in generic neon; do
  # SWE_SIMD falls back silently on a name the CPU lacks: check that the variant is the one in use.
  scans=$(SWE_SIMD=$variant qemu-aarch64 build/aarch64/tests/hamming_test --gtest_filter='Hamming.EveryScan*')
  [[ $scans == *"(in use: $variant)"* ]] || { echo "test-aarch64: SWE_SIMD=$variant is not in use" >&2; exit 1; }
  SWE_SIMD=$variant ctest --preset aarch64 -j"$(nproc)" 2>&1 | tee "build/ctest-aarch64-$variant.log"
done
bash tests/node/arm64.sh
