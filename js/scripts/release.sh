#!/usr/bin/env bash
# Builds the WebAssembly module and the native addon and packs the npm packages into OUTDIR:
#   swe-embeddings-X.Y.Z.tgz              the library, swe.wasm prebuilt inside (from js/); it lists the
#                                         platform packages as optional dependencies
#   swe-embeddings-model-en-X.Y.Z.tgz     the default model and its card (js/model-en/ + models/)
#   swe-embeddings-linux-x64-X.Y.Z.tgz    the native addon swe.node (cmake preset `node`, js/platform/)
#   swe-embeddings-linux-arm64-X.Y.Z.tgz  the same for ARM64 (preset `node-aarch64`), when it was built
#                                         (SWE_RELEASE_ARM64=1 builds it)
# X.Y.Z is the VERSION file's; every package.json version must equal it. Prints the paths.
# usage: js/scripts/release.sh OUTDIR     (SWE_RELEASE_SKIP_BUILD=1: use js/dist and build/node* as they are)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: js/scripts/release.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
version=$(tr -d '[:space:]' < VERSION)
model=swe-en-use-lite-large-para

for pkg in js/package.json js/model-en/package.json js/platform/package.json; do
  v=$(node -p "require('./$pkg').version")
  [ "$v" = "$version" ] || { echo "release: $pkg has version $v, VERSION says $version" >&2; exit 1; }
done
if [ "${SWE_RELEASE_SKIP_BUILD:-}" != 1 ]; then
  bash scripts/build-wasm.sh >/dev/null
  cmake --preset node >/dev/null && cmake --build --preset node -j"$(nproc)" >/dev/null
  if [ "${SWE_RELEASE_ARM64:-}" = 1 ]; then
    cmake --preset node-aarch64 >/dev/null && cmake --build --preset node-aarch64 -j"$(nproc)" >/dev/null
  fi
fi
for f in js/dist/swe.js js/dist/swe.wasm "models/$model.swe" "models/$model.md" build/node/node/swe.node; do
  [ -f "$f" ] || { echo "release: $f is missing" >&2; exit 1; }
done

pack() {  # pack DIR: npm pack into $out, quietly; prints the tarball's path
  local name
  name=$(cd "$1" && npm pack --pack-destination "$out" --loglevel=error | tail -n 1)
  echo "$out/$name"
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

pack js
mkdir "$stage/model"
cp js/model-en/package.json js/model-en/index.js js/model-en/index.d.ts js/model-en/README.md "$stage/model/"
cp "models/$model.swe" "models/$model.md" "$stage/model/"
pack "$stage/model"

# platform ARCH (npm's cpu name) BUILD: the platform package of linux-ARCH around BUILD/node/swe.node.
platform() {
  local dir=$stage/linux-$1
  mkdir "$dir"
  cp js/platform/index.js js/platform/README.md "$dir/"
  cp "$2/node/swe.node" "$dir/"
  node -e '
    const [from, to, arch] = process.argv.slice(1);
    const pkg = JSON.parse(require("fs").readFileSync(from, "utf8"));
    Object.assign(pkg, { name: `swe-embeddings-linux-${arch}`, os: ["linux"], cpu: [arch] });
    require("fs").writeFileSync(to, JSON.stringify(pkg, null, 2) + "\n");' js/platform/package.json "$dir/package.json" "$1"
  pack "$dir"
}
platform x64 build/node
if [ -f build/node-aarch64/node/swe.node ]; then platform arm64 build/node-aarch64; fi
