-- The schema swe is the extension's own: CREATE EXTENSION refuses one that exists already (its owner
-- could have put functions there for a superuser to call), and DROP EXTENSION drops it.
\set m 'swe-en-use-lite-large-para.swe'
CREATE ROLE swe_db_owner LOGIN;
CREATE DATABASE swe_schema OWNER swe_db_owner;
\c swe_schema swe_db_owner
-- The database's owner (not a superuser) prepares a schema swe with an overload of swe.embed.
CREATE SCHEMA swe;
CREATE FUNCTION swe.embed(model text, input varchar) RETURNS real[]
  LANGUAGE sql AS $$ SELECT ARRAY[1]::real[] $$;
\c - postgres
CREATE EXTENSION swe;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS extensions FROM pg_extension WHERE extname = 'swe';
\c - swe_db_owner
DROP SCHEMA swe CASCADE;
\c - postgres
CREATE EXTENSION swe;
SELECT n.nspname, pg_get_userbyid(n.nspowner) AS owner, n.nspacl,
       EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_namespace'::regclass AND d.objid = n.oid
                AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'swe') AND d.deptype = 'e')
         AS member_of_extension
  FROM pg_namespace n WHERE n.nspname = 'swe';
SELECT array_length(swe.embed(:'m', 'a cat'), 1) AS dims;
-- Nobody else may add functions to it.
\c - swe_db_owner
CREATE FUNCTION swe.embed(model text, input varchar) RETURNS real[]
  LANGUAGE sql AS $$ SELECT ARRAY[1]::real[] $$;
SELECT array_length(swe.embed(:'m', 'a cat'), 1) AS dims_as_owner;
\c - postgres
-- DROP EXTENSION leaves nothing behind.
DROP EXTENSION swe;
SELECT count(*) AS swe_schemas FROM pg_namespace WHERE nspname = 'swe';
\c swe_regress postgres
DROP DATABASE swe_schema;
DROP ROLE swe_db_owner;
