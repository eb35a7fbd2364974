-- Forced parallel query: the functions run in parallel workers (each loads the model) and give the
-- same results as the leader.
CREATE EXTENSION IF NOT EXISTS swe;
\set m 'swe-en-use-lite-large-para.swe'
CREATE TABLE ptexts AS
  SELECT i AS id, 'sentence number ' || i || ' about a man playing a guitar' AS body FROM generate_series(1, 2000) i;
ANALYZE ptexts;
CREATE TABLE serial_result AS
  SELECT id, swe.embed(:'m', body) AS v, swe.embed_bits(:'m', body) AS b, swe.known_words(:'m', body) AS k
    FROM ptexts;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET force_parallel_mode = on;
EXPLAIN (COSTS OFF) SELECT id, swe.embed(:'m', body) FROM ptexts;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM ptexts WHERE swe.known_words(:'m', body) > 0;
SELECT count(*) AS differ
  FROM ptexts p JOIN serial_result s USING (id)
 WHERE swe.embed(:'m', p.body) <> s.v OR swe.embed_bits(:'m', p.body) <> s.b OR swe.known_words(:'m', p.body) <> s.k;
SELECT count(*) AS rows_in_workers FROM ptexts WHERE swe.similarity(swe.embed(:'m', body), swe.embed(:'m', 'a guitar')) > 0;
RESET ALL;
-- A session whose first use of swe is a parallel index build: the leader and its workers load swe.so
-- in parallel mode, where PostgreSQL lets no setting change, and still find swe.model_dir.
\c
SET min_parallel_table_scan_size = 0;
SET max_parallel_maintenance_workers = 2;
CREATE INDEX ptexts_known ON ptexts ((swe.known_words('swe-en-use-lite-large-para.swe', body)));
SELECT count(*) AS rows_by_index FROM ptexts WHERE swe.known_words(:'m', body) > 0;
SELECT current_setting('swe.model_dir') <> '' AS model_dir_kept;
DROP TABLE ptexts, serial_result;
