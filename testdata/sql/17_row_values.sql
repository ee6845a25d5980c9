-- Row values: comparisons (keyset pagination), IN lists, subqueries, NULLs.
CREATE TABLE rv (a int, b int, c text, PRIMARY KEY (a, b));
INSERT INTO rv VALUES (1, 1, 'x'), (1, 2, 'y'), (1, 3, NULL), (2, 1, 'z'), (2, 5, 'w'), (3, 1, 'v'), (3, 2, 'u');
CREATE TABLE rn (x int, y int);
INSERT INTO rn VALUES (1, 2), (2, NULL), (NULL, 1), (3, 2);
SELECT a, b, (a, b) = (1, 2) AS eq, (a, b) <> (1, 2) AS ne FROM rv ORDER BY a, b;
SELECT a, b FROM rv WHERE (a, b) > (1, 2) ORDER BY a, b LIMIT 3;
SELECT a, b FROM rv WHERE (a, b) >= (2, 1) ORDER BY a, b;
SELECT a, b FROM rv WHERE (a, b) < (2, 5) ORDER BY a DESC, b DESC LIMIT 2;
SELECT a, b FROM rv WHERE (a, b) <= (1, 3) ORDER BY 1, 2;
-- params: 1 | 2
SELECT a, b, c FROM rv WHERE (a, b) > ($1, $2) ORDER BY a, b LIMIT 2;
-- params: 2 | 5
SELECT a, b FROM rv WHERE (a, b) < ($1, $2) ORDER BY a DESC, b DESC LIMIT 3;
-- params: 3 | 1
SELECT count(*) FROM rv WHERE (a, b) = ($1, $2);
SELECT a, b FROM rv WHERE (a, b) IN ((1, 2), (2, 5), (9, 9)) ORDER BY 1, 2;
SELECT a, b FROM rv WHERE (a, b) NOT IN ((1, 2), (2, 5)) ORDER BY 1, 2;
SELECT a, b FROM rv WHERE (a, c) IN ((1, 'x'), (2, 'z')) ORDER BY 1, 2;
SELECT a, b FROM rv WHERE (a, b) IN (SELECT x, y FROM rn) ORDER BY 1, 2;
SELECT a, b FROM rv WHERE (a, b) NOT IN (SELECT x, y FROM rn) ORDER BY 1, 2;
SELECT a, b FROM rv WHERE (a, b) NOT IN (SELECT x, y FROM rn WHERE x = 1) ORDER BY 1, 2;
SELECT a, b, (a, b) IN (SELECT x, y FROM rn) AS isin FROM rv ORDER BY 1, 2;
SELECT x, y, (x, y) IN (SELECT a, b FROM rv) AS isin, (x, y) NOT IN (SELECT a, b FROM rv) AS notin FROM rn ORDER BY 1, 2;
SELECT a, b, (a, b) = ANY (SELECT x, y FROM rn) AS anyeq FROM rv ORDER BY 1, 2;
SELECT a, b, (a, b) > ALL (SELECT x, y FROM rn WHERE x IS NOT NULL AND y IS NOT NULL) AS gtall FROM rv ORDER BY 1, 2;
SELECT a, b, (a, b) < ANY (SELECT x, y FROM rn) AS ltany FROM rv ORDER BY 1, 2;
SELECT a, b, (a, b) <> ALL (SELECT x, y FROM rn) AS neall FROM rv ORDER BY 1, 2;
SELECT (1, 2) IN (SELECT 1, 2), (1, 2) IN (SELECT 1, 3 WHERE false), (1, 2) NOT IN (SELECT 1, 3 WHERE false);
SELECT a, b FROM rv r WHERE (a, b) IN (SELECT x, r.b FROM rn WHERE x = r.a) ORDER BY 1, 2;
SELECT a, b, (a, b) = (SELECT x, y FROM rn WHERE x = 1) AS eqsub FROM rv ORDER BY 1, 2;
SELECT a, b, (a, b) < (SELECT max(x), 2 FROM rn) AS ltsub FROM rv ORDER BY 1, 2;
SELECT (1, 2) = (SELECT 1, 2 WHERE false);
SELECT (1, 2) = (SELECT x, y FROM rn);
SELECT (1, 2) = (SELECT 1, 2, 3);
SELECT (1, 2, 3) IN (SELECT 1, 2);
SELECT (1, 2) IN (SELECT 1, 2, 3);
SELECT (1, 'a') IN (SELECT 1, 2);
SELECT (1::int2, 2::int8) IN (SELECT 1::numeric, 2::int4);
SELECT ROW(1, 2) < ROW(1, 3), ROW(1, 2) < ROW(1, 2), ROW(2, 0) > ROW(1, 9);
SELECT (1, NULL) < (2, 1), (1, NULL) < (1, 2), (NULL, 1) < (1, 2), (2, NULL) < (1, 5);
SELECT (1, NULL) = (2, 1), (1, NULL) = (1, 1), (1, NULL) <> (2, 1), (1, NULL) <> (1, 1);
SELECT (1, 2, 3) = (1, 2, 3), (1, 2, 3) < (1, 2, 4), ('a', 1) > ('a', 0);
SELECT (1, 2) = (1, 2, 3);
SELECT (1, 2) IS DISTINCT FROM (1, NULL), (1, NULL) IS DISTINCT FROM (1, NULL), (1, NULL) IS NOT DISTINCT FROM (1, NULL), (1, 2) IS NOT DISTINCT FROM (1, 3);
SELECT x, y, (x, y) IS DISTINCT FROM (1, 2) AS d FROM rn ORDER BY 1, 2;
SELECT (1, NULL) IS NULL, (NULL, NULL) IS NULL, ROW(NULL, NULL) IS NOT NULL, (1, 2) IS NOT NULL, (1, NULL) IS NOT NULL;
SELECT x, y FROM rn WHERE (x, y) IS NULL OR (x, y) IS NOT NULL ORDER BY 1, 2;
SELECT EXISTS (SELECT 1 FROM rv WHERE (a, c) = (1, 'x')), EXISTS (SELECT 1 FROM rv WHERE (a, c) = (1, 'q'));
SELECT a, count(*) FROM rv WHERE (a, b) > (1, 1) GROUP BY a ORDER BY a;
SELECT a, b FROM rv WHERE (a, b) IN (SELECT x, y FROM rn UNION SELECT 3, 2) ORDER BY 1, 2;
SELECT a, b FROM rv WHERE (b, a) = ANY (SELECT y, x FROM rn) ORDER BY 1, 2;
SELECT a, b FROM rv WHERE (a + 1, b * 2) IN (SELECT x + 1, y * 2 FROM rn) ORDER BY 1, 2;
-- unsupported
SELECT ROW(1, 2) ~ ROW(1, 2);
-- unsupported
SELECT rv FROM rv;
