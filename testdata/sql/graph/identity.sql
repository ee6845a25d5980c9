-- identity.sql: GENERATED ALWAYS AS IDENTITY refuses an explicit value
-- unless OVERRIDING SYSTEM VALUE says so.
CREATE TABLE tags (id int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text NOT NULL);
INSERT INTO tags (id, label) VALUES (10, 'explicit');
INSERT INTO tags (id, label) OVERRIDING SYSTEM VALUE VALUES (10, 'explicit');
INSERT INTO tags (label) VALUES ('next') RETURNING id;
SELECT * FROM tags ORDER BY id;
