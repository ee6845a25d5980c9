-- Inner joins written in a costly order (big tables first, the
-- selective condition on the last table) are reordered by estimated cost
-- (exec/join_order_cost.go); the answers and their column order stay
-- those of the written query. TestDifferentialJoinMethods runs this
-- script again with hash or nested-loop joins disabled.
CREATE TABLE jo_person (id bigint PRIMARY KEY, name text, age int);
CREATE TABLE jo_knows (src bigint NOT NULL, dst bigint NOT NULL, w int);
CREATE TABLE jo_city (cid int PRIMARY KEY, cname text);
CREATE TABLE jo_lives (pid bigint, cid int);
CREATE INDEX jo_knows_src ON jo_knows (src);
CREATE INDEX jo_lives_pid ON jo_lives (pid);
INSERT INTO jo_person SELECT g, 'p' || g, g % 70 FROM generate_series(1, 3000) g;
INSERT INTO jo_knows SELECT s, (s * 7 + d * 131) % 3000 + 1, (s + d) % 10 FROM generate_series(1, 3000) s, generate_series(1, 4) d;
INSERT INTO jo_knows VALUES (5, 5, 0), (5, 5, 1);
INSERT INTO jo_city SELECT g, 'c' || g FROM generate_series(1, 40) g;
INSERT INTO jo_lives SELECT g, g % 40 + 1 FROM generate_series(1, 3000) g;
INSERT INTO jo_lives VALUES (NULL, 1), (7, NULL);
SELECT count(*) FROM jo_knows e1 JOIN jo_knows e2 ON e2.src = e1.dst JOIN jo_person p ON p.id = e1.src WHERE p.name = 'p7';
SELECT e1.*, e2.dst, p.* FROM jo_knows e1 JOIN jo_knows e2 ON e2.src = e1.dst JOIN jo_person p ON p.id = e1.src WHERE p.name = 'p5' ORDER BY 1, 2, 3, 4, 5;
SELECT count(*), count(DISTINCT e3.dst) FROM jo_knows e1, jo_knows e2, jo_knows e3, jo_person p WHERE e2.src = e1.dst AND e3.src = e2.dst AND p.id = e1.src AND p.name = 'p11';
SELECT p2.name, count(*) FROM jo_knows e1 JOIN jo_person p2 ON p2.id = e1.dst JOIN jo_person p ON p.id = e1.src WHERE p.name IN ('p3', 'p4') AND p2.age > 10 GROUP BY 1 ORDER BY 2 DESC, 1;
SELECT c.cname, p.name, e.dst FROM jo_knows e JOIN jo_lives l ON l.pid = e.dst JOIN jo_city c ON c.cid = l.cid JOIN jo_person p ON p.id = e.src WHERE p.name = 'p9' ORDER BY 1, 2, 3;
SELECT count(*) FROM jo_lives l JOIN jo_knows e ON e.src = l.pid JOIN jo_city c ON c.cid = l.cid WHERE c.cname = 'c3';
SELECT count(*) FROM jo_lives l JOIN jo_knows e ON e.src = l.pid JOIN jo_city c ON c.cid = l.cid AND c.cname = 'c3' JOIN jo_person p ON p.id = e.dst AND p.age < 35;
SELECT p.name, e1.w + e2.w AS w FROM jo_knows e1 JOIN jo_knows e2 ON e2.src = e1.dst AND e2.w > e1.w JOIN jo_person p ON p.id = e1.src WHERE p.name = 'p5' AND e2.dst <> p.id ORDER BY 1, 2;
SELECT count(*) FROM jo_knows e1 JOIN jo_knows e2 ON e2.src = e1.dst JOIN jo_person p ON p.id = e1.src WHERE p.name = 'nobody';
SELECT count(*) FROM jo_knows e1 JOIN jo_knows e2 ON e2.src = e1.dst JOIN jo_person p ON p.id = e1.src WHERE p.name = 'p7' AND random() >= 0;
SELECT * FROM jo_knows e1 JOIN jo_person p ON p.id = e1.src JOIN jo_lives l ON l.pid = p.id WHERE p.name = 'p12' ORDER BY e1.dst;
SELECT count(*) FROM jo_knows e1 JOIN jo_knows e2 ON e2.src = e1.dst JOIN jo_person p ON p.id = e1.src WHERE p.name = 'p7' AND EXISTS (SELECT 1 FROM jo_lives l WHERE l.pid = e2.dst);
SELECT count(*) FROM (jo_knows e1 JOIN jo_knows e2 ON e2.src = e1.dst) LEFT JOIN jo_lives l ON l.pid = e2.dst JOIN jo_person p ON p.id = e1.src WHERE p.name = 'p7';
