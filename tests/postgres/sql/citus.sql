-- Citus (built from ../shared/vendor by run.sh): this server is the coordinator of two workers on
-- 127.0.0.1, each node with its own model directory holding the same model file.
\set m 'swe-en-use-lite-large-para.swe'
\getenv texts SWE_TEST_TEXTS
SELECT substring(citus_version() FROM '^Citus [0-9.]+') AS citus;
SELECT count(*) AS workers FROM citus_get_active_worker_nodes();
-- Plans show shard and port numbers and the query's vector; this keeps their shape only.
CREATE FUNCTION plan_of(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    line := regexp_replace(line, '_[0-9]{4,}', '_N', 'g');
    line := regexp_replace(line, 'port=[0-9]+', 'port=N', 'g');
    RETURN NEXT regexp_replace(line, '''\{[^}]*\}''', '''{...}''', 'g');
  END LOOP;
END $$;
-- CREATE EXTENSION swe on the coordinator creates it on the workers too.
CREATE EXTENSION swe;
SELECT success, result FROM run_command_on_workers($$SELECT extversion = (SELECT default_version
    FROM pg_available_extensions WHERE name = 'swe') FROM pg_extension WHERE extname = 'swe'$$);
-- Every node has the same model file (the check docs/POSTGRES.md gives).
SELECT success, result = swe.model_info(:'m')->>'checksum' AS same_checksum
  FROM run_command_on_workers(format($$SELECT swe.model_info(%L)->>'checksum'$$, :'m'));
-- Each worker uses one connection to the coordinator's session, kept from statement to statement (a
-- new connection is a new session on the worker, which loads the file there at that moment).
SET citus.max_adaptive_executor_pool_size = 1;
SET citus.shard_count = 4;
CREATE TABLE docs (id int PRIMARY KEY, body text, emb real[]);
SELECT create_distributed_table('docs', 'id');
COPY docs (id, body) FROM :'texts' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
CREATE TABLE docs_local (id int PRIMARY KEY, body text, emb real[]);
COPY docs_local (id, body) FROM :'texts' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
UPDATE docs_local SET emb = swe.embed(:'m', body);
-- A distributed UPDATE with swe.embed (IMMUTABLE) is pushed down: each shard embeds its own rows.
SELECT plan_of($$UPDATE docs SET emb = swe.embed('swe-en-use-lite-large-para.swe', body)$$);
UPDATE docs SET emb = swe.embed(:'m', body);
SELECT count(*) FILTER (WHERE d.emb = l.emb) AS same_vectors, count(*) AS rows
  FROM docs d JOIN docs_local l USING (id);
-- Top 10: each shard ranks its rows, the coordinator merges; the same ids and scores as one server.
SELECT plan_of($$SELECT id FROM docs
  ORDER BY swe.similarity(emb, swe.embed('swe-en-use-lite-large-para.swe', 'a man is playing a guitar')) DESC, id LIMIT 10$$);
SELECT (SELECT array_agg(id ORDER BY s DESC, id) FROM (SELECT id, swe.similarity(emb, swe.embed(:'m', 'a man is playing a guitar')) s
          FROM docs ORDER BY s DESC, id LIMIT 10) d)
     = (SELECT array_agg(id ORDER BY s DESC, id) FROM (SELECT id, swe.similarity(emb, swe.embed(:'m', 'a man is playing a guitar')) s
          FROM docs_local ORDER BY s DESC, id LIMIT 10) l) AS same_top10,
       (SELECT array_agg(s ORDER BY s DESC, id) FROM (SELECT id, swe.similarity(emb, swe.embed(:'m', 'a man is playing a guitar')) s
          FROM docs ORDER BY s DESC, id LIMIT 10) d)
     = (SELECT array_agg(s ORDER BY s DESC, id) FROM (SELECT id, swe.similarity(emb, swe.embed(:'m', 'a man is playing a guitar')) s
          FROM docs_local ORDER BY s DESC, id LIMIT 10) l) AS same_scores;
-- The model file replaced on one worker: this session's statements that embed there are errors
-- (never other vectors on some shards; terse: the error's context names the worker's port).
\! cp "$SWE_TEST_MODELS/other-model.swe" "$SWE_TEST_CITUS_W1_MODELS/copy.tmp" && mv "$SWE_TEST_CITUS_W1_MODELS/copy.tmp" "$SWE_TEST_CITUS_W1_MODELS/swe-en-use-lite-large-para.swe"
\set VERBOSITY terse
UPDATE docs SET emb = swe.embed(:'m', body);
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT count(*) FILTER (WHERE d.emb = l.emb) AS same_vectors FROM docs d JOIN docs_local l USING (id);
-- The checksum check finds it.
SELECT count(DISTINCT result) AS checksums
  FROM run_command_on_workers(format($$SELECT swe.model_info(%L)->>'checksum'$$, :'m'));
