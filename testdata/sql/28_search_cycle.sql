-- WITH RECURSIVE ... CYCLE and SEARCH DEPTH/BREADTH FIRST (graph traversals)
CREATE TABLE ge (src int, dst int);
INSERT INTO ge VALUES (1,2),(2,3),(3,1),(3,4),(4,5),(1,5),(10,10);
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT ge.dst FROM t JOIN ge ON ge.src = t.id) CYCLE id SET is_cycle USING path SELECT * FROM t ORDER BY path;
WITH RECURSIVE t(id, depth) AS (SELECT 1, 0 UNION ALL SELECT e.dst, t.depth + 1 FROM t, ge e WHERE e.src = t.id) CYCLE id SET looped TO 'Y' DEFAULT 'N' USING trail SELECT id, depth, looped, trail FROM t ORDER BY depth, id, trail;
WITH RECURSIVE t AS (SELECT src AS a, dst AS b FROM ge WHERE src = 10 UNION ALL SELECT ge.src, ge.dst FROM ge JOIN t ON ge.src = t.b) CYCLE a, b SET c USING p SELECT * FROM t;
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT ge.dst FROM t JOIN ge ON ge.src = t.id) CYCLE id SET is_cycle USING path SELECT id, count(*) FROM t WHERE NOT is_cycle GROUP BY id ORDER BY id;
WITH RECURSIVE t(id) AS (SELECT 1 UNION SELECT ge.dst FROM t JOIN ge ON ge.src = t.id) CYCLE id SET is_cycle USING path SELECT count(*) FROM t;
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT ge.dst FROM t JOIN ge ON ge.src = t.id) CYCLE nope SET is_cycle USING path SELECT * FROM t;
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT ge.dst FROM t JOIN ge ON ge.src = t.id WHERE ge.dst > ge.src) SEARCH DEPTH FIRST BY id SET ord SELECT id, ord FROM t ORDER BY ord;
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT ge.dst FROM t JOIN ge ON ge.src = t.id WHERE ge.dst > ge.src) SEARCH BREADTH FIRST BY id SET ord SELECT id FROM t ORDER BY ord;
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT ge.dst FROM t JOIN ge ON ge.src = t.id) SEARCH DEPTH FIRST BY id SET ord CYCLE id SET cyc USING path SELECT id, ord, cyc FROM t ORDER BY ord;
INSERT INTO ge VALUES (2, 9), (9, 10), (2, 11);
WITH RECURSIVE t(id, lvl) AS (SELECT 1, 0 UNION ALL SELECT ge.dst, lvl + 1 FROM t JOIN ge ON ge.src = t.id WHERE ge.dst > ge.src) SEARCH DEPTH FIRST BY id SET ord SELECT id, lvl, ord FROM t ORDER BY ord;
WITH RECURSIVE t(id, lvl) AS (SELECT 1, 0 UNION ALL SELECT ge.dst, lvl + 1 FROM t JOIN ge ON ge.src = t.id WHERE ge.dst > ge.src) SEARCH BREADTH FIRST BY id SET ord SELECT id, lvl FROM t ORDER BY ord;
WITH RECURSIVE t(id) AS (SELECT 1 UNION ALL SELECT ge.dst FROM t JOIN ge ON ge.src = t.id) CYCLE id SET is_cycle USING path SELECT * FROM t;
WITH t(id) AS (SELECT 1) CYCLE id SET c USING p SELECT * FROM t;
-- unsupported
WITH RECURSIVE t AS (SELECT 1 AS id UNION ALL SELECT t.* FROM t WHERE false) CYCLE id SET c USING p SELECT * FROM t;
