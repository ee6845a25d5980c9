-- INSERT without a column list fills the table's first columns, as many
-- as the source yields; the others get their defaults.
CREATE TABLE ii (a int, b int DEFAULT 7, c text DEFAULT 'x', d serial);
INSERT INTO ii VALUES (1);
INSERT INTO ii VALUES (2, 3), (4, 5);
INSERT INTO ii SELECT 10;
INSERT INTO ii SELECT g, g * 2 FROM generate_series(20, 22) g;
INSERT INTO ii VALUES (30) RETURNING *;
INSERT INTO ii SELECT 40, 41 RETURNING a, b, c;
SELECT * FROM ii ORDER BY a;
INSERT INTO ii VALUES ('x1');
INSERT INTO ii SELECT 'x2';
INSERT INTO ii VALUES (1, 2, 'z', 9, 10);
INSERT INTO ii (a, b) VALUES (1);
INSERT INTO ii (a, b) SELECT 1;
INSERT INTO ii VALUES (DEFAULT);
SELECT count(*), sum(a) FROM ii;
