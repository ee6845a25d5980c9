-- session.sql: what a psql user meets before any table exists — the
-- branch as database, SET/SHOW, errors with their SQLSTATEs and the
-- failed-transaction state.
SHOW graph.branch;
SELECT current_database(), 1 + 1 AS two, 'pg' || 'graph' AS name;
VALUES (1, 'one'), (2, 'two') ORDER BY 1 DESC;
SELECT * FROM no_such_table;
SELEC 1;
SELECT 1 / 0;
SELECT no_such_column FROM (VALUES (1)) AS v(a);
SET application_name = 'e2e psql';
SHOW application_name;
BEGIN;
SELECT 1 AS inside;
SELECT * FROM no_such_table;
SELECT 2 AS refused;
ROLLBACK;
SELECT 3 AS after;
