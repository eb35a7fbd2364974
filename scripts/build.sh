#!/usr/bin/env bash
# Configures and builds the native preset (library, CLI, tests, benchmarks) into build/native.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset native >/dev/null
cmake --build --preset native -j"$(nproc)"
