-- differential: postgresql (PostgreSQL 15 must print the same transcript)
-- add_column_default.sql: ADD COLUMN … NOT NULL DEFAULT fills the rows
-- already there (PostgreSQL semantics), in and out of a transaction.
\ir social.psql
ALTER TABLE people ADD COLUMN score int4 NOT NULL DEFAULT 0;
SELECT id, score FROM people ORDER BY id;
BEGIN;
ALTER TABLE companies ADD COLUMN rank int4 NOT NULL DEFAULT 1;
INSERT INTO companies (id, name) VALUES (4, 'New Co');
SELECT id, rank FROM companies ORDER BY id;
COMMIT;
INSERT INTO people (id, name) VALUES (7, 'Alan');
SELECT id, score FROM people WHERE id = 7;
ALTER TABLE people DROP COLUMN score;
SELECT * FROM people WHERE id = 7;
