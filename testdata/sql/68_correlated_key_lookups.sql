-- Correlated subqueries and LATERAL items whose key equals an
-- expression of the outer row (bind_from.go, lookupValueExpr): the
-- inner scan looks its rows up by key for each outer row instead of
-- reading the table. Outer columns alone, plus/minus/times constants,
-- casts, parameters-like constants, NULL outer values (no row), IN
-- lists mixing outer and constant values, text keys, and division
-- (left to the scan). TestDifferentialJoinMethods runs this script
-- again with enable_hashjoin = off and enable_nestloop = off.
CREATE TABLE ck_item (k int PRIMARY KEY, v int, t text);
CREATE TABLE ck_tag (name text PRIMARY KEY, n int);
CREATE TABLE ck_edge (src int NOT NULL, dst int, w int);
CREATE INDEX ck_edge_src ON ck_edge (src);
INSERT INTO ck_item SELECT g, g % 13, 't' || g FROM generate_series(1, 3000) g;
INSERT INTO ck_tag SELECT 't' || g, g FROM generate_series(1, 500) g;
INSERT INTO ck_edge SELECT g % 400 + 1, CASE WHEN g % 17 = 0 THEN NULL ELSE g % 3100 END, g % 7 FROM generate_series(1, 2000) g;
SELECT g, (SELECT v FROM ck_item WHERE k = g) FROM generate_series(1, 40) g ORDER BY 1;
SELECT g, (SELECT count(*) FROM ck_item WHERE k = g - 1) FROM generate_series(0, 30) g ORDER BY 1;
SELECT g, (SELECT t FROM ck_item WHERE k = g * 2) FROM generate_series(1, 30) g ORDER BY 1;
SELECT g, (SELECT t FROM ck_item WHERE k = 3 * g + 1) FROM generate_series(1, 30) g ORDER BY 1;
SELECT e.src, e.dst, (SELECT v FROM ck_item i WHERE i.k = e.dst) FROM ck_edge e WHERE e.src < 6 ORDER BY 1, 2, 3;
SELECT e.src, e.dst, (SELECT v FROM ck_item i WHERE i.k = e.dst + e.w) FROM ck_edge e WHERE e.src < 6 ORDER BY 1, 2, 3;
SELECT count(*) FROM ck_edge e WHERE EXISTS (SELECT 1 FROM ck_item i WHERE i.k = e.dst AND i.v = 3);
SELECT count(*) FROM ck_edge e WHERE NOT EXISTS (SELECT 1 FROM ck_item i WHERE i.k = e.dst - 1);
SELECT e.src, e.dst, l.t FROM ck_edge e, LATERAL (SELECT t FROM ck_item i WHERE i.k = e.dst * 2) l WHERE e.src BETWEEN 10 AND 14 ORDER BY 1, 2, 3;
SELECT e.src, e.dst, l.t FROM ck_edge e LEFT JOIN LATERAL (SELECT t FROM ck_item i WHERE i.k = e.dst) l ON true WHERE e.src BETWEEN 20 AND 23 ORDER BY 1, 2, 3;
SELECT g, (SELECT string_agg(t, ',' ORDER BY k) FROM ck_item WHERE k IN (g, g + 1, 7)) FROM generate_series(1, 20) g ORDER BY 1;
SELECT g, (SELECT count(*) FROM ck_item WHERE k IN (g, NULL)) FROM generate_series(1, 10) g ORDER BY 1;
SELECT g, (SELECT v FROM ck_item WHERE k = g::int) FROM generate_series(1::bigint, 12::bigint) g ORDER BY 1;
SELECT g, (SELECT v FROM ck_item WHERE k = (g + 0.5)::int) FROM generate_series(1, 12) g ORDER BY 1;
SELECT g, (SELECT v FROM ck_item WHERE k = g / 2) FROM generate_series(1, 12) g ORDER BY 1;
SELECT g, (SELECT v FROM ck_item WHERE k = -g) FROM generate_series(1, 5) g ORDER BY 1;
SELECT x, (SELECT n FROM ck_tag WHERE name = x) FROM (VALUES ('t1'), ('t499'), ('t501'), (NULL)) s(x) ORDER BY 1;
SELECT x, (SELECT n FROM ck_tag WHERE name = 't' || x) FROM (VALUES ('1'), ('42'), ('9999')) s(x) ORDER BY 1;
SELECT s.a, (SELECT max(v) FROM ck_item WHERE k = s.a + s.b) FROM (VALUES (1, 2), (NULL, 3), (100, -1), (2999, 1), (3000, 1)) s(a, b) ORDER BY 1;
SELECT i.k, (SELECT count(*) FROM ck_edge e WHERE e.src = i.k + 1) FROM ck_item i WHERE i.k < 15 ORDER BY 1;
SELECT g, (SELECT h.t FROM ck_item h WHERE h.k = (SELECT max(k) FROM ck_item WHERE k < g * 10)) FROM generate_series(1, 8) g ORDER BY 1;
