#!/usr/bin/env bash
# Installs the extension from its release tarball alone (lib/*, extension/*) into a private copy
# of PostgreSQL 15, starts a server and checks that swe.embed gives the bytes `swe encode` gives.
# usage: check_tarball.sh dist/swe-postgres-VERSION-pg15-linux-ARCH.tar.gz   (env: SWE, the swe program)
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/postgres/lib.sh
tarball=$(realpath "$1")
swe=${SWE:-build/native/bin/swe}
model_name=swe-en-use-lite-large-para.swe
pg_setup swe-pg-tarball
tar -C "$tmp" -xzf "$tarball"
unpacked=$(echo "$tmp"/swe-postgres-*)
pg_tree_install "$bin" "$unpacked/lib/swe.so" "$unpacked"/extension/*
libdir=$("$bin/pg_config" --pkglibdir)
cp -r "$unpacked/lib/swe-libs" "$libdir/"
# Cap'n Proto comes from the tarball (swe.so's RPATH), not from the system.
ldd "$libdir/swe.so" >"$tmp/ldd.txt"
grep -E "libcapnp|libkj" "$tmp/ldd.txt"
for lib in libcapnp libkj; do
  grep -q "$lib-[0-9.]*\.so => $libdir/swe-libs/" "$tmp/ldd.txt" ||
    { echo "FAIL: swe.so does not load $lib from the tarball's swe-libs/" >&2; exit 1; }
done
mkdir -p "$tmp/models" "$tmp/sock"
cp "models/$model_name" "$tmp/models/"
chown -R postgres "$tmp"
pg_start "$bin" "$tmp/data" "$tmp/sock" 55432 "$tmp/models"
text='a man is playing a guitar'
from_sql=$(as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock" -p 55432 -U postgres -d postgres -At \
  -c "CREATE EXTENSION swe" \
  -c "SELECT encode(sha256(string_agg(float4send(x), ''::bytea ORDER BY n)), 'hex')
        FROM unnest(swe.embed('$model_name', '$text')) WITH ORDINALITY u(x, n)")
echo "$text" | "$swe" encode "$tmp/models/$model_name" - -o "$tmp/native.npy"
native=$(/usr/bin/python3 tests/postgres/npy_sha256.py "$tmp/native.npy")
echo "tarball: swe.embed $from_sql, swe encode $native"
[ "$from_sql" = "$native" ] || { echo "FAIL: the tarball's extension gives other vectors" >&2; exit 1; }
# Every update script of the source tree is in the tarball, and from each script's first version
# PostgreSQL finds a path to this one (what ALTER EXTENSION swe UPDATE follows).
version=$(head -n1 VERSION)
shipped=$(ls "$unpacked"/extension/swe--*--*.sql | wc -l)
[ "$shipped" -eq "$(ls postgres/sql/swe--*--*.sql | wc -l)" ] ||
  { echo "FAIL: the tarball has $shipped of the update scripts in postgres/sql" >&2; exit 1; }
for script in "$unpacked"/extension/swe--*--*.sql; do
  from=${script##*/swe--} && from=${from%%--*}
  path=$(as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock" -p 55432 -U postgres -d postgres -At     -c "SELECT path FROM pg_extension_update_paths('swe') WHERE source = '$from' AND target = '$version'")
  [ -n "$path" ] || { echo "FAIL: no update path from $from to $version" >&2; exit 1; }
  echo "tarball: update path $from -> $version: $path"
done
echo "postgres tarball check: ok"
