-- differential: postgresql (PostgreSQL 15 must print the same transcript)
-- sequence_functions.sql: currval of a serial's sequence, CREATE SEQUENCE
-- with START/INCREMENT, nextval and setval.
\ir social.psql
CREATE TABLE posts (id serial PRIMARY KEY, author int8 NOT NULL REFERENCES people (id), body text NOT NULL);
INSERT INTO posts (author, body) VALUES (1, 'first post'), (2, 'second post');
SELECT currval('posts_id_seq');
CREATE SEQUENCE ticket_seq START 100 INCREMENT 10;
SELECT nextval('ticket_seq') AS a, nextval('ticket_seq') AS b;
SELECT setval('ticket_seq', 500);
SELECT nextval('ticket_seq');
