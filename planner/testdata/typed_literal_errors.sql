-- Invalid typed literals (type 'text', 'text'::type) in INSERT and
-- UPDATE: the error points at the string, as PostgreSQL's does.
CREATE TABLE tl (id int PRIMARY KEY, f bool, n int4, d date);
INSERT INTO tl (id, f) VALUES (1, bool 'XXX');
INSERT INTO tl (id, n) VALUES (2, 'x12'::int4);
INSERT INTO tl (id, n) VALUES (3, pg_catalog.int4 ' 1 2');
INSERT INTO tl VALUES (4, true, 1, date '2020-13-01');
INSERT INTO tl VALUES (5, true, 1, '2020-01-01'), (6, boolean 'maybe', 2, NULL);
INSERT INTO tl (id, f) VALUES (7, bool 'yes');
SELECT * FROM tl ORDER BY id;
