-- Bad inputs: each is an ERROR with a SQLSTATE (echoed after it), and the server keeps answering.
\set m 'swe-en-use-lite-large-para.swe'
CREATE EXTENSION IF NOT EXISTS swe;
SELECT swe.embed('missing.swe', 'a');
\echo :LAST_ERROR_SQLSTATE
SELECT swe.embed('truncated.swe', 'a');
\echo :LAST_ERROR_SQLSTATE
SELECT swe.embed('', 'a');
\echo :LAST_ERROR_SQLSTATE
SELECT swe.embed(:'m', ARRAY['a', NULL]);
\echo :LAST_ERROR_SQLSTATE
SELECT swe.embed(:'m', ARRAY[['a', 'b'], ['c', 'd']]);
\echo :LAST_ERROR_SQLSTATE
SELECT swe.similarity('{1,2}'::real[], '{1,2,3}'::real[]);
\echo :LAST_ERROR_SQLSTATE
SELECT swe.similarity('{1,NULL}'::real[], '{1,2}'::real[]);
\echo :LAST_ERROR_SQLSTATE
SELECT swe.similarity('{}'::real[], '{}'::real[]);
\echo :LAST_ERROR_SQLSTATE
SELECT swe.similarity('{NaN,1}'::real[], '{1,1}'::real[]);
\echo :LAST_ERROR_SQLSTATE
SELECT swe.similarity('{Infinity,1}'::real[], '{1,1}'::real[]);
\echo :LAST_ERROR_SQLSTATE
SELECT swe.similarity('{{1,2},{3,4}}'::real[], '{1,2,3,4}'::real[]);
\echo :LAST_ERROR_SQLSTATE
-- A 100 MB text and a 100,000-element array.
SELECT swe.embed(:'m', repeat('word ', 20000000));
\echo :LAST_ERROR_SQLSTATE
SELECT swe.known_words(:'m', repeat('word ', 20000000));
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM swe.embed(:'m', array_fill('a'::text, ARRAY[100000]));
\echo :LAST_ERROR_SQLSTATE
SELECT swe.similarity(array_fill(1::real, ARRAY[100000]), array_fill(1::real, ARRAY[100000]));
\echo :LAST_ERROR_SQLSTATE
-- statement_timeout interrupts a batch (10,000 texts of 2,000 words each).
CREATE TEMP TABLE long_texts AS SELECT array_fill(repeat('a man is playing a guitar ', 400), ARRAY[10000]) AS a;
SET statement_timeout = '200ms';
SELECT count(*) FROM long_texts, swe.embed(:'m', long_texts.a);
\echo :LAST_ERROR_SQLSTATE
RESET statement_timeout;
-- Invalid UTF-8 in a SQL_ASCII database (which stores bytes unchecked).
CREATE DATABASE swe_sql_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c swe_sql_ascii
CREATE EXTENSION swe;
SELECT array_length(swe.embed(:'m', 'plain ascii'), 1) AS ascii_ok;
SELECT swe.known_words(:'m', 'naïve café') AS utf8_ok;
SELECT swe.embed(:'m', E'caf\xe9');
\echo :LAST_ERROR_SQLSTATE
SELECT swe.known_words(:'m', E'\xff\xfe');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM swe.embed(:'m', ARRAY['ok', E'\xc3']);
\echo :LAST_ERROR_SQLSTATE
\c swe_regress
DROP DATABASE swe_sql_ascii;
-- Still answering.
SELECT 1 AS alive;
