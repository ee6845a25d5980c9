-- a comment before anything
\set x 1
SELECT 1;   -- trailing comment
SELECT 'a;b', "c;d", $$e;f$$, $tag$ $$ ; $tag$, E'g\';h' FROM t WHERE x = $1;
/* block /* nested ; */ comment */ SELECT (1;
  2);
SELECT 2 \gset
CREATE FUNCTION f() RETURNS int LANGUAGE sql
BEGIN ATOMIC
  SELECT 1;
  SELECT CASE WHEN true THEN 2 END;
END;
COPY t FROM stdin;
1	a;b
\N	c
\.
COPY t FROM stdin; -- expected to fail: no data follows
SELECT 4;
\d t
SELECT 3;
