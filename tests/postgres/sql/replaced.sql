-- A model file replaced under its name: other bytes are an ERROR in a session that used the old ones
-- (never other vectors from an IMMUTABLE function); the same bytes in a new file are not.
CREATE EXTENSION IF NOT EXISTS swe;
SELECT array_length(swe.embed('replaceable.swe', 'a cat'), 1) AS loaded;
\! cp "$SWE_TEST_MODELS/replaceable.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
SELECT array_length(swe.embed('replaceable.swe', 'a cat'), 1) AS same_bytes_new_file;
\! cp "$SWE_TEST_MODELS/other-model.swe" "$SWE_TEST_MODELS/copy.tmp" && mv "$SWE_TEST_MODELS/copy.tmp" "$SWE_TEST_MODELS/replaceable.swe"
SELECT swe.embed('replaceable.swe', 'a cat');
SELECT swe.known_words('replaceable.swe', 'a cat');
-- A new session loads the new file.
\c
SELECT swe.known_words('replaceable.swe', 'a cat') AS new_session;
