-- A model file replaced under its name: other bytes are an ERROR in a session that used the old ones
-- (never other vectors from an IMMUTABLE function), in the backend and in its parallel workers; the
-- same bytes in a new file are not.
CREATE EXTENSION IF NOT EXISTS swe;
-- Forced parallel plans whose leader embeds no row itself (after each \c, :workers_only).
\set workers_only 'SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2; SET force_parallel_mode = on; SET parallel_leader_participation = off;'
SELECT array_length(swe.embed('replaceable.swe', 'a cat'), 1) AS loaded;
\! cp "$SWE_TEST_MODELS/replaceable.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
SELECT array_length(swe.embed('replaceable.swe', 'a cat'), 1) AS same_bytes_new_file;
\! cp "$SWE_TEST_MODELS/other-model.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
SELECT swe.embed('replaceable.swe', 'a cat');
SELECT swe.known_words('replaceable.swe', 'a cat');
-- A new session loads the new file.
\c
SELECT swe.model_info('replaceable.swe')->>'checksum' AS new_session;
-- Parallel workers, with the leader embedding no row itself: they get the session's checksum and
-- compare the file they load with it.
\! cp "$SWE_TEST_MODELS/swe-en-use-lite-large-para.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
\c
CREATE TABLE rtexts AS SELECT i AS id, 'a man is playing a guitar, take ' || i AS body FROM generate_series(1, 200) i;
ANALYZE rtexts;
:workers_only
-- A generic plan: the model is a parameter, which only the workers see.
SET plan_cache_mode = force_generic_plan;
PREPARE embed_all(text) AS SELECT count(swe.embed($1, body)) AS embedded FROM rtexts;
EXPLAIN (COSTS OFF) EXECUTE embed_all('replaceable.swe');
SELECT array_length(swe.embed('replaceable.swe', 'a cat'), 1) AS loaded;
EXECUTE embed_all('replaceable.swe');
\! cp "$SWE_TEST_MODELS/other-model.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
EXECUTE embed_all('replaceable.swe');
-- A model named by a constant: the leader loads it before the workers start, so a session whose
-- rows were all embedded by workers has used the model too.
\! cp "$SWE_TEST_MODELS/swe-en-use-lite-large-para.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
\c
:workers_only
SELECT count(swe.embed('replaceable.swe', body)) AS embedded FROM rtexts;
\! cp "$SWE_TEST_MODELS/other-model.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
SELECT count(swe.embed('replaceable.swe', body)) AS embedded FROM rtexts;
-- What a new model means for stored results: indexes on swe's functions and generated columns hold
-- the old file's values, which a new session's queries no longer match. The query docs/POSTGRES.md
-- gives finds them; REINDEX and recomputing the column repair them.
\! cp "$SWE_TEST_MODELS/swe-en-use-lite-large-para.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
\c
CREATE TABLE idocs (id int PRIMARY KEY, body text,
                    bits bit(256) GENERATED ALWAYS AS (swe.embed_bits('replaceable.swe', body)) STORED);
INSERT INTO idocs (id, body) SELECT id, body FROM rtexts WHERE id <= 20;
CREATE INDEX idocs_bits ON idocs ((swe.embed_bits('replaceable.swe', body)));
SELECT DISTINCT pg_describe_object(d.classid, d.objid, d.objsubid) AS computed_by_swe
  FROM pg_depend d
 WHERE d.refclassid = 'pg_proc'::regclass AND d.deptype = 'n'
   AND d.refobjid IN (SELECT oid FROM pg_proc WHERE pronamespace = 'swe'::regnamespace)
 ORDER BY 1;
\! cp "$SWE_TEST_MODELS/other-model.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
\c
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS index_scan FROM idocs
 WHERE swe.embed_bits('replaceable.swe', body) = swe.embed_bits('replaceable.swe', 'a man is playing a guitar, take 7');
RESET enable_seqscan;
SET enable_indexscan = off;
SELECT count(*) AS seq_scan FROM idocs
 WHERE swe.embed_bits('replaceable.swe', body) = swe.embed_bits('replaceable.swe', 'a man is playing a guitar, take 7');
SELECT count(*) AS stale_generated FROM idocs WHERE bits <> swe.embed_bits('replaceable.swe', body);
REINDEX INDEX idocs_bits;
UPDATE idocs SET body = body;
RESET enable_indexscan;
SET enable_seqscan = off;
SELECT count(*) AS index_scan_after_reindex FROM idocs
 WHERE swe.embed_bits('replaceable.swe', body) = swe.embed_bits('replaceable.swe', 'a man is playing a guitar, take 7');
SELECT count(*) AS stale_generated FROM idocs WHERE bits <> swe.embed_bits('replaceable.swe', body);
RESET ALL;
DROP TABLE rtexts, idocs;
