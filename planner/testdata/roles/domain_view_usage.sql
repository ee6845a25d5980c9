-- USAGE on a domain for the relations a query defines, as PostgreSQL
-- 15's DefineRelation checks every column's type: CREATE VIEW, CREATE
-- TABLE AS and SELECT … INTO whose output column has a domain type the
-- role holds no USAGE on are refused (reading the column is not), a
-- cast to the base type or another column is not; a GRANT lets them.
-- "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE dva LOGIN;
GRANT CREATE ON SCHEMA public TO dva;
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE TABLE dvt (id posint, s text);
INSERT INTO dvt VALUES (1, 'a');
GRANT SELECT ON dvt TO dva;
REVOKE USAGE ON DOMAIN posint FROM PUBLIC;
SELECT has_type_privilege('dva', 'posint', 'USAGE');
-- as dva
SELECT id, s FROM dvt;
CREATE VIEW dvv AS SELECT id::int AS id FROM dvt;
CREATE VIEW dvv_s AS SELECT s FROM dvt;
CREATE TABLE dvc AS SELECT id FROM dvt;
CREATE TABLE dvc_int AS SELECT id::int AS id FROM dvt;
SELECT id INTO dvc_into FROM dvt;
SELECT * FROM dvv_s;
SELECT * FROM dvc_int;
-- as postgres
GRANT USAGE ON DOMAIN posint TO dva;
-- as dva
CREATE VIEW dvv AS SELECT id::int AS id FROM dvt;
CREATE TABLE dvc AS SELECT id FROM dvt;
SELECT id INTO dvc_into FROM dvt;
SELECT * FROM dvv;
SELECT * FROM dvc;
SELECT * FROM dvc_into;
DROP VIEW dvv, dvv_s;
DROP TABLE dvc, dvc_int, dvc_into;
-- as postgres
REVOKE CREATE ON SCHEMA public FROM dva;
REVOKE ALL ON dvt FROM dva;
REVOKE USAGE ON DOMAIN posint FROM dva;
DROP TABLE dvt;
DROP DOMAIN posint;
DROP ROLE dva;
