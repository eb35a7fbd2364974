#!/usr/bin/env bash
# The Node addon for ARM64 (preset node-aarch64, Debian's cross compiler) run as users on an arm64
# Linux run it: loaded by Node for arm64 (Debian's nodejs:arm64 18 and the libraries it needs, unpacked
# into .cache/node-arm64 with apt-get download, never installed) under qemu-aarch64, through the npm
# package's native backend (SWE_BACKEND=native). Its vectors of the STS-B dev sentences and its saved
# index must be the x86 addon's, bit for bit (arm64.mjs). About a minute under emulation.
# usage: tests/node/arm64.sh     (scripts/test-aarch64.sh runs it; needs scripts/install-deps.sh's packages)
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset node-aarch64 >/dev/null
cmake --build --preset node-aarch64 -j"$(nproc)" >/dev/null
[ -f build/node/node/swe.node ] || { cmake --preset node >/dev/null; cmake --build --preset node -j"$(nproc)" >/dev/null; }
[ -f js/dist/swe.js ] || bash scripts/build-wasm.sh >/dev/null  # the package imports it (the wasm backend)

# Node for arm64: the packages' files, unpacked once (the externalised builtins at /usr/share/nodejs
# too: qemu -L looks up absolute paths under the root first).
root=${SWE_NODE_ARM64_ROOT:-$PWD/.cache/node-arm64}
if [ ! -x "$root/usr/bin/node" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq nodejs:arm64 libnode108:arm64 libbrotli1:arm64 libc-ares2:arm64 libicu72:arm64 \
     libnghttp2-14:arm64 libssl3:arm64 libuv1:arm64 zlib1g:arm64 node-cjs-module-lexer node-acorn node-undici 2>/dev/null)
  mkdir -p "$root.tmp"
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$root.tmp"; done
  rm -rf "$tmp" "$root"
  mv "$root.tmp" "$root"
fi
run_arm64() {
  LD_LIBRARY_PATH=$root/usr/lib/aarch64-linux-gnu qemu-aarch64 -L "$root" "$root/usr/bin/node" "$@"
}
[ "$(run_arm64 -p process.arch)" = arm64 ] || { echo "arm64: Node under qemu is not arm64" >&2; exit 1; }
echo "arm64: $(run_arm64 -p '`Node ${process.version} ${process.arch}, Node-API ${process.versions.napi}`')"
x86=$(SWE_BACKEND=native SWE_NATIVE_ADDON=build/node/node/swe.node node tests/node/arm64.mjs)
arm=$(SWE_BACKEND=native SWE_NATIVE_ADDON=build/node-aarch64/node/swe.node run_arm64 tests/node/arm64.mjs)
echo "x86-64: $x86"
echo "arm64:  $arm"
[ "$x86" = "$arm" ] || { echo "arm64: the ARM64 addon's results differ from x86-64's" >&2; exit 1; }
case $arm in *'"backend":"native"'*) ;; *) echo "arm64: the addon was not used" >&2; exit 1 ;; esac
echo "arm64: the addon's vectors and index file are x86-64's, bit for bit"
