#!/usr/bin/env bash
# Packs what a GPU-machine call needs and cannot fetch there (no network, no apt) into .gpu/ (ignored
# through .git/info/exclude, carried by name): Debian 12's build dependencies of swe-trainer, pruned
# and unpacked into a prefix (deps.tar.zst, 12 MB), and with `corpus` a copy of the shared corpus
# (en-sentences.txt.zst, 49 MB). The teacher travels as its own folder (.cache/use-lite/...). A call
# carries at most 64 MiB, the working tree included, so the corpus goes in a call of its own
# (docs/TRAINER.md, "On a GPU machine without apt or network").
#   bash scripts/gpu/pack.sh [corpus]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mkdir -p .gpu
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download capnproto libcapnp-0.9.2 libcapnp-dev libzstd1 libzstd-dev nlohmann-json3-dev \
   libicu72 libicu-dev libgtest-dev >/dev/null 2>&1)
mkdir "$tmp/p"
for f in "$tmp"/*.deb; do dpkg -x "$f" "$tmp/p"; done
L=usr/lib/x86_64-linux-gnu
cp scripts/gpu/CapnProtoConfig.cmake "$tmp/p/$L/cmake/CapnProto/CapnProtoConfig.cmake"
rm -f "$tmp/p/$L/cmake/CapnProto/CapnProtoTargets.cmake"
(cd "$tmp/p" && tar -cf - usr/bin/capnp usr/bin/capnpc usr/bin/capnpc-c++ usr/include $L/cmake \
   $L/libcapnp-0.9.2.so $L/libkj-0.9.2.so $L/libcapnpc-0.9.2.so $L/libcapnp-json-0.9.2.so $L/libzstd.so $L/libzstd.so.1 $L/libzstd.so.1.5.4 $L/libzstd.a \
   $L/libgtest.a $L/libgtest_main.a \
   $L/libicuuc.so $L/libicuuc.so.72 $L/libicuuc.so.72.1 $L/libicudata.so $L/libicudata.so.72 \
   $L/libicudata.so.72.1 usr/share/cmake 2>/dev/null) | zstd -19 -T0 -q -f -o .gpu/deps.tar.zst
[ "${1:-}" = corpus ] && cp ../shared/data/train/en-sentences.txt.zst .gpu/
du -b .gpu/*
