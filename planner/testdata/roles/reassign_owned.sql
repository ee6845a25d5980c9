-- REASSIGN OWNED as PostgreSQL 15 runs it: who may, what moves (tables,
-- views, standalone and serial sequences, with their ACLs), what stays
-- (other roles' objects, default privileges), and DROP ROLE afterwards.
-- "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE carol LOGIN NOINHERIT;
CREATE ROLE team;
GRANT team TO carol;
GRANT CREATE ON SCHEMA public TO alice, bob;
-- as alice
CREATE TABLE a1 (id serial PRIMARY KEY, v text);
CREATE VIEW av AS SELECT id FROM a1;
CREATE SEQUENCE aseq;
GRANT SELECT ON a1 TO bob;
GRANT USAGE ON SEQUENCE aseq TO bob WITH GRANT OPTION;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO bob;
-- as bob
CREATE TABLE b1 (id int);
REASSIGN OWNED BY alice TO bob;
-- as carol
REASSIGN OWNED BY alice TO carol;
REASSIGN OWNED BY carol TO team;
-- as postgres
REASSIGN OWNED BY nobody TO bob;
REASSIGN OWNED BY alice TO nobody;
REASSIGN OWNED BY postgres TO bob;
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname IN ('a1', 'av', 'aseq', 'a1_id_seq', 'b1') ORDER BY 1;
REASSIGN OWNED BY alice TO team;
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname IN ('a1', 'av', 'aseq', 'a1_id_seq', 'b1') ORDER BY 1;
SELECT pg_get_userbyid(defaclrole), defaclacl FROM pg_default_acl;
-- as alice
SELECT count(*) FROM a1;
DROP TABLE a1 CASCADE;
-- as carol
SELECT count(*) FROM a1;
SET ROLE team;
INSERT INTO a1 (v) VALUES ('x');
SELECT count(*) FROM av;
RESET ROLE;
-- as bob
SELECT count(*) FROM a1;
SELECT nextval('aseq');
REASSIGN OWNED BY bob, alice TO bob;
-- as postgres
REASSIGN OWNED BY team, bob TO alice;
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname IN ('a1', 'av', 'aseq', 'a1_id_seq', 'b1') ORDER BY 1;
ALTER DEFAULT PRIVILEGES FOR ROLE alice REVOKE SELECT ON TABLES FROM bob;
DROP ROLE team;
DROP ROLE carol;
