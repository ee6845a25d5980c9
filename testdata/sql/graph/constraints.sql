-- differential: postgresql (PostgreSQL 15 must print the same transcript)
-- constraints.sql: INSERT, UPDATE, DELETE and MERGE on the social graph,
-- every constraint class violated once (the statement fails with its
-- SQLSTATE and changes nothing), then the same statements done right.
\ir social.psql
-- 23505: primary key
INSERT INTO people (id, name, email, age) VALUES (1, 'Ada Again', 'ada2@example.com', 20);
-- 23505: UNIQUE column, and a duplicate within one statement
INSERT INTO people VALUES (7, 'Impostor', 'grace@example.com', 30);
INSERT INTO people VALUES (7, 'Alan', 'alan@example.com', 41), (8, 'Alonzo', 'alan@example.com', 33);
-- 23502: NOT NULL
INSERT INTO people (id, email) VALUES (9, 'nobody@example.com');
UPDATE companies SET name = NULL WHERE id = 3;
-- 23514: CHECK
UPDATE people SET age = -1 WHERE id = 2;
-- 23503: an edge to a node that does not exist
INSERT INTO knows (src, dst, since) VALUES (1, 999, 2020);
UPDATE works_at SET dst = 42 WHERE src = 1;
-- 23503: ON DELETE RESTRICT (people still work at the company)
DELETE FROM companies WHERE id = 3;
-- nothing above changed anything
SELECT (SELECT count(*) FROM people) AS people, (SELECT count(*) FROM knows) AS knows,
       (SELECT count(*) FROM works_at) AS works_at, (SELECT count(*) FROM companies) AS companies,
       (SELECT sum(age) FROM people) AS age_sum;
-- the same writes done right
INSERT INTO people VALUES (7, 'Alan', 'alan@example.com', 41), (8, 'Alonzo', 'alonzo@example.com', 33)
RETURNING id, name;
INSERT INTO people (id, name) VALUES (1, 'Ada Again') ON CONFLICT (id) DO NOTHING;
INSERT INTO people (id, name, age) VALUES (5, 'Ken', 62)
ON CONFLICT (id) DO UPDATE SET age = EXCLUDED.age RETURNING id, name, age;
INSERT INTO knows (src, dst, since) VALUES (7, 8, 1936), (8, 7, 1936);
INSERT INTO works_at (src, dst) VALUES (7, 1) RETURNING src, dst, role;
UPDATE people SET age = age + 1 WHERE age > 60;
UPDATE people SET age = age - 1 WHERE id = 6 RETURNING id, name, age;
UPDATE works_at w SET role = 'lead ' || w.role
FROM companies c
WHERE c.id = w.dst AND c.name = 'Kernel Co';
SELECT src, role FROM works_at WHERE role LIKE 'lead %' ORDER BY src;
DELETE FROM knows k USING people p
WHERE p.id = k.src AND p.name = 'Edsger'
RETURNING k.src, k.dst;
-- ON DELETE CASCADE: removing Linus removes his edges in the same commit
SELECT count(*) AS linus_edges FROM knows WHERE 3 IN (src, dst);
SELECT count(*) AS linus_jobs FROM works_at WHERE src = 3;
DELETE FROM people WHERE id = 3;
SELECT count(*) AS linus_edges FROM knows WHERE 3 IN (src, dst);
SELECT count(*) AS linus_jobs FROM works_at WHERE src = 3;
-- RESTRICT is satisfied once nobody works there
DELETE FROM works_at WHERE dst = 3;
DELETE FROM companies WHERE id = 3 RETURNING name;
-- MERGE: update the known, insert the new
MERGE INTO people p
USING (VALUES (2::int8, 'Grace', 46), (10::int8, 'Margaret', 33)) AS v(id, name, age)
ON p.id = v.id
WHEN MATCHED THEN UPDATE SET age = v.age
WHEN NOT MATCHED THEN INSERT (id, name, age) VALUES (v.id, v.name, v.age);
-- MERGE that would break a CHECK changes nothing
MERGE INTO people p
USING (VALUES (10::int8, -5)) AS v(id, age)
ON p.id = v.id
WHEN MATCHED THEN UPDATE SET age = v.age;
MERGE INTO knows k
USING (SELECT 10::int8 AS src, id AS dst FROM people WHERE name IN ('Ada', 'Grace')) AS v
ON k.src = v.src AND k.dst = v.dst
WHEN NOT MATCHED THEN INSERT (src, dst, since) VALUES (v.src, v.dst, 2026)
WHEN MATCHED THEN DO NOTHING;
MERGE INTO people p
USING (VALUES (1::int8)) AS v(id)
ON p.id = v.id
WHEN MATCHED THEN DELETE;
SELECT * FROM people ORDER BY id;
SELECT * FROM knows ORDER BY src, dst;
SELECT * FROM works_at ORDER BY src, dst;
SELECT * FROM companies ORDER BY id;
TRUNCATE works_at;
SELECT count(*) FROM works_at;
