#!/usr/bin/env bash
# Builds the WebAssembly module and packs the two npm packages into OUTDIR:
#   swe-embeddings-X.Y.Z.tgz            the library, swe.wasm prebuilt inside (from js/)
#   swe-embeddings-model-en-X.Y.Z.tgz   the default model and its card (js/model-en/ + models/)
# X.Y.Z is the VERSION file's; both package.json versions must equal it. Prints the two paths.
# usage: js/scripts/release.sh OUTDIR     (SWE_RELEASE_SKIP_BUILD=1: use js/dist as it is)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: js/scripts/release.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
version=$(tr -d '[:space:]' < VERSION)
model=swe-en-use-lite-large-para

for pkg in js/package.json js/model-en/package.json; do
  v=$(node -p "require('./$pkg').version")
  [ "$v" = "$version" ] || { echo "release: $pkg has version $v, VERSION says $version" >&2; exit 1; }
done
[ "${SWE_RELEASE_SKIP_BUILD:-}" = 1 ] || bash scripts/build-wasm.sh >/dev/null
for f in js/dist/swe.js js/dist/swe.wasm "models/$model.swe" "models/$model.md"; do
  [ -f "$f" ] || { echo "release: $f is missing" >&2; exit 1; }
done

pack() {  # pack DIR: npm pack into $out, quietly; prints the tarball's path
  local name
  name=$(cd "$1" && npm pack --pack-destination "$out" --loglevel=error | tail -n 1)
  echo "$out/$name"
}

pack js
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp js/model-en/package.json js/model-en/index.js js/model-en/index.d.ts js/model-en/README.md "$stage/"
cp "models/$model.swe" "models/$model.md" "$stage/"
pack "$stage"
