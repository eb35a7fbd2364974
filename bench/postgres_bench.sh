#!/usr/bin/env bash
# Benchmarks of the PostgreSQL extension, each against its reference measured in the same run (the
# machine is shared: compare ratios, not absolute numbers). Prints one JSON line per measurement and
# the ratios. Servers: private PostgreSQL 15 clusters on Unix sockets in a temporary directory
# (tests/postgres/lib.sh); the extension from the native build; pgvector built from ../shared/vendor
# (tests/postgres/vendor.sh, cached in .cache/pg-vendor).
#   encode   rows embedded per CPU second (and per second) by one backend (swe.embed over a table) vs
#            `swe encode` on the same texts; the batch form (arrays of 10,000) vs row by row
#   workers  one backend vs two parallel workers (plus the leader) on the same query; and what a
#            parallel query on a small table costs when each worker loads the model vs when the
#            postmaster preloaded it (shared_preload_libraries = 'swe', swe.preload_models)
#   search   top-10 by a sequential scan (swe.similarity over stored real[]) vs the native exact
#            search (`swe search`, f32 in memory) over the same vectors: per-query time
#   pgvector an HNSW index (vector_cosine_ops) on swe.embed(...)::vector(256): build time, recall@10
#            against exact search at hnsw.ef_search 40, 100 and 200, and per-query time vs a
#            sequential scan ordered by swe.similarity
#   shards   via postgres_fdw, all rows on one shard vs split over two: embedding (UPDATE) and top-10
#            (each shard its top 10, both at once, merged on the coordinator)
# usage: bench/postgres_bench.sh [N_ENCODE] [N_STORED] [N_SHARDED] [N_HNSW]
#        (defaults 200000 1000000 200000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/postgres/lib.sh
source tests/postgres/vendor.sh
n_encode=${1:-200000}
n_stored=${2:-1000000}
n_sharded=${3:-200000}
n_hnsw=${4:-100000}
build=${SWE_BUILD_DIR:-build/native}
cmake --build "$build" --target swe_postgres swe_cli -j"$(nproc)" >/dev/null
swe=$build/bin/swe
model_name=swe-en-use-lite-large-para.swe
query='a man is playing a guitar'

pg_setup swe-pg-bench
pg_tree_install "$bin" "$build/postgres/swe.so" "$build/postgres/swe.control" "$build/postgres"/swe--*.sql
pg_vendor_install "$bin" "$(pg_vendor_build pgvector 0.8.1)"
mkdir -p "$tmp/models"
cp "models/$model_name" "$tmp/models/"
n_max=$(( n_encode > n_stored ? n_encode : n_stored ))
{ zstd -dc ../shared/data/train/en-sentences.txt.zst | head -n "$n_max" >"$tmp/all.txt"; } || true
head -n "$n_encode" "$tmp/all.txt" >"$tmp/encode.txt"
head -n "$n_stored" "$tmp/all.txt" >"$tmp/stored.txt"
awk '{ printf "%d\x1f%s\n", NR, $0 }' "$tmp/all.txt" >"$tmp/all.copy"
# Queries for the pgvector part: STS-B dev sentences (not in the corpus).
awk -F'\t' 'NR <= 200 { printf "%d\x1f%s\n", NR, $6 }' ../shared/data/eval/sts/stsbenchmark/sts-dev.csv >"$tmp/queries.copy"
chown -R postgres "$tmp"

settings=("max_parallel_workers_per_gather = 0" "shared_buffers = 1GB" "max_wal_size = 4GB" "maintenance_work_mem = 1GB"
          "synchronous_commit = off" "jit = off")
for c in main shard1 shard2 preload; do
  mkdir -p "$tmp/sock-$c" && chown postgres "$tmp/sock-$c"
done
for c in main shard1 shard2; do pg_start "$bin" "$tmp/$c" "$tmp/sock-$c" 55432 "$tmp/models" "${settings[@]}"; done
# The same server with swe loaded by the postmaster, which loads the model once for every backend.
pg_start "$bin" "$tmp/preload" "$tmp/sock-preload" 55432 "$tmp/models" "${settings[@]}" \
  "shared_preload_libraries = 'swe'" "swe.preload_models = '$model_name'"
sql() {  # CLUSTER SQL...: runs the statements in one session, prints their output
  local c=$1 statement args=(); shift
  for statement in "$@"; do args+=(-c "$statement"); done
  as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp/sock-$c" -p 55432 -U postgres -d postgres -At "${args[@]}"
}
ms() {  # CLUSTER [SETTING...] QUERY: milliseconds the query took (model already loaded in the session)
  local c=$1; shift
  local settings=("${@:1:$#-1}") query=${*: -1}
  sql "$c" "SELECT swe.known_words('$model_name', 'warm up')" "${settings[@]}" '\timing on' "$query" |
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1
}
cpu_ms() {  # CLUSTER QUERY: CPU milliseconds the backend spent on the query (utime + stime, 10 ms ticks)
  local ticks="SELECT 'cpu ' || (string_to_array(pg_read_file('/proc/self/stat'), ' '))[14]::bigint
                                + (string_to_array(pg_read_file('/proc/self/stat'), ' '))[15]::bigint"
  sql "$1" "SELECT swe.known_words('$model_name', 'warm up')" "$ticks" "$2" "$ticks" |
    sed -n 's/^cpu //p' | awk 'NR == 1 { a = $1 } NR == 2 { print ($1 - a) * 1000 / '"$(getconf CLK_TCK)"' }'
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
json() { echo "{\"bench\": \"postgres\", \"what\": \"$1\", \"rows\": $2, \"ms\": $3}"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for c in main shard1 shard2 preload; do sql "$c" "CREATE EXTENSION swe"; done
sql main "CREATE TABLE texts (id int PRIMARY KEY, body text)" \
  "COPY texts FROM '$tmp/all.copy' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')" "VACUUM ANALYZE texts"

# ---- encode: one backend vs swe encode --------------------------------------------------------------
# A table of exactly the texts to embed, frozen (all pages visible: no per-row visibility checks).
sql main "CREATE TABLE encode_texts AS SELECT id, body FROM texts WHERE id <= $n_encode" \
  "VACUUM (FREEZE, ANALYZE) encode_texts" \
  "CREATE TABLE batches AS SELECT array_agg(body ORDER BY id) a FROM encode_texts GROUP BY (id - 1) / 10000" \
  "VACUUM (FREEZE, ANALYZE) batches"
encode_query="SELECT count(swe.embed('$model_name', body)) FROM encode_texts"
# In the select list: a set-returning function in FROM is first written to a tuplestore (work_mem).
# The arrays are stored as PostgreSQL stores them by default (compressed).
batch_query="SELECT count(v) FROM (SELECT swe.embed('$model_name', a) v FROM batches) s"
# Five rounds, native and SQL alternating; the median of each, and of each round's ratio (the machine
# is shared: a round's measurements see the same load). Neither side writes its vectors anywhere:
# swe encode to /dev/null, the query counts them. swe encode's CPU time includes its start and the
# model's load, measured on its own with one text.
TIMEFORMAT='%U %S'
native_run() {  # FILE: CPU milliseconds of swe encode on FILE
  { time "$swe" encode "$tmp/models/$model_name" "$1" -o /dev/null --format npy 2>"$tmp/swe.log"; } 2>&1 |
    awk '{ printf "%d", ($1 + $2) * 1000 }'
}
head -n 1 "$tmp/encode.txt" >"$tmp/one.txt"
rounds=()  # "native_cpu native_wall start_cpu sql_cpu sql_wall batch_cpu batch_wall" per round
for _ in 1 2 3 4 5; do
  t0=$(now_ms); native_cpu=$(native_run "$tmp/encode.txt"); t1=$(now_ms)
  rounds+=("$native_cpu $(( t1 - t0 )) $(native_run "$tmp/one.txt") $(cpu_ms main "$encode_query") \
$(ms main "$encode_query") $(cpu_ms main "$batch_query") $(ms main "$batch_query")")
done
round_median() { printf '%s\n' "${rounds[@]}" | awk -v c="$1" '{ print $c }' | median; }
round_ratio() { printf '%s\n' "${rounds[@]}" | awk -v a="$1" -v b="$2" '{ printf "%.3f\n", $a / $b }' | median; }
native_cpu=$(round_median 1); native_encode=$(round_median 2); native_start_cpu=$(round_median 3)
sql_cpu=$(round_median 4); sql_encode=$(round_median 5); batch_cpu=$(round_median 6); batch_encode=$(round_median 7)
json "swe encode (native)" "$n_encode" "$native_encode"
json "swe.embed, one backend" "$n_encode" "$sql_encode"
json "swe encode (native), CPU" "$n_encode" "$native_cpu"
json "swe encode (native) of one text, CPU (start and model load)" 1 "$native_start_cpu"
json "swe.embed, one backend, CPU" "$n_encode" "$sql_cpu"
json "swe.embed(text[]), one backend" "$n_encode" "$batch_encode"
json "swe.embed(text[]), one backend, CPU" "$n_encode" "$batch_cpu"

# ---- workers: one backend vs two parallel workers; the model's load in each worker -------------------
parallel=("SET max_parallel_workers_per_gather = 2" "SET parallel_setup_cost = 0" "SET parallel_tuple_cost = 0")
sql_workers=$(ms main "${parallel[@]}" "$encode_query")
json "swe.embed, 2 workers + leader" "$n_encode" "$sql_workers"
# A parallel query on 1,000 rows, the leader embedding none (so each query's time is its workers'):
# each worker is a new process that loads the model unless the postmaster preloaded it. Median of 9.
for c in main preload; do
  sql "$c" "CREATE TABLE small AS SELECT id, 'sentence ' || id || ' about a man playing a guitar' body
    FROM generate_series(1, 1000) id" \
    "VACUUM ANALYZE small"
done
small_query="SELECT count(swe.embed('$model_name', body)) FROM small"
forced=("${parallel[@]}" "SET min_parallel_table_scan_size = 0" "SET force_parallel_mode = on"
        "SET parallel_leader_participation = off")
small_serial=(); small_load=(); small_preloaded=()
for _ in 1 2 3 4 5 6 7 8 9; do
  small_serial+=("$(ms main "$small_query")")
  small_load+=("$(ms main "${forced[@]}" "$small_query")")
  small_preloaded+=("$(ms preload "${forced[@]}" "$small_query")")
done
small_serial=$(printf '%s\n' "${small_serial[@]}" | median)
small_load=$(printf '%s\n' "${small_load[@]}" | median)
small_preloaded=$(printf '%s\n' "${small_preloaded[@]}" | median)
json "1,000 rows, one backend" 1000 "$small_serial"
json "1,000 rows, 2 workers (leader idle), each loading the model" 1000 "$small_load"
json "1,000 rows, 2 workers (leader idle), the model preloaded by the postmaster" 1000 "$small_preloaded"

# ---- search: sequential scan over stored vectors vs the native index ---------------------------------
sql main "CREATE TABLE stored AS SELECT id, swe.embed('$model_name', body) emb FROM texts WHERE id <= $n_stored" \
  "VACUUM ANALYZE stored"
search_query="SELECT id FROM stored ORDER BY swe.similarity(emb, swe.embed('$model_name', '$query')) DESC, id LIMIT 10"
seq_ms=()
for _ in 1 2 3; do seq_ms+=("$(ms main "$search_query")"); done
seq_search=$(printf '%s\n' "${seq_ms[@]}" | median)
# The native side keeps the vectors in memory (f32, exact search): a saved f32 index of a million
# vectors and their texts exceeds one file's limit. Per query: (101 queries - 1 query) / 100, so the
# encoding of the documents, done by both runs, cancels out.
queries() { for _ in $(seq "$1"); do echo "$query"; done; }
native_search_run() {
  queries "$1" | "$swe" search "$tmp/models/$model_name" --docs "$tmp/stored.txt" -k 10 >/dev/null 2>"$tmp/swe.log" ||
    { cat "$tmp/swe.log" >&2; exit 1; }
}
t0=$(now_ms); native_search_run 1; t1=$(now_ms); native_search_run 101; t2=$(now_ms)
native_search=$(awk -v a=$(( t1 - t0 )) -v b=$(( t2 - t1 )) 'BEGIN { printf "%.2f", (b - a) / 100 }')
json "top-10 sequential scan, one backend" "$n_stored" "$seq_search"
json "top-10 native swe search (f32, exact), per query" "$n_stored" "$native_search"

# ---- pgvector: HNSW on swe's vectors -------------------------------------------------------------------
sql main "CREATE EXTENSION vector" \
  "CREATE TABLE vdocs AS SELECT id, swe.embed('$model_name', body) arr,
     swe.embed('$model_name', body)::vector(256) emb FROM texts WHERE id <= $n_hnsw" \
  "CREATE TABLE vqueries (id int PRIMARY KEY, body text)" \
  "COPY vqueries FROM '$tmp/queries.copy' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')" \
  "ALTER TABLE vqueries ADD COLUMN emb vector(256)" \
  "UPDATE vqueries SET emb = swe.embed('$model_name', body)::vector(256)" "VACUUM ANALYZE vdocs, vqueries"
n_queries=$(sql main "SELECT count(*) FROM vqueries")
# Exact top 10 of each query (no index yet), by pgvector's cosine distance and by swe.similarity.
sql main "CREATE TABLE exact AS SELECT q.id, ARRAY(SELECT v.id FROM vdocs v ORDER BY v.emb <=> q.emb LIMIT 10) ids
  FROM vqueries q" \
  "CREATE FUNCTION overlap(a int[], b int[]) RETURNS int LANGUAGE sql IMMUTABLE AS
     'SELECT count(*)::int FROM unnest(a) x WHERE x = ANY (b)'"
same_exact=$(sql main "SELECT count(*) FROM exact e JOIN vqueries q USING (id) WHERE overlap(e.ids,
  ARRAY(SELECT v.id FROM vdocs v ORDER BY swe.similarity(v.arr, q.emb::real[]) DESC LIMIT 10)) = 10")
t0=$(now_ms); sql main "CREATE INDEX vdocs_hnsw ON vdocs USING hnsw (emb vector_cosine_ops)"; t1=$(now_ms)
hnsw_build=$(( t1 - t0 ))
hnsw_query="SELECT id FROM vdocs ORDER BY emb <=> swe.embed('$model_name', '$query')::vector(256) LIMIT 10"
seqscan_query="SELECT id FROM vdocs ORDER BY swe.similarity(arr, swe.embed('$model_name', '$query')) DESC LIMIT 10"
recall() {  # EF_SEARCH: recall@10 of the index against the exact top 10, over the queries
  sql main "SET hnsw.ef_search = $1" "SELECT round(avg(overlap(e.ids,
    ARRAY(SELECT v.id FROM vdocs v ORDER BY v.emb <=> q.emb LIMIT 10)))::numeric / 10, 3)
    FROM exact e JOIN vqueries q USING (id)"
}
declare -A recalls hnsw_ms
for ef in 40 100 200; do
  recalls[$ef]=$(recall "$ef")
  times=()
  # In each session the first query reads the index's metadata into the backend's caches: timed is a
  # second one.
  for _ in 1 2 3 4 5; do times+=("$(ms main "SET hnsw.ef_search = $ef" "$hnsw_query" "$hnsw_query")"); done
  hnsw_ms[$ef]=$(printf '%s\n' "${times[@]}" | median)
done
times=()
for _ in 1 2 3; do times+=("$(ms main "$seqscan_query" "$seqscan_query")"); done
seqscan_ms=$(printf '%s\n' "${times[@]}" | median)
json "HNSW index build (m 16, ef_construction 64)" "$n_hnsw" "$hnsw_build"
for ef in 40 100 200; do
  json "HNSW top-10 query, hnsw.ef_search = $ef (recall@10 ${recalls[$ef]} over $n_queries queries)" "$n_hnsw" "${hnsw_ms[$ef]}"
done
json "top-10 sequential scan ordered by swe.similarity over real[]" "$n_hnsw" "$seqscan_ms"

# ---- shards: all rows on one shard vs split over two ------------------------------------------------
sql main "CREATE EXTENSION postgres_fdw"
for s in 1 2; do
  sql main "CREATE SERVER shard$s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$tmp/sock-shard$s',
    port '55432', dbname 'postgres', extensions 'swe', async_capable 'true', fetch_size '1000', batch_size '1000')" \
    "CREATE USER MAPPING FOR CURRENT_USER SERVER shard$s OPTIONS (user 'postgres')"
  sql "shard$s" "CREATE TABLE docs (id int PRIMARY KEY, body text, emb real[])"
done
sql shard1 "CREATE TABLE docs_all (id int PRIMARY KEY, body text, emb real[])"
sql main "CREATE FOREIGN TABLE docs_all (id int, body text, emb real[]) SERVER shard1" \
  "CREATE TABLE docs (id int, body text, emb real[]) PARTITION BY HASH (id)" \
  "CREATE FOREIGN TABLE docs_1 PARTITION OF docs FOR VALUES WITH (MODULUS 2, REMAINDER 0) SERVER shard1
     OPTIONS (table_name 'docs')" \
  "CREATE FOREIGN TABLE docs_2 PARTITION OF docs FOR VALUES WITH (MODULUS 2, REMAINDER 1) SERVER shard2
     OPTIONS (table_name 'docs')" \
  "INSERT INTO docs SELECT id, body FROM texts WHERE id <= $n_sharded" \
  "INSERT INTO docs_all SELECT id, body FROM texts WHERE id <= $n_sharded"
# postgres_fdw runs the partitions' UPDATEs of one statement one after another; a coordinator that
# wants both shards busy sends one statement per shard at once (as Citus does): two sessions here.
t0=$(now_ms); sql main "UPDATE docs_all SET emb = swe.embed('$model_name', body)"; t1=$(now_ms)
sql main "UPDATE docs_1 SET emb = swe.embed('$model_name', body)" & first=$!
sql main "UPDATE docs_2 SET emb = swe.embed('$model_name', body)"
wait "$first"; t2=$(now_ms)
for s in 1 2; do sql "shard$s" "VACUUM ANALYZE"; done
top() {  # TABLE...: each table's top 10 on its shard, merged
  local q="" t
  for t in "$@"; do
    [ -z "$q" ] || q+=" UNION ALL "
    q+="(SELECT id, swe.similarity(emb, swe.embed('$model_name', '$query')) s FROM $t ORDER BY s DESC, id LIMIT 10)"
  done
  echo "WITH u AS MATERIALIZED ($q) SELECT id FROM u ORDER BY s DESC, id LIMIT 10"  # async Append
}
one_ms=(); two_ms=()
for _ in 1 2 3; do one_ms+=("$(ms main "$(top docs_all)")"); two_ms+=("$(ms main "$(top docs_1 docs_2)")"); done
one_shard=$(printf '%s\n' "${one_ms[@]}" | median)
two_shards=$(printf '%s\n' "${two_ms[@]}" | median)
same=$(sql main "SELECT ARRAY($(top docs_all)) = ARRAY($(top docs_1 docs_2))")
json "embed on one shard (UPDATE via postgres_fdw)" "$n_sharded" $(( t1 - t0 ))
json "embed on two shards (an UPDATE per shard, at once)" "$n_sharded" $(( t2 - t1 ))
json "top-10 on one shard via postgres_fdw" "$n_sharded" "$one_shard"
json "top-10 on two shards via postgres_fdw (async)" "$n_sharded" "$two_shards"

echo "ratios (higher is better for the first of each pair):"
echo "  swe.embed one backend / swe encode, rows per CPU second: $(ratio "$native_cpu" "$sql_cpu") (median of the rounds' ratios: $(round_ratio 1 4))"
echo "    (without swe encode's start and model load: $(ratio $(( native_cpu - native_start_cpu )) "$sql_cpu"))"
echo "  swe.embed one backend / swe encode, rows per second: $(ratio "$native_encode" "$sql_encode") (rounds: $(round_ratio 2 5))"
echo "  swe.embed(text[]) / swe.embed row by row, texts per CPU second: $(ratio "$sql_cpu" "$batch_cpu") (rounds: $(round_ratio 4 6))"
echo "  swe.embed(text[]) / swe.embed row by row, texts per second: $(ratio "$sql_encode" "$batch_encode") (rounds: $(round_ratio 5 7))"
echo "  two workers / one backend, rows per second: $(ratio "$sql_encode" "$sql_workers")"
echo "  parallel query on 1,000 rows, workers loading the model / preloaded, time: $(ratio "$small_load" "$small_preloaded")"
echo "    (the load per query: $(awk -v a="$small_load" -v b="$small_preloaded" 'BEGIN { printf "%.0f", a - b }') ms of wall time; one backend without workers: $small_serial ms)"
echo "  native swe search / sequential scan, top-10 query time: $(ratio "$seq_search" "$native_search") (the scan is that many times slower)"
echo "  pgvector HNSW / sequential scan by swe.similarity, top-10 query time at ef_search 40: $(ratio "$seqscan_ms" "${hnsw_ms[40]}")"
echo "    recall@10 at ef_search 40 / 100 / 200: ${recalls[40]} / ${recalls[100]} / ${recalls[200]}; exact top 10 by pgvector = by swe.similarity for $same_exact of $n_queries queries"
echo "  two shards / one shard, embedding rows per second: $(ratio $(( t1 - t0 )) $(( t2 - t1 )))"
echo "  two shards / one shard, top-10 query time: $(ratio "$one_shard" "$two_shards") (same top 10: $same)"
