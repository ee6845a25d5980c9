-- Differential script: DO blocks in the PL/pgSQL subset ORMs and
-- migration tools emit. Each statement runs on PostgreSQL 15 and on
-- pgproxy; tags, rows, errors with their CONTEXT and notices must agree.
-- Sequelize's enum creation, run twice (the second time the handler
-- swallows duplicate_object).
DO 'BEGIN CREATE TYPE "public"."enum_users_status" AS ENUM(''active'', ''banned''); EXCEPTION WHEN duplicate_object THEN null; END';
DO 'BEGIN CREATE TYPE "public"."enum_users_status" AS ENUM(''active'', ''banned''); EXCEPTION WHEN duplicate_object THEN null; END';
select enumlabel from pg_enum where enumtypid = 'enum_users_status'::regtype order by enumsortorder;
-- without the handler the error ends the block, with its context
DO 'BEGIN CREATE TYPE "public"."enum_users_status" AS ENUM(''x''); END';
-- IF [NOT] EXISTS (SELECT …) THEN … END IF
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'mood') THEN
    CREATE TYPE mood AS ENUM ('sad', 'ok');
  END IF;
END $$;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'mood') THEN
    CREATE TYPE mood AS ENUM ('never');
  ELSIF EXISTS (SELECT 1 FROM pg_enum WHERE enumlabel = 'ok') THEN
    RAISE NOTICE 'mood exists with ok';
  ELSE
    RAISE NOTICE 'not reached';
  END IF;
END $$;
select typname from pg_type where typname in ('mood', 'enum_users_status') order by 1;
-- statements and their order; one commit or none
DO $$ BEGIN
  CREATE TABLE t (id int primary key, m mood);
  INSERT INTO t VALUES (1, 'sad'), (2, 'ok');
  UPDATE t SET m = 'ok' WHERE id = 1;
END $$;
select * from t order by id;
DO $$ BEGIN
  INSERT INTO t VALUES (3, 'sad');
  INSERT INTO t VALUES (1, 'sad');
END $$;
select count(*) from t;
DO $$ BEGIN
  INSERT INTO t VALUES (4, 'nope');
END $$;
-- EXECUTE of a string, format(), several statements, the empty string
DO $$ BEGIN
  EXECUTE 'CREATE TABLE ' || quote_ident('Dyn') || ' (a int)';
  EXECUTE format('INSERT INTO %I VALUES (%s), (%s)', 'Dyn', 1, 2);
  EXECUTE 'INSERT INTO "Dyn" VALUES (3); INSERT INTO "Dyn" VALUES (4)';
  EXECUTE '';
END $$;
select sum(a) from "Dyn";
DO $$ BEGIN EXECUTE NULL; END $$;
DO $$ BEGIN EXECUTE 'select 1/0'; END $$;
DO $$ BEGIN EXECUTE 'select 1'; END $$;
-- PERFORM
DO $$ BEGIN PERFORM 1; PERFORM * FROM t; PERFORM pg_advisory_xact_lock(42); END $$;
DO $$ BEGIN PERFORM 1/0; END $$;
DO $$ BEGIN SELECT 1; END $$;
DO $$ BEGIN INSERT INTO t VALUES (5, 'ok') RETURNING id; END $$;
-- RAISE at every level, formats, options
DO $$ BEGIN RAISE NOTICE 'a % b % c %', 1.50::numeric, NULL, 'x' || 'y'; END $$;
DO $$ BEGIN RAISE NOTICE '100%% of %', 'it'; END $$;
DO $$ BEGIN RAISE INFO 'info'; RAISE WARNING 'warn'; RAISE LOG 'log'; RAISE DEBUG 'debug'; END $$;
DO $$ BEGIN RAISE NOTICE 'n' USING DETAIL = 'd', HINT = 'h', ERRCODE = 'division_by_zero'; END $$;
DO $$ BEGIN RAISE EXCEPTION 'bad %', 'thing' USING ERRCODE = '22000', DETAIL = 'dd', HINT = 'hh'; END $$;
DO $$ BEGIN RAISE EXCEPTION USING MESSAGE = 'only a message'; END $$;
DO $$ BEGIN RAISE 'plain %', 3; END $$;
DO $$ BEGIN RAISE division_by_zero; END $$;
DO $$ BEGIN RAISE SQLSTATE '22012'; END $$;
DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = 'nope'; END $$;
DO $$ BEGIN RAISE NOTICE '% %', 1; END $$;
DO $$ BEGIN RAISE; END $$;
-- exception handlers: matching by name, class, SQLSTATE, OTHERS; the
-- body's changes roll back, the handler's stay; RAISE; re-raises
DO $$ BEGIN
  BEGIN
    INSERT INTO t VALUES (10, 'ok');
    INSERT INTO t VALUES (1, 'ok');
  EXCEPTION WHEN unique_violation THEN
    RAISE NOTICE 'caught';
    INSERT INTO t VALUES (11, 'sad');
  END;
  INSERT INTO t VALUES (12, 'sad');
END $$;
select id from t order by id;
DO $$ BEGIN
  PERFORM 1/0;
EXCEPTION WHEN integrity_constraint_violation THEN RAISE NOTICE 'class 23';
  WHEN data_exception THEN RAISE NOTICE 'class 22';
END $$;
DO $$ BEGIN
  PERFORM 1/0;
EXCEPTION WHEN SQLSTATE '22012' OR unique_violation THEN RAISE NOTICE 'by sqlstate';
END $$;
DO $$ BEGIN
  RAISE EXCEPTION 'inner';
EXCEPTION WHEN others THEN RAISE NOTICE 'others';
END $$;
DO $$ BEGIN
  BEGIN RAISE EXCEPTION 'inner' USING ERRCODE = '22000'; EXCEPTION WHEN others THEN RAISE; END;
END $$;
DO $$ BEGIN
  BEGIN PERFORM 1/0; EXCEPTION WHEN unique_violation THEN RAISE NOTICE 'wrong'; END;
END $$;
DO $$ BEGIN
  CREATE TABLE gone (a int);
  RAISE EXCEPTION 'undo';
EXCEPTION WHEN raise_exception THEN RAISE NOTICE 'undone';
END $$;
select count(*) from pg_class where relname = 'gone';
DO $$ BEGIN NULL; EXCEPTION WHEN nonexistent_condition THEN NULL; END $$;
-- IF conditions are read by boolean's input function
DO $$ BEGIN IF 1 THEN RAISE NOTICE 'one'; END IF; END $$;
DO $$ BEGIN IF 'abc' THEN RAISE NOTICE 'x'; END IF; END $$;
DO $$ BEGIN IF NULL THEN RAISE NOTICE 'null'; ELSE RAISE NOTICE 'else'; END IF; END $$;
DO $$ BEGIN IF 1/0 = 1 THEN NULL; END IF; END $$;
-- RETURN ends the block
DO $$ BEGIN RAISE NOTICE 'before'; RETURN; RAISE NOTICE 'after'; END $$;
-- languages and grammar errors
DO LANGUAGE plpgsql $$ BEGIN RAISE NOTICE 'explicit'; END $$;
DO LANGUAGE sql $$ select 1 $$;
DO LANGUAGE nope $$ select 1 $$;
-- inside a transaction block: a failing DO fails the block
begin;
DO $$ BEGIN INSERT INTO t VALUES (20, 'ok'); END $$;
select count(*) from t where id = 20;
DO $$ BEGIN RAISE EXCEPTION 'stop'; END $$;
select 1;
rollback;
select count(*) from t where id = 20;
begin;
DO $$ BEGIN INSERT INTO t VALUES (21, 'ok'); END $$;
commit;
select id, m from t order by id;
-- notices of the statements a block runs carry its CONTEXT
DO $$ BEGIN DROP TABLE IF EXISTS nope; EXECUTE 'DROP TABLE IF EXISTS nope2'; CREATE TABLE IF NOT EXISTS t (a int); END $$;
-- nested blocks with handlers, and a DO run by EXECUTE
DO $$ BEGIN
  BEGIN
    BEGIN PERFORM 1/0; EXCEPTION WHEN division_by_zero THEN RAISE NOTICE 'inner'; RAISE EXCEPTION 'again'; END;
  EXCEPTION WHEN raise_exception THEN RAISE NOTICE 'outer';
  END;
  EXECUTE 'DO $i$ BEGIN INSERT INTO t VALUES (30, ''ok''); PERFORM 1/0; EXCEPTION WHEN others THEN RAISE NOTICE ''nested DO''; END $i$';
  INSERT INTO t VALUES (31, 'ok');
END $$;
select id from t where id >= 30 order by id;
-- FOUND after UPDATE, INSERT, DELETE and PERFORM (the update-or-insert
-- pattern); EXECUTE and DDL leave it; SQLSTATE and SQLERRM in handlers
DO $$ BEGIN
  RAISE NOTICE 'initially %', FOUND;
  UPDATE t SET m = 'sad' WHERE id = 40;
  IF NOT FOUND THEN
    INSERT INTO t VALUES (40, 'ok');
    RAISE NOTICE 'inserted, found %', found;
  END IF;
  UPDATE t SET m = 'sad' WHERE id = 40;
  RAISE NOTICE 'updated, found %', FOUND;
  EXECUTE 'DELETE FROM t WHERE id = -1';
  RAISE NOTICE 'after EXECUTE %', FOUND;
  DELETE FROM t WHERE id = -1;
  RAISE NOTICE 'after DELETE of nothing %', FOUND;
  PERFORM 1 FROM t WHERE id = 40;
  IF FOUND THEN RAISE NOTICE 'perform found'; END IF;
  PERFORM 1 FROM t WHERE id = -40;
  CREATE TABLE found_ddl (a int);
  RAISE NOTICE 'after DDL %', FOUND;
END $$;
select id, m from t where id = 40;
DO $$ BEGIN
  INSERT INTO t VALUES (40, 'ok');
EXCEPTION WHEN unique_violation THEN
  RAISE NOTICE 'caught % (%)', SQLSTATE, SQLERRM;
END $$;
DO $$ BEGIN
  PERFORM 1/0;
EXCEPTION WHEN others THEN
  BEGIN
    RAISE EXCEPTION 'it''s %', 'quoted';
  EXCEPTION WHEN others THEN
    RAISE NOTICE 'inner % %', SQLSTATE, SQLERRM;
  END;
  RAISE NOTICE 'outer % %', SQLSTATE, SQLERRM;
  IF SQLSTATE = '22012' THEN RAISE NOTICE 'by code'; END IF;
END $$;
DO $$ BEGIN
  PERFORM 1/0;
EXCEPTION WHEN others THEN
  RAISE EXCEPTION 'wrapped: %', SQLERRM USING ERRCODE = SQLSTATE;
END $$;
-- INFO reaches the client whatever client_min_messages says
set client_min_messages = error;
DO $$ BEGIN RAISE INFO 'info at error'; RAISE WARNING 'hidden'; RAISE NOTICE 'hidden too'; END $$;
reset client_min_messages;
-- variables: declared with defaults (reading earlier ones), NOT NULL,
-- assigned with conversion to their type, read in statements and
-- expressions (never as column-list names, aliases or table names)
DO $$
DECLARE
  n int := 2;
  m numeric(6,2) := n * 1.5;
  label text DEFAULT 'v' || n;
  nothing text;
  flag boolean NOT NULL := true;
BEGIN
  RAISE NOTICE 'n=% m=% label=% nothing=% flag=%', n, m, label, nothing, flag;
  n := n + 10;
  m := 1.005;
  n := 7.6;
  RAISE NOTICE 'n=% m=%', n, m;
  CREATE TABLE vars (n int, label text);
  INSERT INTO vars (n, label) VALUES (n, label);
  INSERT INTO vars SELECT n + 1 AS n, upper(label) AS label;
  UPDATE vars SET label = vars.label || '!' WHERE vars.n = 8;
END $$;
-- a variable that is also a column the statement sees is ambiguous
DO $$ DECLARE n int := 8; BEGIN UPDATE vars SET label = 'x' WHERE vars.n = n; END $$;
DO $$ DECLARE n int := 8; BEGIN PERFORM 1 FROM vars WHERE n > 0; END $$;
select * from vars order by n;
DO $$ DECLARE flag boolean NOT NULL := true; BEGIN flag := NULL; END $$;
DO $$ DECLARE n int; BEGIN n := 'abc'; END $$;
-- SELECT … INTO variables and records, STRICT, FOUND after it
DO $$
DECLARE
  a int;
  b text;
  r record;
BEGIN
  SELECT n, label INTO a, b FROM vars ORDER BY n LIMIT 1;
  RAISE NOTICE 'a=% b=% found=%', a, b, FOUND;
  SELECT n, label INTO a, b FROM vars WHERE n < 0;
  RAISE NOTICE 'a=% b=% found=%', a, b, FOUND;
  SELECT * INTO r FROM vars ORDER BY n DESC LIMIT 1;
  RAISE NOTICE 'r.n=% r.label=%', r.n, r.label;
  INSERT INTO vars VALUES (100, 'returned') RETURNING n INTO a;
  RAISE NOTICE 'returned %', a;
END $$;
DO $$ DECLARE a int; BEGIN SELECT n INTO STRICT a FROM vars; END $$;
DO $$ DECLARE a int; BEGIN SELECT n INTO STRICT a FROM vars WHERE n < 0; END $$;
DO $$ DECLARE r record; BEGIN RAISE NOTICE '%', r.n; END $$;
DO $$ DECLARE r record; BEGIN SELECT 1 AS x INTO r; RAISE NOTICE '%', r.y; END $$;
-- loops: FOR over integers (REVERSE, BY), over query rows, WHILE, LOOP
-- with EXIT/CONTINUE WHEN; the classic drop-every-table script
DO $$
DECLARE
  total int := 0;
  r record;
BEGIN
  FOR i IN 1..10 LOOP
    CONTINUE WHEN i % 2 = 0;
    total := total + i;
  END LOOP;
  RAISE NOTICE 'odd sum % found %', total, FOUND;
  FOR i IN REVERSE 10..1 BY 4 LOOP
    RAISE NOTICE 'reverse %', i;
  END LOOP;
  FOR i IN 5..1 LOOP RAISE NOTICE 'never'; END LOOP;
  RAISE NOTICE 'empty loop found %', FOUND;
  WHILE total > 20 LOOP total := total - 7; END LOOP;
  RAISE NOTICE 'while %', total;
  LOOP
    total := total + 1;
    EXIT WHEN total >= 20;
  END LOOP;
  RAISE NOTICE 'loop %', total;
  FOR r IN SELECT n, label FROM vars ORDER BY n LOOP
    RAISE NOTICE 'row % %', r.n, r.label;
    INSERT INTO vars VALUES (r.n + 1000, r.label || ' copy');
  END LOOP;
  FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('vars', 'found_ddl') ORDER BY 1 LOOP
    EXECUTE 'DROP TABLE ' || quote_ident(r.tablename);
    RAISE NOTICE 'dropped %', r.tablename;
  END LOOP;
END $$;
select count(*) from pg_tables where tablename in ('vars', 'found_ddl');
DO $$ BEGIN FOR i IN 1..3 BY 0 LOOP NULL; END LOOP; END $$;
DO $$ BEGIN FOR i IN 1..NULL LOOP NULL; END LOOP; END $$;
DO $$ DECLARE n int := 0; BEGIN LOOP n := n + 1; IF n > 3 THEN RAISE EXCEPTION 'stopped at %', n; END IF; END LOOP; END $$;
-- CONTEXT of errors in defaults, assignments and loop bounds; a record
-- as a value
DO $$ DECLARE n int := 1/0; BEGIN NULL; END $$;
DO $$
DECLARE
  n int := 'x';
BEGIN NULL; END $$;
DO $$ DECLARE n int; BEGIN n := 1/0; END $$;
DO $$ DECLARE n int; BEGIN n := 'y'; END $$;
DO $$ BEGIN FOR i IN 1..1/0 LOOP END LOOP; END $$;
DO $$ DECLARE r record; BEGIN FOR r IN SELECT 1/0 LOOP END LOOP; END $$;
DO $$ DECLARE r record; BEGIN SELECT 1 AS a, 'x y' AS b, NULL::int AS c INTO r; RAISE NOTICE '% %', r, r.b; END $$;
DO $$ DECLARE i int := 100; BEGIN FOR i IN 1..2 LOOP RAISE NOTICE 'in %', i; END LOOP; RAISE NOTICE 'after %', i; END $$;
-- GET DIAGNOSTICS ROW_COUNT after writes, PERFORM and EXECUTE; GET
-- STACKED DIAGNOSTICS in a handler
DO $$
DECLARE
  n int;
  big bigint;
  state text;
  msg text;
  detail text;
BEGIN
  CREATE TABLE diag (id int primary key);
  GET DIAGNOSTICS n = ROW_COUNT;
  RAISE NOTICE 'after DDL %', n;
  INSERT INTO diag SELECT generate_series(1, 5);
  GET DIAGNOSTICS n = ROW_COUNT;
  RAISE NOTICE 'inserted %', n;
  UPDATE diag SET id = id + 10 WHERE id > 3;
  GET DIAGNOSTICS big = ROW_COUNT;
  RAISE NOTICE 'updated %', big;
  PERFORM * FROM diag;
  GET DIAGNOSTICS n = ROW_COUNT;
  RAISE NOTICE 'performed %', n;
  EXECUTE 'DELETE FROM diag WHERE id < 3';
  GET CURRENT DIAGNOSTICS n = ROW_COUNT;
  RAISE NOTICE 'executed %', n;
  INSERT INTO diag VALUES (3);
EXCEPTION WHEN unique_violation THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
  RAISE NOTICE 'stacked % % %', state, msg, detail;
END $$;
DO $$ DECLARE t text; BEGIN GET STACKED DIAGNOSTICS t = MESSAGE_TEXT; END $$;
