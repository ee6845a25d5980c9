-- CREATE FUNCTION … LANGUAGE sql and plpgsql, calls, DROP FUNCTION
CREATE TABLE items (id int PRIMARY KEY, name text, price numeric);
INSERT INTO items VALUES (1, 'apple', 1.5), (2, 'pear', 2.25), (3, 'plum', NULL);
CREATE FUNCTION add_one(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
SELECT add_one(41);
SELECT add_one(id) FROM items ORDER BY id;
CREATE FUNCTION twice(x int) RETURNS int LANGUAGE sql AS $$ SELECT x * 2 $$;
SELECT twice(21), twice(NULL);
CREATE FUNCTION strict_twice(x int) RETURNS int LANGUAGE sql STRICT AS $$ SELECT coalesce(x, 7) * 2 $$;
SELECT strict_twice(NULL), twice(NULL);
CREATE FUNCTION price_of(item_name text) RETURNS numeric LANGUAGE sql STABLE AS $$ SELECT price FROM items WHERE name = item_name $$;
SELECT price_of('pear'), price_of('none');
CREATE FUNCTION greet(who text, greeting text DEFAULT 'hello') RETURNS text LANGUAGE sql AS $$ SELECT greeting || ', ' || who $$;
SELECT greet('ada'), greet('bob', 'hi');
CREATE FUNCTION add_one(int) RETURNS int LANGUAGE sql AS 'SELECT $1 + 2';
CREATE OR REPLACE FUNCTION add_one(int) RETURNS int LANGUAGE sql AS 'SELECT $1 + 2';
SELECT add_one(1);
CREATE OR REPLACE FUNCTION add_one(int) RETURNS text LANGUAGE sql AS 'SELECT ''x''';
CREATE FUNCTION add_one(bigint) RETURNS bigint LANGUAGE sql AS 'SELECT $1 + 100';
SELECT add_one(1::bigint), add_one(1);
CREATE FUNCTION ret_std(a int, b int) RETURNS int LANGUAGE sql RETURN a + b;
SELECT ret_std(2, 3);
CREATE FUNCTION counted() RETURNS bigint LANGUAGE sql BEGIN ATOMIC SELECT count(*) FROM items; END;
SELECT counted();
CREATE FUNCTION plpg_sum(a int, b int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  s int := a + b;
BEGIN
  IF s > 10 THEN
    RETURN s * 10;
  END IF;
  RETURN s;
END $$;
SELECT plpg_sum(1, 2), plpg_sum(5, 6);
CREATE FUNCTION classify(n int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF n < 0 THEN RETURN 'negative'; ELSIF n = 0 THEN RETURN 'zero'; END IF;
  RETURN 'positive';
END $$;
SELECT n, classify(n) FROM (VALUES (-1), (0), (5)) v(n) ORDER BY n;
CREATE FUNCTION loud(msg text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'loud: %', msg;
END $$;
SELECT loud('hi');
CREATE FUNCTION no_return(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  n := n + 1;
END $$;
SELECT no_return(1);
CREATE FUNCTION failing(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'bad value %', n USING ERRCODE = '22023';
END $$;
SELECT failing(3);
CREATE FUNCTION no_lang() RETURNS int AS 'SELECT 1';
CREATE FUNCTION bad_lang() RETURNS int LANGUAGE perl AS 'SELECT 1';
CREATE FUNCTION bad_type(x nosuchtype) RETURNS int LANGUAGE sql AS 'SELECT 1';
SELECT nosuch_fn(1);
SELECT twice('x');
CREATE FUNCTION writer(v int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO items VALUES (v, 'w' || v, v);
  RETURN v;
END $$;
SELECT writer(10);
SELECT id, name FROM items ORDER BY id;
BEGIN;
SELECT writer(11);
ROLLBACK;
SELECT count(*) FROM items WHERE id = 11;
SELECT proname, prosrc, prolang = (SELECT oid FROM pg_language WHERE lanname = 'sql'), provolatile, proisstrict, proretset, pronargs, pronargdefaults, proargtypes::text FROM pg_proc WHERE proname IN ('add_one', 'greet', 'strict_twice', 'price_of') ORDER BY proname, proargtypes::text;
SELECT pg_get_function_arguments(oid), pg_get_function_result(oid) FROM pg_proc WHERE proname = 'greet';
-- psql 15's \df
SELECT n.nspname as "Schema", p.proname as "Name", pg_catalog.pg_get_function_result(p.oid) as "Result data type", pg_catalog.pg_get_function_arguments(p.oid) as "Argument data types", CASE p.prokind WHEN 'a' THEN 'agg' WHEN 'w' THEN 'window' WHEN 'p' THEN 'proc' ELSE 'func' END as "Type" FROM pg_catalog.pg_proc p LEFT JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE pg_catalog.pg_function_is_visible(p.oid) AND n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema' ORDER BY 1, 2, 4;
DROP FUNCTION add_one;
DROP FUNCTION add_one(bigint);
DROP FUNCTION add_one(int);
SELECT add_one(1);
DROP FUNCTION add_one(int);
DROP FUNCTION IF EXISTS add_one(int);
DROP FUNCTION IF EXISTS nothing_here;
DROP FUNCTION greet(text, text), twice;
SELECT count(*) FROM pg_proc WHERE proname IN ('greet', 'twice');
CREATE FUNCTION granted(int) RETURNS int LANGUAGE sql AS 'SELECT $1';
SELECT has_function_privilege('granted(int)', 'EXECUTE');
