#!/usr/bin/env bash
# Installs the Debian packages the build and tests need (idempotent; apt runs only when something is
# missing). Run as root, or with sudo available.
#   bash scripts/install-deps.sh            everything: the native set below plus the test, trainer,
#                                           WebAssembly and browser packages (scripts/test.sh)
#   bash scripts/install-deps.sh --native   only what libswe and the swe program need (scripts/demo.sh)
# libtorch-dev (CPU) is for swe-trainer; --no-install-recommends matters for it (its recommends pull in
# ~200 packages).
set -euo pipefail
native=(build-essential cmake ca-certificates pkg-config
        capnproto libcapnp-dev libzstd-dev nlohmann-json3-dev libeigen3-dev)
rest=(git ccache python3 zstd googletest libgtest-dev unicode-data clang libclang-rt-14-dev  # ccache: scripts/test.sh builds core in several folders
      libtorch-dev libopenblas0-pthread libicu-dev
      emscripten dpkg-dev  # the WebAssembly build (dpkg-dev: apt-get source unpacks its sources)
      python3-dev python3-numpy python3-pybind11 python3-setuptools python3-wheel python3-venv python3-pip
      python3-pytest python3-dask python3-distributed python3-pandas  # the Python package (python/) and its tests
      strace  # python/tests: encode() does not count the CPUs on every call
      chromium fonts-noto-cjk  # the web demo's browser test (driven by npm playwright-core, web-demo/test/;
                               # the CJK font so that its screenshots show Japanese and Chinese)
      postgresql-15 postgresql-server-dev-15  # the PostgreSQL extension and its tests (tests/postgres)
      libkrb5-dev  # Citus's GSSAPI headers: the tests build Citus from ../shared/vendor (tests/postgres/vendor.sh)
      g++-aarch64-linux-gnu qemu-user  # ARM64: cross-built core tests under qemu (scripts/test-aarch64.sh)
      libcapnp-dev:arm64 libzstd-dev:arm64 libgtest-dev:arm64
      wrk curl)  # swe serve's load test and benchmark (tests/serve/run.sh, bench/serve_bench.sh)
case "${1:-}" in
  --native) packages=("${native[@]}") ;;
  "") packages=("${native[@]}" "${rest[@]}") ;;
  *) echo "usage: install-deps.sh [--native]" >&2; exit 2 ;;
esac
missing=()
if [ "${1:-}" != --native ]; then
  # Node.js may come from elsewhere than Debian (the machines here have Node 20 with its own npm).
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
  # node_api.h for the Node addon (node/): Node's own headers where they are (NodeSource's nodejs has
  # them), else Debian's libnode-dev.
  [ -f /usr/include/node/node_api.h ] || missing+=(libnode-dev)
fi
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# The :arm64 packages are Debian multiarch: dpkg must know the architecture before apt's update.
if [[ " ${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
