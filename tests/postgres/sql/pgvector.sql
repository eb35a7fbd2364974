-- pgvector (built from ../shared/vendor by run.sh) on swe's vectors: the real[] -> vector cast, an HNSW
-- index (cosine) and its recall against exact search, binary_quantize against embed_bits, Hamming
-- indexes on a column and on an expression. 10,000 sentences, 100 queries (STS-B dev sentences).
\set m 'swe-en-use-lite-large-para.swe'
\getenv corpus SWE_TEST_CORPUS
\getenv texts SWE_TEST_TEXTS
CREATE EXTENSION IF NOT EXISTS swe;
CREATE EXTENSION vector;
SELECT extversion FROM pg_extension WHERE extname = 'vector';
CREATE TABLE vdocs (id int PRIMARY KEY, body text, emb vector(256), bits bit(256));
COPY vdocs (id, body) FROM :'corpus' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
UPDATE vdocs SET emb = swe.embed(:'m', body)::vector(256), bits = swe.embed_bits(:'m', body);
CREATE TABLE vqueries (id int PRIMARY KEY, body text, emb vector(256), bits bit(256));
COPY vqueries (id, body) FROM :'texts' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
DELETE FROM vqueries WHERE id > 100;
UPDATE vqueries SET emb = swe.embed(:'m', body)::vector(256), bits = swe.embed_bits(:'m', body);
VACUUM ANALYZE vdocs, vqueries;
-- The cast stores the vector exactly (the same float4 values back); binary_quantize() of it is
-- embed_bits, for every row.
SELECT count(*) AS rows, count(*) FILTER (WHERE emb::real[] = swe.embed(:'m', body)) AS exact_cast,
       count(*) FILTER (WHERE binary_quantize(emb) = bits) AS binary_quantize_equals_embed_bits
  FROM vdocs;
-- Exact search (no index yet): pgvector's cosine distance ranks the rows as swe.similarity does
-- (compared for the first 20 queries).
CREATE FUNCTION overlap(a int[], b int[]) RETURNS int LANGUAGE sql IMMUTABLE AS $$
  SELECT count(*)::int FROM unnest(a) x WHERE x = ANY (b) $$;
CREATE TABLE exact AS
  SELECT q.id, ARRAY(SELECT v.id FROM vdocs v ORDER BY v.emb <=> q.emb LIMIT 10) AS ids FROM vqueries q;
SELECT count(*) FILTER (WHERE overlap(e.ids, ARRAY(SELECT v.id FROM vdocs v
         ORDER BY swe.similarity(v.emb::real[], q.emb::real[]) DESC LIMIT 10)) = 10) AS same_top10,
       count(*) AS queries
  FROM exact e JOIN vqueries q USING (id) WHERE id <= 20;
-- HNSW on the cosine distance, used for ORDER BY emb <=> query LIMIT k: with the query's vector
-- computed in the statement (folded to a constant at planning) and from a column.
CREATE INDEX vdocs_hnsw ON vdocs USING hnsw (emb vector_cosine_ops);
CREATE FUNCTION plan_of(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    RETURN NEXT regexp_replace(line, '''[[0-9][^'']*''', '''...''', 'g');  -- constant vectors and bits
  END LOOP;
END $$;
SELECT plan_of($$SELECT id FROM vdocs
  ORDER BY emb <=> swe.embed('swe-en-use-lite-large-para.swe', 'a man is playing a guitar')::vector(256) LIMIT 10$$);
SELECT plan_of($$SELECT ARRAY(SELECT v.id FROM vdocs v ORDER BY v.emb <=> q.emb LIMIT 10) FROM vqueries q$$);
-- Recall@10 against exact search at the default hnsw.ef_search (40) and at 100 (the numbers are in
-- pgvector_measured, which run.sh prints).
CREATE TABLE pgvector_measured (what text PRIMARY KEY, value float8);
INSERT INTO pgvector_measured
  SELECT 'recall@10, hnsw.ef_search = 40',
         avg(overlap(e.ids, ARRAY(SELECT v.id FROM vdocs v ORDER BY v.emb <=> q.emb LIMIT 10))) / 10
    FROM exact e JOIN vqueries q USING (id);
SET hnsw.ef_search = 100;
INSERT INTO pgvector_measured
  SELECT 'recall@10, hnsw.ef_search = 100',
         avg(overlap(e.ids, ARRAY(SELECT v.id FROM vdocs v ORDER BY v.emb <=> q.emb LIMIT 10))) / 10
    FROM exact e JOIN vqueries q USING (id);
RESET hnsw.ef_search;
SELECT what, value >= 0.9 AS at_least_0_9 FROM pgvector_measured ORDER BY what;
-- Hamming distance on the sign codes: HNSW indexes (bit_hamming_ops) on the column and on the
-- expression itself, each used. Many codes tie at each distance, so the measure is whether the 10th
-- of the index's 10 nearest is as near as the exact 10th; that needs a longer candidate list than
-- the default (measured at hnsw.ef_search 40 and 200).
CREATE TABLE hamming_exact AS
  SELECT q.id, (SELECT max(d) FROM (SELECT v.bits <~> q.bits AS d FROM vdocs v ORDER BY 1 LIMIT 10) s) AS tenth
    FROM vqueries q;
CREATE INDEX vdocs_bits ON vdocs USING hnsw (bits bit_hamming_ops);
CREATE INDEX vdocs_bits_expr ON vdocs
  USING hnsw ((swe.embed_bits('swe-en-use-lite-large-para.swe', body)::bit(256)) bit_hamming_ops);
SELECT plan_of($$SELECT id FROM vdocs
  ORDER BY bits <~> swe.embed_bits('swe-en-use-lite-large-para.swe', 'a man is playing a guitar') LIMIT 10$$);
SELECT plan_of($$SELECT (SELECT max(d) FROM (SELECT swe.embed_bits('swe-en-use-lite-large-para.swe', v.body)::bit(256)
  <~> q.bits AS d FROM vdocs v ORDER BY 1 LIMIT 10) s) FROM vqueries q$$);
INSERT INTO pgvector_measured
  SELECT 'Hamming, column index, hnsw.ef_search = 40: 10th as near as the exact 10th',
         avg(((SELECT max(d) FROM (SELECT v.bits <~> q.bits AS d FROM vdocs v ORDER BY 1 LIMIT 10) s) <= e.tenth)::int)
    FROM hamming_exact e JOIN vqueries q USING (id);
SET hnsw.ef_search = 200;
INSERT INTO pgvector_measured
  SELECT 'Hamming, column index, hnsw.ef_search = 200: 10th as near as the exact 10th',
         avg(((SELECT max(d) FROM (SELECT v.bits <~> q.bits AS d FROM vdocs v ORDER BY 1 LIMIT 10) s) <= e.tenth)::int)
    FROM hamming_exact e JOIN vqueries q USING (id);
INSERT INTO pgvector_measured
  SELECT 'Hamming, expression index, hnsw.ef_search = 200: 10th as near as the exact 10th',
         avg(((SELECT max(d) FROM (SELECT swe.embed_bits('swe-en-use-lite-large-para.swe', v.body)::bit(256)
                <~> q.bits AS d FROM vdocs v ORDER BY 1 LIMIT 10) s) <= e.tenth)::int)
    FROM hamming_exact e JOIN vqueries q USING (id);
RESET hnsw.ef_search;
SELECT what, value >= 0.8 AS at_least_0_8 FROM pgvector_measured WHERE what LIKE 'Hamming%= 200%' ORDER BY what;
DROP TABLE vdocs, vqueries, exact, hamming_exact;
DROP FUNCTION overlap, plan_of;
