#!/usr/bin/env bash
# Installs the Debian packages the native build and tests need (idempotent; apt runs only when
# something is missing). Run as root, or with sudo available. libtorch-dev (CPU) is for swe-trainer;
# --no-install-recommends matters for it (its recommends pull in ~200 packages).
set -euo pipefail
packages=(build-essential cmake git python3 ca-certificates
          capnproto libcapnp-dev libzstd-dev zstd googletest libgtest-dev
          nlohmann-json3-dev libeigen3-dev unicode-data clang libclang-rt-14-dev
          libtorch-dev libopenblas0-pthread libicu-dev
          emscripten dpkg-dev  # the WebAssembly build (dpkg-dev: apt-get source unpacks its sources)
          chromium)  # the web demo's browser test (driven by npm playwright-core, web-demo/test/)
missing=()
# Node.js may come from elsewhere than Debian (the machines here have Node 20 with its own npm).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
