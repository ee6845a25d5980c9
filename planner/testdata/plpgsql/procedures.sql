-- CREATE PROCEDURE, CALL, DROP PROCEDURE
CREATE TABLE ledger (id int PRIMARY KEY, amount numeric, note text);
CREATE PROCEDURE add_entry(i int, amt numeric, n text DEFAULT 'none') LANGUAGE sql AS $$ INSERT INTO ledger VALUES (i, amt, n) $$;
CALL add_entry(1, 10.5);
CALL add_entry(2, 3, 'coffee');
CALL add_entry(n => 'named', amt => 7, i => 3);
SELECT * FROM ledger ORDER BY id;
CREATE PROCEDURE transfer(a int, b int, amt numeric) LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ledger SET amount = amount - amt WHERE id = a;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no account %', a;
  END IF;
  UPDATE ledger SET amount = amount + amt WHERE id = b;
  RAISE NOTICE 'moved % from % to %', amt, a, b;
END $$;
CALL transfer(1, 2, 0.5);
SELECT id, amount FROM ledger ORDER BY id;
CALL transfer(99, 2, 1);
SELECT id, amount FROM ledger ORDER BY id;
BEGIN;
CALL transfer(2, 3, 1);
SELECT id, amount FROM ledger ORDER BY id;
ROLLBACK;
SELECT id, amount FROM ledger ORDER BY id;
CREATE PROCEDURE double_it(INOUT x int) LANGUAGE plpgsql AS $$
BEGIN
  x := x * 2;
END $$;
CALL double_it(21);
CREATE PROCEDURE two_entries(base int) LANGUAGE plpgsql AS $$
BEGIN
  CALL add_entry(base, 1, 'first');
  CALL add_entry(base + 1, 2);
END $$;
CALL two_entries(10);
SELECT * FROM ledger WHERE id >= 10 ORDER BY id;
DO $$
BEGIN
  CALL two_entries(20);
  RAISE NOTICE 'rows now %', (SELECT count(*) FROM ledger);
END $$;
CALL two_entries(10);
SELECT count(*) FROM ledger;
CREATE PROCEDURE stats(INOUT total numeric, INOUT cnt bigint) LANGUAGE sql AS $$ SELECT sum(amount), count(*) FROM ledger $$;
CALL stats(NULL, NULL);
CALL nosuch(1);
CALL add_entry('x');
SELECT add_entry(4, 1);
CREATE FUNCTION plain_fn() RETURNS int LANGUAGE sql AS 'SELECT 1';
CALL plain_fn();
CALL upper('x');
CREATE PROCEDURE add_entry(i int, amt numeric, n text) LANGUAGE sql AS 'SELECT 1';
CREATE OR REPLACE FUNCTION add_entry(i int, amt numeric, n text) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE OR REPLACE PROCEDURE add_entry(i int, amt numeric, n text DEFAULT 'replaced') LANGUAGE sql AS $$ INSERT INTO ledger VALUES (i, amt, n) $$;
CALL add_entry(5, 0);
SELECT note FROM ledger WHERE id = 5;
SELECT proname, prokind, prorettype::regtype, pronargs, pronargdefaults, proargmodes FROM pg_proc WHERE proname IN ('add_entry', 'double_it', 'stats', 'plain_fn') ORDER BY proname;
-- psql 15's \df
SELECT n.nspname as "Schema", p.proname as "Name", pg_catalog.pg_get_function_result(p.oid) as "Result data type", pg_catalog.pg_get_function_arguments(p.oid) as "Argument data types", CASE p.prokind WHEN 'a' THEN 'agg' WHEN 'w' THEN 'window' WHEN 'p' THEN 'proc' ELSE 'func' END as "Type" FROM pg_catalog.pg_proc p LEFT JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE pg_catalog.pg_function_is_visible(p.oid) AND n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema' ORDER BY 1, 2, 4;
DROP FUNCTION add_entry(int, numeric, text);
DROP PROCEDURE plain_fn();
DROP PROCEDURE nosuch(int);
DROP PROCEDURE IF EXISTS nosuch(int);
DROP PROCEDURE add_entry(int, numeric, text);
DROP ROUTINE double_it;
DROP PROCEDURE transfer;
CALL transfer(1, 2, 1);
SELECT count(*) FROM pg_proc WHERE prokind = 'p' AND proname IN ('add_entry', 'double_it', 'transfer', 'stats');
