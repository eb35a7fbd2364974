-- Scale-out: a coordinator (this server) and two shards (their own servers), a table partitioned by
-- hash whose partitions are postgres_fdw foreign tables on the shards. With extensions 'swe' the
-- coordinator ships swe's IMMUTABLE functions to the shards, which embed and rank their own rows.
\set m 'swe-en-use-lite-large-para.swe'
\getenv shard1 SWE_TEST_SHARD1
\getenv shard2 SWE_TEST_SHARD2
\getenv texts SWE_TEST_TEXTS
CREATE EXTENSION IF NOT EXISTS swe;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'shard1', port '55432', dbname 'postgres', extensions 'swe', async_capable 'true');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'shard2', port '55432', dbname 'postgres', extensions 'swe', async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2 OPTIONS (user 'postgres');
CREATE TABLE docs (id int, body text, emb real[]) PARTITION BY HASH (id);
CREATE FOREIGN TABLE docs_1 PARTITION OF docs FOR VALUES WITH (MODULUS 2, REMAINDER 0)
  SERVER shard1 OPTIONS (table_name 'docs');
CREATE FOREIGN TABLE docs_2 PARTITION OF docs FOR VALUES WITH (MODULUS 2, REMAINDER 1)
  SERVER shard2 OPTIONS (table_name 'docs');
-- The single-server reference: the same rows in one local table.
CREATE TABLE docs_local (id int PRIMARY KEY, body text, emb real[]);
COPY docs_local (id, body) FROM :'texts' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
-- Texts go in through the coordinator and are embedded on the shards.
INSERT INTO docs SELECT id, body FROM docs_local;
SELECT (SELECT count(*) FROM docs_1) > 0 AND (SELECT count(*) FROM docs_2) > 0 AS both_shards_hold_rows,
       (SELECT count(*) FROM docs) = (SELECT count(*) FROM docs_local) AS all_rows;
EXPLAIN (VERBOSE, COSTS OFF) UPDATE docs SET emb = swe.embed(:'m', body) WHERE emb IS NULL;
UPDATE docs SET emb = swe.embed(:'m', body) WHERE emb IS NULL;
UPDATE docs_local SET emb = swe.embed(:'m', body);
SELECT count(*) FILTER (WHERE d.emb = l.emb) AS same_vectors, count(*) AS rows
  FROM docs d JOIN docs_local l USING (id);
-- Top-k: each shard ranks its rows and sends its best k (both shards at once); the coordinator merges them. The query
-- vector is computed once on the coordinator (an IMMUTABLE call of constants) and shipped as a constant.
CREATE FUNCTION remote_plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    IF line ~ 'Remote SQL|Foreign Scan|Append' THEN
      RETURN NEXT regexp_replace(line, '''\{[^}]*\}''', '''{...}''', 'g');
    END IF;
  END LOOP;
END $$;
CREATE VIEW distributed_top10 AS
  WITH per_shard AS MATERIALIZED (  -- materialized: a plain Append of both shards, run at once
    (SELECT id, swe.similarity(emb, swe.embed('swe-en-use-lite-large-para.swe', 'a man is playing a guitar')) AS score
       FROM docs_1 ORDER BY score DESC, id LIMIT 10)
    UNION ALL
    (SELECT id, swe.similarity(emb, swe.embed('swe-en-use-lite-large-para.swe', 'a man is playing a guitar')) AS score
       FROM docs_2 ORDER BY score DESC, id LIMIT 10))
  SELECT id, score FROM per_shard ORDER BY score DESC, id LIMIT 10;
CREATE VIEW single_top10 AS
  SELECT id, swe.similarity(emb, swe.embed('swe-en-use-lite-large-para.swe', 'a man is playing a guitar')) AS score
    FROM docs_local ORDER BY score DESC, id LIMIT 10;
SELECT remote_plan('SELECT * FROM distributed_top10');
SELECT (SELECT array_agg(id ORDER BY score DESC, id) FROM distributed_top10)
     = (SELECT array_agg(id ORDER BY score DESC, id) FROM single_top10) AS same_ids,
       (SELECT array_agg(score ORDER BY score DESC, id) FROM distributed_top10)
     = (SELECT array_agg(score ORDER BY score DESC, id) FROM single_top10) AS same_scores;
SELECT d.id, l.body, round(d.score::numeric, 4) AS score
  FROM distributed_top10 d JOIN docs_local l USING (id) ORDER BY d.score DESC, d.id LIMIT 3;
-- A filter on swe's functions runs on the shards, both at once (async Append).
SELECT remote_plan($q$SELECT count(*) FROM docs WHERE swe.known_words('swe-en-use-lite-large-para.swe', body) > 8$q$);
SELECT count(*) = (SELECT count(*) FROM docs_local WHERE swe.known_words(:'m', body) > 8) AS same_count
  FROM docs WHERE swe.known_words(:'m', body) > 8;
-- INSERT ... SELECT through the coordinator: vectors computed here, rows routed to their shard.
INSERT INTO docs SELECT id + 100000, body, swe.embed(:'m', body) FROM docs_local WHERE id <= 4;
SELECT count(*) AS routed FROM docs WHERE id > 100000 AND emb = swe.embed(:'m', body);
