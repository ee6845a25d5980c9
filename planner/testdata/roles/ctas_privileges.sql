-- CREATE TABLE … AS and SELECT … INTO need what CREATE TABLE needs
-- (CREATE on the schema) and SELECT on what the query reads; the new
-- table belongs to the creating role. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
GRANT CREATE ON SCHEMA public TO alice, bob;
CREATE TABLE secret (id int PRIMARY KEY, v text);
INSERT INTO secret VALUES (1, 'a'), (2, 'b');
CREATE TABLE open_t (id int);
INSERT INTO open_t VALUES (5);
GRANT SELECT ON open_t TO alice, bob;
-- as bob
CREATE TABLE b1 AS SELECT * FROM open_t;
SELECT * INTO b2 FROM open_t;
CREATE TABLE b3 AS SELECT * FROM secret;
-- as alice
CREATE TABLE a1 AS SELECT * FROM secret;
SELECT * INTO a2 FROM secret;
CREATE TABLE a3 AS SELECT id * 2 AS d FROM open_t;
SELECT * FROM a3;
SELECT relname, pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'a3';
INSERT INTO a3 VALUES (7);
SELECT * FROM a3 ORDER BY d;
-- as bob
SELECT * FROM a3;
-- as postgres
GRANT SELECT ON secret TO alice;
-- as alice
CREATE TABLE a4 (x) AS SELECT v FROM secret ORDER BY id;
SELECT * FROM a4;
DROP TABLE a3, a4;
-- as postgres
DROP TABLE secret, open_t, b1, b2, a1, a2;
