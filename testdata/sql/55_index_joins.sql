-- Join shapes an index nested-loop (lookup) join answers: the indexed
-- side has at least 1024 rows, so lookups are chosen by default for a
-- small other side; TestDifferentialJoinMethods runs this script again
-- with enable_hashjoin = off and with enable_nestloop = off (on both
-- servers) so both methods are compared with PostgreSQL.
CREATE TABLE ij_node (id int PRIMARY KEY, name text UNIQUE, grp int, score numeric(6,2));
CREATE TABLE ij_edge (src int NOT NULL, dst int NOT NULL, w int, tag text);
CREATE INDEX ij_edge_src ON ij_edge (src);
CREATE INDEX ij_edge_dst ON ij_edge (dst);
CREATE TABLE ij_small (k int, label text, big bigint, t text);
CREATE TABLE ij_multi (a int, b text, v int, PRIMARY KEY (a, b));
INSERT INTO ij_node SELECT g, 'n' || g, g % 7, (g % 100) / 4.0 FROM generate_series(1, 2000) g;
INSERT INTO ij_edge SELECT (g * 7) % 1500 + 1, (g * 13) % 2000 + 1, g % 11, CASE WHEN g % 5 = 0 THEN NULL ELSE 't' || (g % 3) END FROM generate_series(1, 4000) g;
INSERT INTO ij_edge VALUES (1, 1, NULL, 'self'), (1, 2, 5, 'dup'), (1, 2, 5, 'dup');
INSERT INTO ij_small VALUES (1, 'one', 1, 'n1'), (2, 'two', 2, 'n2'), (2, 'two again', 2, 'n2'), (NULL, 'null', NULL, NULL), (5000, 'missing', 5000, 'nope'), (7, 'seven', 7, 'n7'), (1600, 'no edges', 1600, 'n1600');
INSERT INTO ij_multi SELECT g % 1200, 'b' || (g / 1200), g FROM generate_series(1, 3000) g;
-- inner joins on a primary key, a UNIQUE column and a plain index
SELECT s.k, s.label, n.name, n.grp FROM ij_small s JOIN ij_node n ON n.id = s.k ORDER BY s.k, s.label;
SELECT s.label, n.id FROM ij_small s JOIN ij_node n ON n.name = s.t ORDER BY s.label;
SELECT s.k, e.dst, e.w, e.tag FROM ij_small s JOIN ij_edge e ON e.src = s.k ORDER BY s.k, e.dst, e.w, e.tag, s.label;
SELECT s.k, e.src FROM ij_edge e JOIN ij_small s ON s.k = e.dst ORDER BY 1, 2;
-- the small side written second, and a comma join with the key in WHERE
SELECT e.src, e.dst FROM ij_edge e, ij_small s WHERE e.src = s.k AND s.label LIKE 't%' ORDER BY 1, 2;
SELECT n.id, s.label FROM ij_node n, ij_small s WHERE s.k = n.id ORDER BY 1, 2;
-- residual predicates, filters on the indexed side, keys of other types
SELECT s.k, e.dst FROM ij_small s JOIN ij_edge e ON e.src = s.k AND e.w > s.k ORDER BY 1, 2;
SELECT s.k, e.dst FROM ij_small s JOIN ij_edge e ON e.src = s.k WHERE e.tag = 't1' ORDER BY 1, 2;
SELECT s.k, e.dst FROM ij_small s JOIN ij_edge e ON e.src = s.k WHERE e.w IS NULL OR e.dst < 10 ORDER BY 1, 2;
SELECT s.big, n.name FROM ij_small s JOIN ij_node n ON n.id = s.big ORDER BY 1;
SELECT s.k, m.b, m.v FROM ij_small s JOIN ij_multi m ON m.a = s.k ORDER BY 1, 2, 3;
SELECT s.k, m.v FROM ij_small s JOIN ij_multi m ON m.a = s.k AND m.b = 'b1' ORDER BY 1, 2;
-- left joins: unmatched and NULL keys keep their row
SELECT s.k, s.label, n.name FROM ij_small s LEFT JOIN ij_node n ON n.id = s.k ORDER BY s.label;
SELECT s.label, e.dst, e.w FROM ij_small s LEFT JOIN ij_edge e ON e.src = s.k AND e.w > 6 ORDER BY 1, 2, 3;
SELECT s.label, count(e.dst) FROM ij_small s LEFT JOIN ij_edge e ON e.src = s.k GROUP BY s.label ORDER BY 1;
SELECT s.label FROM ij_small s LEFT JOIN ij_edge e ON e.src = s.k WHERE e.src IS NULL ORDER BY 1;
-- semi and anti joins (EXISTS, IN, NOT EXISTS)
SELECT s.label FROM ij_small s WHERE EXISTS (SELECT 1 FROM ij_edge e WHERE e.src = s.k) ORDER BY 1;
SELECT s.label FROM ij_small s WHERE NOT EXISTS (SELECT 1 FROM ij_edge e WHERE e.src = s.k) ORDER BY 1;
SELECT s.label FROM ij_small s WHERE EXISTS (SELECT 1 FROM ij_edge e WHERE e.src = s.k AND e.tag = 'dup') ORDER BY 1;
SELECT s.label FROM ij_small s WHERE NOT EXISTS (SELECT 1 FROM ij_node n WHERE n.id = s.k AND n.grp = 1) ORDER BY 1;
SELECT s.label FROM ij_small s WHERE s.k IN (SELECT e.dst FROM ij_edge e) ORDER BY 1;
-- traversals: two and three hops from one node, with the node table
SELECT e2.dst, count(*) FROM ij_edge e1 JOIN ij_edge e2 ON e2.src = e1.dst WHERE e1.src = 7 GROUP BY e2.dst ORDER BY 1;
SELECT count(*), count(DISTINCT e3.dst), sum(e3.w) FROM ij_edge e1 JOIN ij_edge e2 ON e2.src = e1.dst JOIN ij_edge e3 ON e3.src = e2.dst WHERE e1.src = 7;
SELECT n.name, count(*) FROM ij_edge e1 JOIN ij_edge e2 ON e2.src = e1.dst JOIN ij_node n ON n.id = e2.dst WHERE e1.src IN (1, 2, 3) GROUP BY n.name ORDER BY 2 DESC, 1 LIMIT 5;
SELECT e1.src, e2.dst FROM ij_edge e1, ij_edge e2 WHERE e1.dst = e2.src AND e1.src = 1 ORDER BY 1, 2;
SELECT DISTINCT e2.dst FROM ij_edge e1 JOIN ij_edge e2 ON e1.dst = e2.src WHERE e1.src = 1 AND e2.dst <> e1.src ORDER BY 1 LIMIT 10;
SELECT a.id, b.dst FROM ij_node a JOIN ij_edge b ON b.src = a.id WHERE a.id BETWEEN 10 AND 12 ORDER BY 1, 2;
SELECT e.dst, e.w FROM ij_edge e JOIN ij_node n ON n.id = e.src WHERE n.name = 'n8' ORDER BY 2 DESC NULLS LAST, 1 LIMIT 3;
-- a correlated subquery and a LATERAL subquery over the indexed table
SELECT s.label, (SELECT count(*) FROM ij_edge e WHERE e.src = s.k) FROM ij_small s ORDER BY 1;
SELECT s.label, x.dst FROM ij_small s, LATERAL (SELECT e.dst FROM ij_edge e WHERE e.src = s.k ORDER BY e.dst DESC LIMIT 2) x ORDER BY 1, 2;
SELECT s.label, x.cnt FROM ij_small s LEFT JOIN LATERAL (SELECT count(*) AS cnt FROM ij_edge e JOIN ij_node n ON n.id = e.dst WHERE e.src = s.k AND n.grp = 3) x ON true ORDER BY 1;
-- a join over a big left side stays correct (hash, or lookups forced)
SELECT count(*), sum(n.grp) FROM ij_edge e JOIN ij_node n ON n.id = e.dst;
SELECT count(*) FROM ij_node n WHERE NOT EXISTS (SELECT 1 FROM ij_edge e WHERE e.src = n.id);
SELECT count(*) FROM ij_edge e LEFT JOIN ij_node n ON n.id = e.dst + 1990;
-- WITH RECURSIVE: each iteration's frontier looks up its edges
WITH RECURSIVE r(node, depth) AS (SELECT 7, 0 UNION ALL SELECT e.dst, r.depth + 1 FROM r JOIN ij_edge e ON e.src = r.node WHERE r.depth < 3) SELECT depth, count(*), count(DISTINCT node) FROM r GROUP BY depth ORDER BY 1;
WITH RECURSIVE r(node, path) AS (SELECT 1, ARRAY[1] UNION ALL SELECT e.dst, r.path || e.dst FROM r JOIN ij_edge e ON e.src = r.node WHERE cardinality(r.path) < 4 AND NOT e.dst = ANY(r.path)) SELECT count(*), max(cardinality(path)) FROM r;
WITH RECURSIVE r(node, depth) AS (SELECT 1, 0 UNION ALL SELECT e.dst, r.depth + 1 FROM r JOIN ij_edge e ON e.src = r.node WHERE r.depth < 4) CYCLE node SET is_cycle USING path SELECT count(*), count(*) FILTER (WHERE is_cycle) FROM r;
WITH RECURSIVE r(node, depth) AS (SELECT 2, 0 UNION ALL SELECT e.dst, r.depth + 1 FROM r JOIN ij_edge e ON e.src = r.node WHERE r.depth < 2) SEARCH BREADTH FIRST BY node SET ord SELECT node, depth FROM r ORDER BY ord LIMIT 20;
WITH RECURSIVE r(node, depth) AS (SELECT 2, 0 UNION ALL SELECT e.dst, r.depth + 1 FROM r JOIN ij_edge e ON e.src = r.node WHERE r.depth < 2) SEARCH DEPTH FIRST BY node SET ord SELECT node, depth FROM r ORDER BY ord LIMIT 20;
WITH RECURSIVE r(node) AS (SELECT 1 UNION SELECT e.dst FROM r JOIN ij_edge e ON e.src = r.node WHERE e.w > 8) SELECT count(*) FROM r;
WITH RECURSIVE r(node, depth) AS (SELECT s.k, 0 FROM ij_small s WHERE s.k < 100 UNION ALL SELECT n.id, r.depth + 1 FROM r JOIN ij_node n ON n.id = r.node + 1 WHERE r.depth < 5) SELECT node, depth FROM r ORDER BY 1, 2;
