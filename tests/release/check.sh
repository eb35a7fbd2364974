#!/usr/bin/env bash
# Tests the native release tarball as a user would: unpacks it into a temporary prefix, runs its swe,
# and builds tests/release/encode.c with `pkg-config --cflags --libs swe` (shared), with `--static`,
# and as a CMake project with find_package(swe); each program loads the default model and encodes.
# usage: check.sh dist/swe-VERSION-linux-ARCH.tar.gz
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tarball=$(realpath "$1")
model=$(realpath "$here/../../models/swe-en-use-lite-large-para.swe")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$tarball"
prefix=$(echo "$tmp"/swe-*)
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
"$prefix/bin/swe" similarity "$model" "a cat sits on a mat" "a kitten rests on a rug" >/dev/null
cd "$tmp"
# shellcheck disable=SC2046  # pkg-config's output is meant to be split into words
cc -std=c99 -Wall -Werror "$here/encode.c" -o encode_pc $(pkg-config --cflags --libs swe)
LD_LIBRARY_PATH="$prefix/lib" ./encode_pc "$model"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror "$here/encode.c" -o encode_pc_static \
  $(pkg-config --cflags swe) "$prefix/lib/libswe.a" $(pkg-config --static --libs-only-l swe | sed 's/-lswe//')
./encode_pc_static "$model"
cmake -S "$here/cmake_project" -B cmake_build -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build cmake_build >/dev/null
LD_LIBRARY_PATH="$prefix/lib" ./cmake_build/encode_shared "$model"
./cmake_build/encode_static "$model"
echo "release check: ok"
