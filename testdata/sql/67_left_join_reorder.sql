-- Left joins under inner joins (join_order_outer.go): (A LEFT JOIN B)
-- JOIN C becomes (A JOIN C) LEFT JOIN B when no inner condition reads B,
-- so a selective C drives lookups into A and then B. Rows without a
-- match in B (NULL-extended), ON conditions with residuals and
-- constants, stacked left joins whose conditions read an earlier right
-- side, two stacks, WHERE conjuncts on the right side (kept above),
-- inner conditions that read B (no hoist), subquery right sides, and
-- aggregates over the result. TestDifferentialJoinMethods runs this
-- script again with enable_hashjoin = off and enable_nestloop = off.
CREATE TABLE lr_person (id int PRIMARY KEY, name text, city int);
CREATE TABLE lr_knows (src int NOT NULL, dst int NOT NULL, w int);
CREATE INDEX lr_knows_src ON lr_knows (src);
CREATE INDEX lr_knows_dst ON lr_knows (dst);
CREATE TABLE lr_city (cid int PRIMARY KEY, cname text);
INSERT INTO lr_person SELECT g, 'p' || g, CASE WHEN g % 9 = 0 THEN NULL ELSE g % 40 END FROM generate_series(1, 3000) g;
INSERT INTO lr_knows SELECT g % 1500 + 1, (g * 7) % 3300 + 1, g % 11 FROM generate_series(1, 6000) g;
INSERT INTO lr_city SELECT g, 'c' || g FROM generate_series(1, 30) g;
SELECT e.src, e.dst, q.name, p.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src WHERE p.id = 7 ORDER BY 1, 2;
SELECT e.src, e.dst, q.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src WHERE p.name = 'p1400' ORDER BY 1, 2;
SELECT e.dst, q.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst AND q.city > 20 JOIN lr_person p ON p.id = e.src WHERE p.id BETWEEN 10 AND 12 ORDER BY 1, 2;
SELECT e.dst, q.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst AND e.w > 5 JOIN lr_person p ON p.id = e.src WHERE p.id = 3 ORDER BY 1, 2;
SELECT e.dst, q.name, c.cname FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst LEFT JOIN lr_city c ON c.cid = q.city JOIN lr_person p ON p.id = e.src WHERE p.id IN (5, 1499) ORDER BY 1, 2, 3;
SELECT e.dst, q.name, c.cname FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src LEFT JOIN lr_city c ON c.cid = p.city WHERE p.id = 18 ORDER BY 1, 2, 3;
SELECT e.dst, q.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src WHERE p.id = 1 AND q.id IS NULL ORDER BY 1;
SELECT e.dst, q.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src WHERE p.id < 4 AND (q.city IS NULL OR q.city <> e.w) ORDER BY 1, 2;
SELECT e.dst, q.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = q.id WHERE p.id = 8 ORDER BY 1, 2;
SELECT e.dst, q.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src AND p.city = q.city WHERE p.id BETWEEN 1 AND 50 ORDER BY 1, 2;
SELECT e.dst, s.name FROM lr_knows e LEFT JOIN (SELECT id, name FROM lr_person WHERE city = 3) s ON s.id = e.dst JOIN lr_person p ON p.id = e.src WHERE p.id = 3 ORDER BY 1, 2;
SELECT p.id, count(q.id), count(*) FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src WHERE p.city = 7 GROUP BY p.id ORDER BY 1;
SELECT e.src, e2.dst, q.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src JOIN lr_knows e2 ON e2.src = e.dst WHERE p.id = 21 ORDER BY 1, 2, 3;
SELECT e.src, q.name, q2.name FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src JOIN lr_knows e2 ON e2.src = p.id LEFT JOIN lr_person q2 ON q2.id = e2.dst WHERE p.id = 30 ORDER BY 1, 2, 3;
SELECT count(*) FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src WHERE p.id > 1400;
SELECT e.dst, q.name FROM lr_person p JOIN lr_knows e ON e.src = p.id LEFT JOIN lr_person q ON q.id = e.dst WHERE p.id = 1000 ORDER BY 1, 2;
SELECT e.dst FROM lr_knows e LEFT JOIN lr_person q ON q.id = e.dst JOIN lr_person p ON p.id = e.src WHERE p.id = 2 AND e.w + coalesce(q.city, 0) > 3 ORDER BY 1;
