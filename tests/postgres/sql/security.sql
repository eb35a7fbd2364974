-- The model directory is the superuser's: an ordinary role can neither move it nor leave it.
\set m 'swe-en-use-lite-large-para.swe'
CREATE EXTENSION IF NOT EXISTS swe;
CREATE ROLE swe_ordinary LOGIN;
\c - swe_ordinary
-- Before the library is loaded in a session the setting is a placeholder anyone may set; PostgreSQL
-- checks the value with the privileges of the role that set it when the library loads, and drops it.
SET swe.model_dir = '/etc';
SELECT array_length(swe.embed(:'m', 'a man is playing a guitar'), 1) AS dims;
SELECT current_setting('swe.model_dir') <> '/etc' AS not_moved;
-- Once loaded, setting it is refused.
SET swe.model_dir = '/etc';
SELECT set_config('swe.model_dir', '/', false);
ALTER ROLE swe_ordinary SET swe.model_dir = '/etc';
-- Names that leave the directory: a path, '..', an absolute path, symlinks pointing out.
SELECT swe.embed('../models/' || :'m', 'a');
SELECT swe.embed('..', 'a');
SELECT swe.embed('/etc/passwd', 'a');
SELECT swe.embed('sub/' || :'m', 'a');
SELECT swe.embed('.hidden.swe', 'a');
SELECT swe.embed('escape.swe', 'a');
SELECT swe.model_info('passwd.swe');
\c - postgres
-- The prefix is reserved: no placeholder variables under swe.
SELECT swe.known_words(:'m', 'a cat') AS loaded;
SET swe.no_such_setting = 1;
-- A superuser may point it elsewhere (here: nowhere), and back.
SET swe.model_dir = 'relative/path';
SET swe.model_dir = '';
SELECT swe.embed(:'m', 'a');
RESET swe.model_dir;
SELECT array_length(swe.embed(:'m', 'a'), 1) AS dims;
-- A value given before the library loaded and refused when it loads is named in the error, not
-- taken for "not set": an ordinary role's connection option (which also displaced the server's value
-- for the session) ...
\! PGOPTIONS='-c swe.model_dir=/etc' "$SWE_TEST_PSQL" -X -q -U swe_ordinary -d swe_regress -c "SELECT swe.embed('swe-en-use-lite-large-para.swe', 'a')" 2>&1
-- ... and a relative path that ALTER SYSTEM wrote in a session that had not loaded swe (no check ran).
\c
ALTER SYSTEM SET swe.model_dir = 'relative/dir';
SELECT pg_reload_conf(), pg_sleep(0.5);
\c
SELECT swe.embed(:'m', 'a');
\echo :LAST_ERROR_SQLSTATE
-- Where swe is loaded, ALTER SYSTEM checks the value.
ALTER SYSTEM SET swe.model_dir = 'relative/dir';
ALTER SYSTEM RESET swe.model_dir;
SELECT pg_reload_conf(), pg_sleep(0.5);
\c
SELECT array_length(swe.embed(:'m', 'a'), 1) AS dims;
DROP ROLE swe_ordinary;
