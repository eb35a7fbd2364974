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
DROP ROLE swe_ordinary;
