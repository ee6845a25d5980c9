-- Hash-join build sides in key order (exec/join_csr.go): dense and sparse
-- key ranges, NULL keys, duplicate keys (their rows keep input order),
-- build sides already in key order and not, right and full joins (whose
-- build side is not reordered), and GROUP BY a primary key with the
-- table's other columns functionally dependent (only the key is hashed).
-- TestDifferentialJoinMethods runs it again with hash or nested-loop
-- joins disabled.
CREATE TABLE jb_node (id bigint PRIMARY KEY, name text, age int, score float8);
CREATE TABLE jb_edge (src bigint, dst bigint, w int);
CREATE TABLE jb_sparse (k bigint, v text);
INSERT INTO jb_node SELECT g, 'n' || (g % 37), g % 90, (g % 11) * 0.5 FROM generate_series(1, 400) g;
INSERT INTO jb_node VALUES (1000, NULL, NULL, NULL), (-3, 'neg', 1, 0);
-- descending and scattered edge keys: the build side is not in key order
INSERT INTO jb_edge SELECT (g * 7919) % 401, (g * 104729) % 397 + 1, g % 17 FROM generate_series(1, 2000) g;
INSERT INTO jb_edge SELECT 500 - g, g, -g FROM generate_series(1, 60) g;
INSERT INTO jb_edge VALUES (NULL, 5, 1), (5, NULL, 2), (NULL, NULL, 3), (1000, 1000, 0), (-3, -3, 9), (5, 5, 5), (5, 5, 5);
-- keys far apart: a map of slots instead of a direct table
INSERT INTO jb_sparse SELECT g * 1000003, 's' || g FROM generate_series(-20, 20) g;
INSERT INTO jb_sparse VALUES (NULL, 'null'), (5000015, 'dup'), (9223372036854775807, 'max'), (-9223372036854775808, 'min');
-- inner joins, both directions, with fan-out on either side
SELECT count(*), sum(e.w), count(DISTINCT n.name) FROM jb_edge e JOIN jb_node n ON n.id = e.src;
SELECT count(*), sum(e.w) FROM jb_node n JOIN jb_edge e ON e.dst = n.id;
SELECT n.id, e.src, e.w FROM jb_node n JOIN jb_edge e ON e.dst = n.id WHERE n.id IN (5, 7, 1000, -3) ORDER BY 1, 2, 3;
SELECT count(*) FROM jb_edge a JOIN jb_edge b ON b.src = a.dst;
SELECT count(*) FROM jb_edge a JOIN jb_edge b ON b.src = a.dst JOIN jb_edge c ON c.src = b.dst AND c.dst = a.src;
SELECT a.src, a.dst, b.dst FROM jb_edge a JOIN jb_edge b ON b.src = a.dst WHERE a.src = 5 ORDER BY 1, 2, 3;
-- left, semi and anti joins keep every left row once
SELECT count(*), count(e.src), count(DISTINCT n.id) FROM jb_node n LEFT JOIN jb_edge e ON e.dst = n.id;
SELECT n.id, count(e.src) FROM jb_node n LEFT JOIN jb_edge e ON e.dst = n.id AND e.w > 10 GROUP BY n.id ORDER BY 2 DESC, 1 LIMIT 12;
SELECT count(*) FROM jb_node n WHERE EXISTS (SELECT 1 FROM jb_edge e WHERE e.src = n.id);
SELECT n.id FROM jb_node n WHERE NOT EXISTS (SELECT 1 FROM jb_edge e WHERE e.src = n.id) ORDER BY 1;
-- right and full joins: unmatched build rows, NULL keys included
SELECT count(*), count(n.id), count(e.src), count(e.dst) FROM jb_node n RIGHT JOIN jb_edge e ON e.src = n.id;
SELECT count(*), count(n.id), count(e.src) FROM jb_node n FULL JOIN jb_edge e ON e.src = n.id;
SELECT n.id, e.src, e.w FROM (SELECT * FROM jb_node WHERE id < 8 OR id = 1000) n FULL JOIN (SELECT * FROM jb_edge WHERE dst < 4 OR dst IS NULL) e ON e.dst = n.id ORDER BY 1, 2, 3;
-- sparse keys
SELECT s.v, t.v FROM jb_sparse s JOIN jb_sparse t ON t.k = s.k ORDER BY 1, 2;
SELECT s.v, e.w FROM jb_sparse s JOIN jb_edge e ON e.src * 1000003 = s.k ORDER BY 1, 2 LIMIT 20;
SELECT s.v, t.v FROM jb_sparse s LEFT JOIN jb_sparse t ON t.k = s.k + 1000003 ORDER BY 1, 2;
SELECT s.v, t.v FROM jb_sparse s FULL JOIN (SELECT * FROM jb_sparse WHERE k > 0) t ON t.k = s.k - 1000003 ORDER BY 1, 2;
-- GROUP BY a primary key: dependent columns selected, grouped with other keys
SELECT n.id, n.name, n.age, count(e.src) FROM jb_node n LEFT JOIN jb_edge e ON e.dst = n.id GROUP BY n.id ORDER BY 4 DESC, 1 LIMIT 10;
SELECT n.id, n.name, x.c, sum(e.w) FROM jb_node n CROSS JOIN (SELECT 2.5::float8 AS c) x LEFT JOIN jb_edge e ON e.src = n.id GROUP BY n.id, x.c ORDER BY 4 DESC NULLS LAST, 1 LIMIT 10;
SELECT n.name, n.score, count(*) FROM jb_node n JOIN jb_edge e ON e.src = n.id GROUP BY n.id, n.name ORDER BY 3 DESC, 1, 2 LIMIT 10;
SELECT e.w, n.id, n.age, count(*) FROM jb_edge e LEFT JOIN jb_node n ON n.id = e.dst GROUP BY e.w, n.id ORDER BY 4 DESC, 1, 2 NULLS FIRST LIMIT 10;
SELECT count(*), sum(a) FROM (SELECT n.id, n.age + count(*) AS a FROM jb_node n JOIN jb_edge e ON e.src = n.id GROUP BY n.id HAVING count(*) > 4) t;
-- several plain group keys (hashed a column at a time, agg_hashkeys.go):
-- -0 and 0, NaN, NULLs, booleans and text in one key
CREATE TABLE jb_keys (f float8, t text, b bool, i int);
INSERT INTO jb_keys VALUES (0, 'a', true, 1), ('-0', 'a', true, 1), ('NaN', 'a', true, 1), ('NaN', 'a', true, 1), (NULL, 'a', true, 1), (NULL, NULL, NULL, NULL),
  (NULL, NULL, NULL, NULL), (1.5, '', false, 2), (1.5, '', false, 2), (1.5, NULL, false, 2), ('Infinity', 'b', NULL, -1), ('-Infinity', 'b', NULL, -1);
INSERT INTO jb_keys SELECT (g % 7) * 0.25, 'k' || (g % 5), g % 3 = 0, g % 4 FROM generate_series(1, 3000) g;
SELECT f, t, b, i, count(*) FROM jb_keys GROUP BY f, t, b, i ORDER BY 1, 2, 3, 4;
SELECT t, count(*), sum(i) FROM jb_keys GROUP BY t ORDER BY 1;
SELECT f, b, count(*) FROM jb_keys GROUP BY b, f ORDER BY 1, 2;
SELECT count(*) FROM (SELECT DISTINCT f, t FROM jb_keys) d;
SELECT n.name, x.f, count(*) FROM jb_node n JOIN jb_keys x ON x.i = n.id % 4 GROUP BY n.name, x.f ORDER BY 3 DESC, 1, 2 LIMIT 10;
