#!/usr/bin/env bash
# The PostgreSQL extension against real PostgreSQL 15 servers (docs/POSTGRES.md), in a temporary
# directory on Unix sockets (the Citus cluster on 127.0.0.1 ports):
#   - swe.so exports PostgreSQL's entry points only (nm -D);
#   - pg_regress suites (tests/postgres/sql, expected/): the functions, another server encoding, bad
#     inputs and errors, roles and the model directory's rules, the extension's own schema, a model
#     file replaced under its name (in parallel workers too), forced parallel query, scale-out with
#     postgres_fdw, and pgvector 0.8.1 (its cast, HNSW and Hamming indexes, recall against exact search);
#   - vectors byte-identical to `swe encode` (sha256 of the float4 bytes), one by one, batched and in
#     parallel workers;
#   - a FIFO in the model directory is refused at once (it must not block the backend);
#   - 8 concurrent sessions (pgbench), each vector compared with the reference;
#   - Citus 13.0.5: a coordinator and two workers (the `citus` suite);
#   - the doc's function table against pg_proc, and the versions it says were tested;
#   - no backend crashed (the server logs).
# pgvector and Citus are built from ../shared/vendor/ into .cache/pg-vendor/ (tests/postgres/vendor.sh),
# once per tarball and PostgreSQL version. Each part prints the time it took.
# usage: tests/postgres/run.sh   (env: SWE_BUILD_DIR, default build/native)
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/postgres/lib.sh
source tests/postgres/vendor.sh
pgvector_version=0.8.1
citus_version=13.0.5
build=${SWE_BUILD_DIR:-build/native}
section_name="" section_start=$(date +%s%N)
section() {  # the time the previous part took, then the next part's title
  local now
  now=$(date +%s%N)
  [ -z "$section_name" ] || echo "   ($section_name: $(( (now - section_start) / 1000000 )) ms)"
  section_name=$1 section_start=$now
  echo "== $1"
}

section "build the extension, pgvector $pgvector_version and Citus $citus_version"
cmake --build "$build" --target swe_postgres swe_cli -j"$(nproc)" >/dev/null
ext=$build/postgres
swe=$build/bin/swe
model_name=swe-en-use-lite-large-para.swe
version=$(head -n1 VERSION)
pgvector_stage=$(pg_vendor_build pgvector "$pgvector_version")
citus_stage=$(pg_vendor_build citus "$citus_version")

section "swe.so exports PostgreSQL's entry points only"
# Pg_magic_func, _PG_init, and each SQL function's C symbol with its pg_finfo_ record.
expected_symbols=$( { printf '%s\n' Pg_magic_func _PG_init
  sed -n "s/.*'MODULE_PATHNAME', '\([a-z_]*\)'.*/\1\npg_finfo_\1/p" "$ext/swe--$version.sql"; } | sort -u)
exported=$(nm -D --defined-only "$ext/swe.so" | awk '{ print $3 }' | sort -u)
[ "$exported" = "$expected_symbols" ] ||
  { echo "FAIL: nm -D swe.so differs from the entry points:" >&2; diff <(echo "$expected_symbols") <(echo "$exported") >&2; exit 1; }
echo "$(echo "$exported" | wc -l) symbols, as expected"

section "servers"
pg_setup swe-pg
pg_tree_install "$bin" "$ext/swe.so" "$ext/swe.control" "$ext"/swe--*.sql
pg_vendor_install "$bin" "$pgvector_stage"
pg_vendor_install "$bin" "$citus_stage"
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
# line for swe encode. A corpus of 10,000 sentences for pgvector's indexes.
texts=$tmp/texts.txt
{ awk -F'\t' 'NR <= 400 { print $6 }' ../shared/data/eval/sts/stsbenchmark/sts-dev.csv
  printf '%s\n' 'Ein Mann spielt Gitarre.' '男人在弹吉他。' 'naïve café crème' 'a man is playing a guitar'
} >"$texts"
awk '{ printf "%d\x1f%s\n", NR, $0 }' "$texts" >"$tmp/texts.copy"
{ zstd -dc ../shared/data/train/en-sentences.txt.zst | head -n 10000 >"$tmp/corpus.txt"; } || true
[ "$(wc -l <"$tmp/corpus.txt")" -eq 10000 ] || { echo "FAIL: no corpus for the pgvector suite" >&2; exit 1; }
awk '{ printf "%d\x1f%s\n", NR, $0 }' "$tmp/corpus.txt" >"$tmp/corpus.copy"
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

section "pg_regress"
export SWE_TEST_MODELS=$models SWE_TEST_TEXTS=$tmp/texts.copy SWE_TEST_CORPUS=$tmp/corpus.copy \
  SWE_TEST_SHARD1=$tmp/sock1 SWE_TEST_SHARD2=$tmp/sock2 SWE_TEST_PSQL=$bin/psql
psql_main -d postgres -c "CREATE DATABASE swe_regress"
regress=$("$PG_SYSTEM_BIN/pg_config" --pkglibdir)/pgxs/src/test/regress/pg_regress
run_regress() {  # SOCKDIR PORT DATABASE SUITE...
  local sockdir=$1 port=$2 database=$3; shift 3
  if ! as_pg "$regress" --use-existing --bindir="$bin" --host="$sockdir" --port="$port" --user=postgres \
      --inputdir=tests/postgres --outputdir="$tmp/regress-$database" --dbname="$database" "$@"; then
    cat "$tmp/regress-$database/regression.diffs" >&2
    rm -rf "$build/postgres-regress-$database" && cp -r "$tmp/regress-$database" "$build/postgres-regress-$database"
    echo "FAIL: pg_regress (its results: $build/postgres-regress-$database)" >&2
    exit 1
  fi
}
run_regress "$sock" 55432 swe_regress functions encodings errors security schema replaced parallel scaleout pgvector
# The pgvector suite checks its recall against a floor; the numbers themselves, for the log:
psql_main -d swe_regress -F ' ' -c "SELECT what, round(value::numeric, 3) FROM pgvector_measured ORDER BY what"

section "vectors byte-identical to swe encode"
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

section "a FIFO in the model directory"
# Opening a FIFO for reading blocks until a writer comes, beyond statement_timeout and cancel: the
# extension must refuse it without opening it blocking. If it does block, a writer releases it.
as_pg mkfifo "$models/fifo.swe"
rc=0
fifo=$(timeout 20 "$bin/psql" -X -q -h "$sock" -p 55432 -U postgres -d postgres -At \
  -c "SET statement_timeout = '10s'" -c "SELECT swe.embed('fifo.swe', 'a')" 2>&1) || rc=$?
echo "$fifo"
if [ "$rc" = 124 ] || ! grep -q 'swe: model "fifo.swe" is not a regular file' <<<"$fifo"; then
  timeout 5 bash -c ": >'$models/fifo.swe'" || true
  echo "FAIL: a FIFO in the model directory blocked the backend or was not refused" >&2
  exit 1
fi

section "8 concurrent sessions"
psql_main -d postgres -c "CREATE TABLE expected AS SELECT id, body, swe.embed('$model_name', body) v FROM texts"
n=$(wc -l <"$texts")
# A wrong vector divides by zero: pgbench then reports the failure and exits non-zero.
printf '%s\n' "\\set id random(1, $n)" \
  "SELECT 1 / (swe.embed('$model_name', body) = v)::int FROM expected WHERE id = :id;" >"$tmp/bench.sql"
chown postgres "$tmp/bench.sql"
as_pg "$bin/pgbench" -n -h "$sock" -p 55432 -U postgres -c 8 -j 2 -t 300 -f "$tmp/bench.sql" postgres |
  grep -E "number of (clients|transactions actually processed|failed)"

section "Citus $citus_version: a coordinator and two workers"
# On 127.0.0.1 (the nodes connect to each other over TCP), each node with its own copy of the model
# directory (the suite replaces the model on one worker).
read -r port_c port_w1 port_w2 < <(/usr/bin/python3 -c '
import socket
held = [socket.socket() for _ in range(3)]
for s in held: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in held))')
for node in c w1 w2; do
  port_var=port_$node
  mkdir -p "$tmp/sock-$node" "$tmp/models-$node"
  cp "models/$model_name" "$tmp/models-$node/"
  chown -R postgres "$tmp/sock-$node" "$tmp/models-$node"
  pg_start "$bin" "$tmp/citus-$node" "$tmp/sock-$node" "${!port_var}" "$tmp/models-$node" \
    "listen_addresses = '127.0.0.1'" "shared_preload_libraries = 'citus'" "citus.node_conninfo = 'sslmode=disable'"
  as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock-$node" -p "${!port_var}" -U postgres -d postgres \
    -c "CREATE DATABASE swe_citus"
  as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock-$node" -p "${!port_var}" -U postgres -d swe_citus \
    -c "CREATE EXTENSION citus"
done
as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock-c" -p "$port_c" -U postgres -d swe_citus -At \
  -c "SELECT citus_set_coordinator_host('127.0.0.1', $port_c)" \
  -c "SELECT citus_add_node('127.0.0.1', $port_w1)" -c "SELECT citus_add_node('127.0.0.1', $port_w2)" >/dev/null
export SWE_TEST_CITUS_W1_MODELS=$tmp/models-w1
run_regress "$tmp/sock-c" "$port_c" swe_citus citus

section "swe.preload_models: models loaded once, in the postmaster"
# The second shard restarted with shared_preload_libraries = 'swe'. Its model file is then made
# unreadable: backends and parallel workers use the postmaster's copy without reading the file (a
# backend checks with stat() that the file is still the one read), so vectors still come, the same
# bytes as swe encode's. A model that cannot be preloaded is a warning in the log, not a failed start.
preload=$tmp/models-preload
mkdir -p "$preload" && cp "models/$model_name" "$preload/" && chown -R postgres "$preload"
pg_stop "$bin" "$tmp/shard2"
printf '%s\n' "shared_preload_libraries = 'swe'" "swe.model_dir = '$preload'" \
  "swe.preload_models = '$model_name, missing.swe'" >>"$tmp/shard2/postgresql.conf"
as_pg "$bin/pg_ctl" -D "$tmp/shard2" -l "$tmp/shard2/server.log" -w -t 60 start >/dev/null
grep -q 'model "missing.swe" of swe.preload_models not loaded' "$tmp/shard2/server.log" ||
  { echo "FAIL: no warning for a model of swe.preload_models that is missing" >&2; exit 1; }
chmod 000 "$preload/$model_name"
psql_shard2() { as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock2" -p 55432 -U postgres -d postgres -At "$@"; }
psql_shard2 -c "CREATE TABLE texts (id int PRIMARY KEY, body text)" \
  -c "COPY texts FROM '$tmp/texts.copy' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')"
preloaded=$(psql_shard2 -c "$(hash_of "SELECT id, swe.embed('$model_name', body) v FROM texts")")
preloaded_workers=$(psql_shard2 -c "SET force_parallel_mode = on" -c "SET parallel_setup_cost = 0" \
  -c "SET parallel_tuple_cost = 0" -c "SET min_parallel_table_scan_size = 0" \
  -c "SET max_parallel_workers_per_gather = 2" -c "SET parallel_leader_participation = off" \
  -c "$(hash_of "SELECT id, swe.embed('$model_name', body) v FROM texts")")
echo "preloaded, file unreadable: backend $preloaded, workers $preloaded_workers"
[ "$preloaded" = "$native" ] && [ "$preloaded_workers" = "$native" ] ||
  { echo "FAIL: the preloaded model gives other vectors" >&2; exit 1; }
# A file replaced after the start: a new session reads the new one (as without preloading).
chmod 644 "$preload/$model_name"
cp models/swe-en-use-lite-large.swe "$preload/copy.tmp" && chown postgres "$preload/copy.tmp"
mv "$preload/copy.tmp" "$preload/$model_name"
checksum=$(psql_shard2 -c "SELECT swe.model_info('$model_name')->>'checksum'")
echo "after the file was replaced, a new session: checksum $checksum"
[ "$checksum" = "$("$swe" info models/swe-en-use-lite-large.swe --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["checksum"])')" ] ||
  { echo "FAIL: a new session did not load the replaced file" >&2; exit 1; }

section "the doc's claims"
# docs/POSTGRES.md's function table against pg_proc, and the versions it says were tested with.
psql_main -d swe_regress -F '|' -c "SELECT p.proname || '(' || pg_get_function_arguments(p.oid) || ')',
    CASE p.provolatile WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE' ELSE 'VOLATILE' END
    || CASE WHEN p.proisstrict THEN ' STRICT' ELSE '' END
    || CASE p.proparallel WHEN 's' THEN ' PARALLEL SAFE' WHEN 'r' THEN ' PARALLEL RESTRICTED' ELSE ' PARALLEL UNSAFE' END
  FROM pg_proc p WHERE p.pronamespace = 'swe'::regnamespace ORDER BY 1, 2" |
  /usr/bin/python3 tests/postgres/check_doc.py docs/POSTGRES.md "$pgvector_version" "$citus_version"

section "no backend crashed"
for data in "${clusters[@]}"; do
  if grep -E "terminated by signal|was terminated|server process .* exited" "$data/server.log"; then
    echo "FAIL: a backend crashed ($data/server.log)" >&2; exit 1
  fi
done

# The release tarball (scripts/release.sh, which scripts/test.sh runs first), installed alone.
section "the release tarball"
tarball=dist/swe-postgres-$version-pg15-linux-$(uname -m).tar.gz
if [ -f "$tarball" ]; then
  SWE=$swe bash tests/postgres/check_tarball.sh "$tarball"
else
  echo "tarball check skipped: $tarball is missing (scripts/release.sh writes it)"
fi
section "done"
echo "postgres tests passed"
