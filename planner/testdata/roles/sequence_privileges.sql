-- Sequence privileges as PostgreSQL 15 enforces them: roles (owner,
-- granted, ungranted, through a group, PUBLIC) × nextval, currval,
-- setval, SELECT FROM the sequence, around grants and revokes. "-- as
-- NAME" switches to a session of that user (opened on first use).
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE carol LOGIN;
CREATE ROLE readers;
GRANT readers TO carol;
GRANT CREATE ON SCHEMA public TO alice;
-- as alice
CREATE SEQUENCE s;
CREATE SEQUENCE s2;
SELECT nextval('s');
SELECT currval('s');
SELECT setval('s', 10);
SELECT count(*) FROM s;
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname IN ('s', 's2') ORDER BY 1;
SELECT has_sequence_privilege('s', 'USAGE'), has_sequence_privilege('bob', 's', 'SELECT'), has_sequence_privilege('alice', 's', 'usage with grant option');
SELECT has_sequence_privilege('bob', 's', 'INSERT');
SELECT has_sequence_privilege('bob', 'nope', 'USAGE');
-- as bob
SELECT nextval('s');
SELECT currval('s');
SELECT setval('s', 20);
SELECT count(*) FROM s;
SELECT * FROM s2;
GRANT USAGE ON SEQUENCE s TO carol;
-- as alice
GRANT USAGE ON SEQUENCE s TO bob;
GRANT SELECT ON SEQUENCE s2 TO readers;
GRANT INSERT ON SEQUENCE s TO bob;
GRANT FLY ON SEQUENCE s TO bob;
GRANT USAGE ON SEQUENCE nope TO bob;
-- as bob
SELECT nextval('s');
SELECT currval('s');
SELECT setval('s', 30);
SELECT count(*) FROM s;
SELECT nextval('s2');
-- as carol
SELECT nextval('s');
SELECT count(*) FROM s2;
SELECT currval('s2');
SELECT nextval('s2');
SELECT setval('s2', 5);
-- as alice
GRANT UPDATE ON SEQUENCE s2 TO PUBLIC;
REVOKE USAGE ON SEQUENCE s FROM bob;
GRANT SELECT ON SEQUENCE s TO bob WITH GRANT OPTION;
-- as bob
SELECT nextval('s');
SELECT count(*) FROM s;
SELECT nextval('s2');
SELECT setval('s2', 100);
SELECT nextval('s2');
GRANT SELECT ON SEQUENCE s TO carol;
GRANT USAGE ON SEQUENCE s TO carol;
-- as carol
SELECT count(*) FROM s;
SELECT setval('s2', 200, false);
SELECT nextval('s2');
-- as alice
REVOKE SELECT ON SEQUENCE s FROM bob;
REVOKE SELECT ON SEQUENCE s FROM bob CASCADE;
REVOKE ALL ON SEQUENCE s2 FROM PUBLIC;
REVOKE USAGE ON SEQUENCE s FROM alice;
SELECT relname, relacl FROM pg_class WHERE relname IN ('s', 's2') ORDER BY 1;
SELECT has_sequence_privilege('carol', 's', 'USAGE'), has_sequence_privilege('carol', 's2', 'SELECT'), has_sequence_privilege('bob', 's', 'SELECT WITH GRANT OPTION'), has_sequence_privilege('s', 'USAGE');
SELECT nextval('s');
SELECT currval('s');
SELECT setval('s', 1);
GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO carol;
SELECT relname, relacl FROM pg_class WHERE relname IN ('s', 's2') ORDER BY 1;
-- as carol
SELECT count(*) FROM s;
SELECT nextval('s');
SELECT setval('s2', 7);
-- as bob
SELECT count(*) FROM s;
SELECT nextval('s2');
-- as alice
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM carol;
CREATE TABLE dt (id bigint DEFAULT nextval('s2'), v text);
SELECT has_sequence_privilege('bob', 'dt', 'USAGE');
GRANT INSERT ON dt TO bob;
-- as carol
SELECT nextval('s');
SELECT setval('s2', 7);
-- as bob
INSERT INTO dt (v) VALUES ('a');
INSERT INTO dt (id, v) VALUES (1, 'b');
-- as alice
GRANT USAGE ON SEQUENCE s2 TO bob;
-- as bob
INSERT INTO dt (v) VALUES ('c');
DROP SEQUENCE s;
-- as postgres
SELECT nextval('s');
SELECT setval('s2', 1);
