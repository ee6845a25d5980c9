-- A LIMIT over a WITH RECURSIVE that never ends on its own stops the
-- recursion (the CTE scan is filled as it is read), as in PostgreSQL.
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 3;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT n * 2 FROM t WHERE n % 3 = 0 LIMIT 4;
WITH RECURSIVE fib(a, b) AS (SELECT 0::numeric, 1::numeric UNION ALL SELECT b, a + b FROM fib) SELECT a FROM fib LIMIT 10;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT (SELECT count(*) FROM (SELECT * FROM t LIMIT 5) a), (SELECT max(n) FROM (SELECT * FROM t LIMIT 7) b);
-- scanned twice, each to the end
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT a.n, b.n FROM t a JOIN t b ON b.n = a.n + 1 ORDER BY 1;
WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n % 4 + 1 FROM t) SELECT count(*), sum(n) FROM t;
