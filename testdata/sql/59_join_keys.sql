-- Hash joins on several integer keys (packed into one int64 key when the
-- build side's ranges allow, join_packkeys.go) and joins inside WITH
-- RECURSIVE steps (the build side of an invariant input is reused across
-- iterations); TestDifferentialJoinMethods runs this script again with
-- enable_hashjoin = off and with enable_nestloop = off.
CREATE TABLE jk_edge (src bigint NOT NULL, dst bigint NOT NULL, w int);
CREATE TABLE jk_pair (a int, b smallint, c bigint, label text);
INSERT INTO jk_edge SELECT g % 97 + 1, (g * 31) % 97 + 1, g % 13 FROM generate_series(1, 1500) g;
INSERT INTO jk_edge VALUES (1, 2, 0), (2, 3, 0), (3, 1, 0), (1, 2, 1);
INSERT INTO jk_pair VALUES (1, 2::smallint, 3, 'x'), (2, 3::smallint, 1, 'y'), (NULL, 1::smallint, 1, 'null a'), (1, NULL, 2, 'null b'),
  (-5, (-7)::smallint, -9, 'negative'), (1000000, 32000::smallint, 9000000000, 'far'), (3, 1::smallint, 2, 'z'), (3, 1::smallint, 2, 'z again'),
  (-2147483648, (-32768)::smallint, (-9223372036854775807 - 1), 'min'), (2147483647, 32767::smallint, 9223372036854775807, 'max');
CREATE TABLE jk_grid (x int, y int, label text);
CREATE TABLE jk_probe (x int, y int);
INSERT INTO jk_grid SELECT x, y, x || ',' || y FROM generate_series(1, 3) x, generate_series(1, 3) y;
INSERT INTO jk_probe VALUES (1, 4), (0, 3), (2, 0), (4, 1), (3, 0), (0, 0), (4, 4), (2, 2), (NULL, 2), (2, NULL);
INSERT INTO jk_probe SELECT 100 + g, g FROM generate_series(1, 50) g;
-- probe keys just outside the build side's ranges must not wrap onto its keys
SELECT p.x, p.y, g.label FROM jk_probe p JOIN jk_grid g ON g.x = p.x AND g.y = p.y ORDER BY 1, 2;
SELECT p.x, p.y, g.label FROM jk_probe p LEFT JOIN jk_grid g ON g.y = p.y AND g.x = p.x WHERE p.x < 10 ORDER BY 1, 2;
SELECT count(*) FROM jk_probe p WHERE EXISTS (SELECT 1 FROM jk_grid g WHERE g.x = p.x AND g.y = p.y);
-- triangles: a two-key join closing the cycle, with residuals
SELECT count(*) FROM jk_edge a JOIN jk_edge b ON b.src = a.dst JOIN jk_edge c ON c.src = b.dst AND c.dst = a.src WHERE a.src < b.src AND b.src < c.src;
SELECT a.src, b.src, c.src, count(*) FROM jk_edge a JOIN jk_edge b ON b.src = a.dst JOIN jk_edge c ON c.src = b.dst AND c.dst = a.src WHERE a.src < b.src AND b.src < c.src GROUP BY 1, 2, 3 ORDER BY 4 DESC, 1, 2, 3 LIMIT 8;
SELECT count(*) FROM jk_edge a JOIN jk_edge b ON b.src = a.dst AND b.w = a.w;
SELECT count(*) FROM jk_edge a JOIN jk_edge b ON b.src = a.dst AND b.dst = a.src AND b.w <> a.w;
-- keys of mixed integer widths, NULLs, negatives, values outside the other side's range and at the type limits
SELECT p.label, q.label FROM jk_pair p JOIN jk_pair q ON q.a = p.b AND q.c = p.a ORDER BY 1, 2;
SELECT p.label, q.label FROM jk_pair p JOIN jk_pair q ON q.a = p.a AND q.b = p.b AND q.c = p.c ORDER BY 1, 2;
SELECT p.label, q.label FROM jk_pair p JOIN jk_pair q ON q.c = p.c AND q.a = p.a AND q.label <> p.label ORDER BY 1, 2;
SELECT p.label, e.w FROM jk_pair p JOIN jk_edge e ON e.src = p.a AND e.dst = p.c ORDER BY 1, 2;
SELECT p.label, count(e.w) FROM jk_pair p LEFT JOIN jk_edge e ON e.src = p.a AND e.dst = p.b GROUP BY 1 ORDER BY 1;
SELECT p.label, e.w FROM jk_pair p LEFT JOIN jk_edge e ON e.src = p.a AND e.dst = p.b AND e.w > 3 ORDER BY 1, 2;
SELECT p.label, e.w FROM jk_pair p RIGHT JOIN jk_edge e ON e.src = p.a AND e.dst = p.c WHERE e.src < 4 ORDER BY 1, 2;
SELECT p.label, e.w FROM jk_pair p FULL JOIN (SELECT * FROM jk_edge WHERE src < 3) e ON e.src = p.a AND e.dst = p.c ORDER BY 1, 2;
SELECT p.label FROM jk_pair p WHERE EXISTS (SELECT 1 FROM jk_edge e WHERE e.src = p.a AND e.dst = p.c) ORDER BY 1;
SELECT p.label FROM jk_pair p WHERE NOT EXISTS (SELECT 1 FROM jk_edge e WHERE e.src = p.a AND e.dst = p.c) ORDER BY 1;
SELECT p.label FROM jk_pair p WHERE EXISTS (SELECT 1 FROM jk_edge e WHERE e.src = p.a AND e.dst = p.c AND e.w > p.b) ORDER BY 1;
SELECT p.label, q.label FROM jk_pair p JOIN jk_pair q ON (q.a, q.b) = (p.a, p.b) ORDER BY 1, 2;
SELECT p.label, q.label FROM jk_pair p JOIN jk_pair q ON q.a = p.a AND q.b = p.b WHERE p.a IS NULL OR q.b IS NULL ORDER BY 1, 2;
-- joins in recursive steps: the edge table is the same every iteration
WITH RECURSIVE r(node, depth) AS (SELECT 1::bigint, 0 UNION SELECT e.dst, r.depth + 1 FROM r JOIN jk_edge e ON e.src = r.node WHERE r.depth < 4) SELECT depth, count(*), sum(node) FROM r GROUP BY depth ORDER BY depth;
WITH RECURSIVE r(node, depth) AS (SELECT 5::bigint, 0 UNION ALL SELECT e.dst, r.depth + 1 FROM r JOIN jk_edge e ON e.src = r.node AND e.w = r.depth WHERE r.depth < 5) SELECT depth, count(*), count(DISTINCT node) FROM r GROUP BY depth ORDER BY depth;
WITH RECURSIVE r(a, b, depth) AS (SELECT 1::bigint, 2::bigint, 0 UNION SELECT e.src, e.dst, r.depth + 1 FROM r JOIN jk_edge e ON e.src = r.b AND e.dst <> r.a WHERE r.depth < 3) SELECT depth, count(*) FROM r GROUP BY depth ORDER BY depth;
WITH RECURSIVE r(node, path) AS (SELECT 7::bigint, ARRAY[7::bigint] UNION ALL SELECT e.dst, r.path || e.dst FROM r JOIN jk_edge e ON e.src = r.node WHERE cardinality(r.path) < 4 AND NOT e.dst = ANY (r.path)) SELECT count(*), count(DISTINCT node), max(cardinality(path)) FROM r;
WITH RECURSIVE r(node, depth) AS (SELECT 1::bigint, 0 UNION SELECT e.dst, r.depth + 1 FROM r LEFT JOIN jk_edge e ON e.src = r.node AND e.w < 2 WHERE r.depth < 3 AND r.node IS NOT NULL) SELECT depth, count(*), count(node) FROM r GROUP BY depth ORDER BY depth;
WITH RECURSIVE r(node, depth) AS (SELECT 2::bigint, 0 UNION SELECT e.dst, r.depth + 1 FROM r JOIN (SELECT src, dst FROM jk_edge WHERE w % 2 = 0) e ON e.src = r.node WHERE r.depth < 4) SELECT depth, count(*) FROM r GROUP BY depth ORDER BY depth;
WITH RECURSIVE r(node, depth) AS (SELECT 3::bigint, 0 UNION SELECT e.dst, r.depth + 1 FROM r JOIN jk_edge e ON e.src = r.node WHERE r.depth < 3 AND NOT EXISTS (SELECT 1 FROM jk_pair p WHERE p.a = e.dst)) SELECT depth, count(*) FROM r GROUP BY depth ORDER BY depth;
