-- A database in another encoding than UTF8 (LATIN1): texts are converted to UTF-8 for the library.
-- An empty text has nothing to convert and must stay empty (it is followed by other bytes in a row
-- or an array: reading on would take them for the text).
\set m 'swe-en-use-lite-large-para.swe'
CREATE DATABASE swe_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c swe_latin1
SET client_encoding = 'UTF8';
CREATE EXTENSION swe;
CREATE TABLE t (body text, next text);
INSERT INTO t VALUES ('', 'a man is playing a guitar'), ('naïve café crème', '');
SELECT body = '' AS empty, swe.known_words(:'m', body) AS known,
       (SELECT bool_and(x = 0) FROM unnest(swe.embed(:'m', body)) x) AS zero_vector,
       swe.embed_bits(:'m', body) = repeat('0', 256)::bit(256) AS zero_bits,
       swe.similarity(:'m', body, next) AS score
  FROM t ORDER BY 1 DESC;
SELECT n, swe.known_words(:'m', t) AS known, (SELECT bool_and(x = 0) FROM unnest(v) x) AS zero_vector
  FROM unnest(ARRAY['', 'a man is playing a guitar', '']) WITH ORDINALITY i(t, n)
  JOIN swe.embed(:'m', ARRAY['', 'a man is playing a guitar', '']) WITH ORDINALITY b(v, n) USING (n)
 ORDER BY n;
-- Converted text: the same vector as in a UTF8 database (the client sends UTF-8, the server stores LATIN1).
SELECT swe.embed(:'m', body) AS latin1 FROM t WHERE body <> '' \gset
\c swe_regress
SELECT swe.embed(:'m', 'naïve café crème') = :'latin1'::real[] AS same_as_utf8;
DROP DATABASE swe_latin1;
