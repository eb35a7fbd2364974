#!/usr/bin/env bash
# The PostgreSQL extension against real PostgreSQL 15 servers (docs/POSTGRES.md), in a temporary
# directory on Unix sockets only:
#   - pg_regress suites (tests/postgres/sql, expected/): the functions, bad inputs and errors, roles
#     and the model directory's rules, a model file replaced under its name, forced parallel query;
#   - vectors byte-identical to `swe encode` (sha256 of the float4 bytes), one by one, batched and in
#     parallel workers;
#   - 8 concurrent sessions (pgbench), each vector compared with the reference;
#   - scale-out: a coordinator and two shards joined by postgres_fdw (the `scaleout` suite);
#   - no backend crashed (the server logs).
# usage: tests/postgres/run.sh   (env: SWE_BUILD_DIR, default build/native)
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/postgres/lib.sh
build=${SWE_BUILD_DIR:-build/native}
cmake --build "$build" --target swe_postgres swe_cli -j"$(nproc)" >/dev/null
ext=$build/postgres
swe=$build/bin/swe
model_name=swe-en-use-lite-large-para.swe

pg_setup swe-pg
pg_tree_install "$bin" "$ext/swe.so" "$ext/swe.control" "$ext"/swe--*.sql

# The model directory: the default model, a link inside it, and what must be refused.
models=$tmp/models
mkdir -p "$models"
cp "models/$model_name" "$models/"
cp "models/$model_name" "$models/replaceable.swe"
cp models/swe-en-use-lite-large.swe "$models/other-model.swe"
ln -s "$model_name" "$models/inner-link.swe"
head -c 4096 "models/$model_name" >"$models/truncated.swe"
cp "models/$model_name" "$tmp/outside.swe"
ln -s "$tmp/outside.swe" "$models/escape.swe"
ln -s /etc/passwd "$models/passwd.swe"
# Texts: STS-B dev sentences plus a few in other scripts; "id<US>text" lines for COPY, and one text a
# line for swe encode.
texts=$tmp/texts.txt
{ awk -F'\t' 'NR <= 400 { print $6 }' ../shared/data/eval/sts/stsbenchmark/sts-dev.csv
  printf '%s\n' 'Ein Mann spielt Gitarre.' '男人在弹吉他。' 'naïve café crème' 'a man is playing a guitar'
} >"$texts"
awk '{ printf "%d\x1f%s\n", NR, $0 }' "$texts" >"$tmp/texts.copy"
chown -R postgres "$tmp"

sock=$tmp/sock && mkdir -p "$sock" && chown postgres "$sock"
main=$tmp/main
pg_start "$bin" "$main" "$sock" 55432 "$models"
psql_main() { as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p 55432 -U postgres -At "$@"; }

# Shards for the scale-out suite: the extension and an empty docs table on each.
for shard in 1 2; do
  mkdir -p "$tmp/sock$shard" && chown postgres "$tmp/sock$shard"
  pg_start "$bin" "$tmp/shard$shard" "$tmp/sock$shard" 55432 "$models"
  as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock$shard" -p 55432 -U postgres -d postgres \
    -c "CREATE EXTENSION swe" -c "CREATE TABLE docs (id int PRIMARY KEY, body text, emb real[])"
done

echo "== pg_regress"
export SWE_TEST_MODELS=$models SWE_TEST_TEXTS=$tmp/texts.copy SWE_TEST_SHARD1=$tmp/sock1 SWE_TEST_SHARD2=$tmp/sock2
psql_main -d postgres -c "CREATE DATABASE swe_regress"
regress=$("$PG_SYSTEM_BIN/pg_config" --pkglibdir)/pgxs/src/test/regress/pg_regress
if ! as_pg "$regress" --use-existing --bindir="$bin" --host="$sock" --port=55432 --user=postgres \
    --inputdir=tests/postgres --outputdir="$tmp/regress" --dbname=swe_regress \
    functions errors security replaced parallel scaleout; then
  cat "$tmp/regress/regression.diffs" >&2
  exit 1
fi

echo "== vectors byte-identical to swe encode"
"$swe" encode "$models/$model_name" "$texts" -o "$tmp/native.npy" 2>/dev/null
native=$(/usr/bin/python3 tests/postgres/npy_sha256.py "$tmp/native.npy")
psql_main -d postgres -c "CREATE EXTENSION swe" \
  -c "CREATE TABLE texts (id int PRIMARY KEY, body text)" \
  -c "COPY texts FROM '$tmp/texts.copy' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')"
hash_of() {  # the sha256 of the big-endian float4 bytes of the vectors the query gives (columns id, v)
  echo "SELECT encode(sha256(string_agg(float4send(x), ''::bytea ORDER BY s.id, u.n)), 'hex')
        FROM ($1) s, unnest(s.v) WITH ORDINALITY u(x, n)"
}
one=$(psql_main -d postgres -c "$(hash_of "SELECT id, swe.embed('$model_name', body) v FROM texts")")
batch=$(psql_main -d postgres -c "$(hash_of "SELECT n::int id, v FROM swe.embed('$model_name',
  (SELECT array_agg(body ORDER BY id) FROM texts)) WITH ORDINALITY b(v, n)")")
parallel=$(psql_main -d postgres -c "SET force_parallel_mode = on" -c "SET parallel_setup_cost = 0" \
  -c "SET parallel_tuple_cost = 0" -c "SET min_parallel_table_scan_size = 0" \
  -c "SET max_parallel_workers_per_gather = 2" \
  -c "$(hash_of "SELECT id, swe.embed('$model_name', body) v FROM texts")")
echo "native $native"; echo "embed  $one"; echo "batch  $batch"; echo "workers $parallel"
[ "$one" = "$native" ] && [ "$batch" = "$native" ] && [ "$parallel" = "$native" ] ||
  { echo "FAIL: vectors differ from swe encode" >&2; exit 1; }

echo "== 8 concurrent sessions"
psql_main -d postgres -c "CREATE TABLE expected AS SELECT id, body, swe.embed('$model_name', body) v FROM texts"
n=$(wc -l <"$texts")
# A wrong vector divides by zero: pgbench then reports the failure and exits non-zero.
printf '%s\n' "\\set id random(1, $n)" \
  "SELECT 1 / (swe.embed('$model_name', body) = v)::int FROM expected WHERE id = :id;" >"$tmp/bench.sql"
chown postgres "$tmp/bench.sql"
as_pg "$bin/pgbench" -n -h "$sock" -p 55432 -U postgres -c 8 -j 2 -t 300 -f "$tmp/bench.sql" postgres |
  grep -E "number of (clients|transactions actually processed|failed)"

echo "== no backend crashed"
for data in "${clusters[@]}"; do
  if grep -E "terminated by signal|was terminated|server process .* exited" "$data/server.log"; then
    echo "FAIL: a backend crashed ($data/server.log)" >&2; exit 1
  fi
done

# The release tarball (scripts/release.sh, which scripts/test.sh runs first), installed alone.
tarball=dist/swe-postgres-$(head -n1 VERSION)-pg15-linux-$(uname -m).tar.gz
if [ -f "$tarball" ]; then
  SWE=$swe bash tests/postgres/check_tarball.sh "$tarball"
else
  echo "tarball check skipped: $tarball is missing (scripts/release.sh writes it)"
fi
echo "postgres tests passed"
