-- Views owned by another role: the base tables are checked as the view's
-- owner with the column grants it holds, nested views each as their own
-- owner, ownership changes and grants given and taken back underneath,
-- in PostgreSQL 15. (security_invoker views and writing through
-- a view answer 0A000 in pgproxy.) "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE vo_owner LOGIN;
CREATE ROLE vo_reader LOGIN;
CREATE ROLE vo_other LOGIN;
CREATE TABLE vo_base (id int PRIMARY KEY, secret text, pub text);
INSERT INTO vo_base VALUES (1, 's1', 'p1'), (2, 's2', 'p2');
GRANT SELECT (id, pub) ON vo_base TO vo_owner;
GRANT CREATE ON SCHEMA public TO vo_owner;
-- as vo_owner
CREATE VIEW vo_pub AS SELECT id, pub FROM vo_base;
CREATE VIEW vo_all AS SELECT * FROM vo_base;
SELECT * FROM vo_pub ORDER BY id;
GRANT SELECT ON vo_pub TO vo_reader;
-- as vo_reader
SELECT * FROM vo_pub ORDER BY id;
SELECT * FROM vo_base;
-- as postgres
GRANT SELECT (id, pub) ON vo_base TO vo_reader;
-- as vo_reader
SELECT secret FROM vo_base;
SELECT id, pub FROM vo_base ORDER BY id;
SELECT v.id, b.pub FROM vo_pub v JOIN vo_base b USING (id) ORDER BY 1;
SELECT a.id, b.pub FROM vo_base a JOIN vo_base b USING (id) ORDER BY 1;
SELECT id FROM vo_base a NATURAL JOIN vo_base b ORDER BY 1;
SELECT * FROM vo_base a JOIN vo_base b USING (id);
SELECT id FROM vo_pub v JOIN vo_base b USING (id) ORDER BY 1;
-- as postgres
REVOKE SELECT (id, pub) ON vo_base FROM vo_reader;
-- as vo_reader
SELECT v.id, b.pub FROM vo_pub v JOIN vo_base b USING (id) ORDER BY 1;
SELECT * FROM vo_all;
SELECT count(*) FROM vo_pub WHERE id IN (SELECT id FROM vo_pub);
WITH w AS (SELECT * FROM vo_pub) SELECT count(*) FROM w;
SELECT (SELECT max(pub) FROM vo_pub);
-- as vo_owner
SELECT * FROM vo_all;
SELECT id FROM vo_all ORDER BY id;
-- column grants on the view itself
GRANT SELECT (id) ON vo_all TO vo_other;
-- as vo_other
SELECT id FROM vo_all ORDER BY id;
SELECT * FROM vo_all;
-- as postgres
GRANT SELECT (secret) ON vo_base TO vo_owner;
-- as vo_other
SELECT id FROM vo_all ORDER BY id;
SELECT secret FROM vo_all;
-- as vo_owner
SELECT * FROM vo_all ORDER BY id;
GRANT SELECT ON vo_all TO PUBLIC;
-- as vo_reader
SELECT * FROM vo_all ORDER BY id;
-- as vo_owner
REVOKE SELECT ON vo_all FROM PUBLIC;
REVOKE SELECT (id) ON vo_all FROM vo_other;
-- as vo_reader
SELECT * FROM vo_all ORDER BY id;
-- a view over another role's view needs SELECT on that view
-- as postgres
GRANT CREATE ON SCHEMA public TO vo_other;
-- as vo_other
CREATE VIEW vo_over AS SELECT id FROM vo_pub;
-- as vo_owner
GRANT SELECT ON vo_pub TO vo_other;
-- as vo_other
CREATE VIEW vo_over AS SELECT id FROM vo_pub;
GRANT SELECT ON vo_over TO vo_reader;
-- as vo_reader
SELECT * FROM vo_over ORDER BY id;
-- as vo_owner
REVOKE SELECT ON vo_pub FROM vo_other;
-- as vo_reader
SELECT * FROM vo_over ORDER BY id;
-- as vo_other
SELECT * FROM vo_over ORDER BY id;
DROP VIEW vo_pub;
DROP TABLE vo_base;
ALTER VIEW vo_pub RENAME TO vo_pub2;
DROP VIEW vo_over;
-- nested views: each level as its owner
-- as vo_owner
CREATE VIEW vo_nest AS SELECT id FROM vo_pub;
GRANT SELECT ON vo_nest TO vo_other;
-- as vo_other
SELECT * FROM vo_nest ORDER BY id;
SELECT * FROM vo_pub;
-- as postgres
REVOKE SELECT (pub) ON vo_base FROM vo_owner;
-- as vo_other
SELECT * FROM vo_nest ORDER BY id;
-- as vo_reader
SELECT * FROM vo_pub;
SELECT id FROM vo_pub;
-- as postgres
GRANT SELECT (pub) ON vo_base TO vo_owner;
ALTER VIEW vo_nest OWNER TO vo_reader;
-- as vo_other
SELECT * FROM vo_nest ORDER BY id;
-- as postgres
ALTER VIEW vo_nest OWNER TO vo_owner;
-- as postgres
SELECT c.relname, c.reloptions, pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.relname LIKE 'vo\_%' AND c.relkind = 'v' ORDER BY 1;
SELECT table_name, grantee, privilege_type FROM information_schema.role_table_grants WHERE table_name LIKE 'vo\_%' ORDER BY 1, 2, 3;
-- as postgres
DROP VIEW vo_nest;
DROP VIEW vo_pub, vo_all;
DROP TABLE vo_base;
REVOKE CREATE ON SCHEMA public FROM vo_owner;
REVOKE CREATE ON SCHEMA public FROM vo_other;
REVOKE CREATE ON SCHEMA public FROM vo_other;
