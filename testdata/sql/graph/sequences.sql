-- differential: postgresql (PostgreSQL 15 must print the same transcript)
-- sequences.sql: serial ids, defaults (now()) and sequences on the social
-- graph: values are never handed out twice and are not rolled back.
\ir social.psql
CREATE TABLE projects (id int4 PRIMARY KEY, title text NOT NULL, owner int8 REFERENCES people (id));
INSERT INTO projects VALUES (1, 'cobol', 2);
CREATE TABLE posts (
  id      serial PRIMARY KEY,
  author  int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  body    text NOT NULL,
  likes   int4 NOT NULL DEFAULT 0,
  created timestamptz NOT NULL DEFAULT now()
);
INSERT INTO posts (author, body) VALUES (1, 'first post'), (2, 'second post') RETURNING id, author, body, likes;
BEGIN;
INSERT INTO posts (author, body) VALUES (4, 'rolled back') RETURNING id;
ROLLBACK;
-- sequences are not transactional: the rolled-back id is not reused
INSERT INTO posts (author, body, likes) VALUES (6, 'third post', 5) RETURNING id, likes;
SELECT id, author, body, likes, created <= now() AS created_in_past FROM posts ORDER BY id;
-- Grace owns a project (REFERENCES without an action restricts); Edsger's post cascades
DELETE FROM people WHERE id = 2;
DELETE FROM people WHERE id = 6;
SELECT id, author FROM posts ORDER BY id;
-- identity columns
CREATE TABLE tags (
  id    int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  label text NOT NULL UNIQUE,
  ref   uuid NOT NULL DEFAULT gen_random_uuid()
);
INSERT INTO tags (label) VALUES ('graph'), ('lance') RETURNING id, label, length(ref::text) AS ref_len;
INSERT INTO tags (label) VALUES ('graph');
INSERT INTO tags (label) VALUES ('wire') RETURNING id;
SELECT count(DISTINCT ref) AS distinct_refs FROM tags;
