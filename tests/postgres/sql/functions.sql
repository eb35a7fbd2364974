-- The functions on the default model: shapes, agreement between the forms, pgvector's formats.
CREATE EXTENSION swe;
\set m 'swe-en-use-lite-large-para.swe'
SELECT info->>'name' AS name, info->'dims' AS dims, info->'vocab_size' AS vocab_size,
       info->>'checksum' ~ '^[0-9a-f]{8}$' AS has_checksum
  FROM swe.model_info(:'m') info;
-- One 256-dim unit vector, pgvector's real[] layout: one dimension, lower bound 1, no NULLs.
SELECT array_ndims(v), array_lower(v, 1), array_length(v, 1), array_position(v, NULL) IS NULL AS no_nulls,
       round(sqrt((SELECT sum(x * x) FROM unnest(v) x))::numeric, 5) AS norm
  FROM swe.embed(:'m', 'a man is playing a guitar') v;
-- The batch form gives the same vectors, in order.
SELECT n, b.v = swe.embed(:'m', t) AS same
  FROM unnest(ARRAY['a man is playing a guitar', 'A woman slices an onion.', '']) WITH ORDINALITY i(t, n)
  JOIN swe.embed(:'m', ARRAY['a man is playing a guitar', 'A woman slices an onion.', ''])
       WITH ORDINALITY b(v, n) USING (n)
 ORDER BY n;
SELECT count(*) FROM swe.embed(:'m', ARRAY[]::text[]);
-- Similarity of texts equals the cosine of their vectors; paraphrases score above unrelated texts.
SELECT abs(swe.similarity(:'m', 'A man is playing a guitar.', 'A man plays the guitar.')
         - swe.similarity(swe.embed(:'m', 'A man is playing a guitar.'),
                          swe.embed(:'m', 'A man plays the guitar.'))) < 1e-6 AS agree;
SELECT swe.similarity(:'m', 'A man is playing a guitar.', 'A man plays the guitar.')
     > swe.similarity(:'m', 'A man is playing a guitar.', 'The stock market fell sharply.') AS ranks;
SELECT swe.similarity('{1,0,0}'::real[], '{0,1,0}'::real[]) AS orthogonal,
       swe.similarity('{1,2,3}'::real[], '{2,4,6}'::real[]) AS parallel,
       swe.similarity('{1,2,3}'::real[], '{-1,-2,-3}'::real[]) AS opposite,
       swe.similarity('{0,0}'::real[], '{1,1}'::real[]) AS zero;
-- A text with no word the model knows: zero vector, similarity 0, known_words 0.
SELECT swe.known_words(:'m', '!!! ???') AS unknown, swe.known_words(:'m', 'a man is playing a guitar') AS known,
       swe.similarity(:'m', '!!! ???', 'a man') AS score,
       (SELECT bool_and(x = 0) FROM unnest(swe.embed(:'m', '!!! ???')) x) AS zero_vector;
-- embed_bits: bit i is 1 when element i > 0, first element in the first (leftmost) bit: the order of
-- PostgreSQL's bit type and pgvector's binary_quantize(). Checked against the vector element by element.
SELECT length(b) AS bits,
       b = (SELECT string_agg(CASE WHEN x > 0 THEN '1' ELSE '0' END, '' ORDER BY n)::bit(256)
              FROM unnest(swe.embed(:'m', 'a man is playing a guitar')) WITH ORDINALITY u(x, n)) AS sign_bits,
       get_bit(b, 0) = (CASE WHEN (swe.embed(:'m', 'a man is playing a guitar'))[1] > 0 THEN 1 ELSE 0 END)
         AS first_bit_is_first_element
  FROM swe.embed_bits(:'m', 'a man is playing a guitar') b;
-- Hamming distance with PostgreSQL's own operators (what pgvector's <~> computes).
SELECT length(replace((swe.embed_bits(:'m', 'a man is playing a guitar')
                       # swe.embed_bits(:'m', 'a man plays the guitar'))::text, '0', ''))
     < length(replace((swe.embed_bits(:'m', 'a man is playing a guitar')
                       # swe.embed_bits(:'m', 'the stock market fell'))::text, '0', '')) AS hamming_ranks;
-- A symlink inside the model directory to a model in it is allowed.
SELECT swe.embed('inner-link.swe', 'a cat') = swe.embed(:'m', 'a cat') AS same_through_link;
-- Declared properties.
SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, p.provolatile, p.proisstrict,
       p.proparallel, p.proretset
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'swe' ORDER BY 1, 2;
