#!/usr/bin/env bash
# Builds the WebAssembly module with Emscripten (the 'wasm' preset) into build/wasm, and copies swe.js
# and swe.wasm into js/dist/ for the npm package. The first run fetches zstd's and Cap'n Proto's
# sources with apt-get source into .cache/deps-src/ (scripts/fetch-deps.sh); later runs reuse them and
# the objects already built under build/wasm. Needs the packages of scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}  # Debian's emscripten finds acorn there
command -v emcc >/dev/null || { echo "build-wasm: emcc is missing (bash scripts/install-deps.sh)" >&2; exit 1; }
bash scripts/fetch-deps.sh >/dev/null
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j"$(nproc)"
echo "build-wasm: js/dist/swe.js, js/dist/swe.wasm ($(stat -c %s js/dist/swe.wasm) bytes)"
