-- The schema TestPsqlDescribeCommands describes on pgproxy and on
-- PostgreSQL 15: a serial primary key, UNIQUE, CHECK and NOT NULL
-- constraints, foreign keys with and without actions, a plain index, a
-- standalone sequence, table and column comments, and a few rows so the
-- relations have a size; an enum type a column uses, with a default.
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok';
CREATE TABLE person (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  born int4 CHECK (born > 0),
  email varchar(100),
  mood mood DEFAULT 'ok'
);
CREATE TABLE knows (
  src int8 NOT NULL REFERENCES person (id) ON DELETE CASCADE,
  dst int8 NOT NULL REFERENCES person (id),
  since int4
);
CREATE INDEX knows_since_idx ON knows (since);
CREATE SEQUENCE ticket_seq START 10;
COMMENT ON TABLE person IS 'people we know';
COMMENT ON COLUMN person.born IS 'year of birth';
INSERT INTO person (name, born) VALUES ('Ada', 1815), ('Charles', 1791), ('Mary', 1780);
INSERT INTO knows VALUES (1, 2, 1833), (2, 3, 1834), (3, 1, 1834);
SELECT nextval('ticket_seq');
-- Domains: NOT NULL, a default, named and unnamed CHECK constraints, a
-- comment; a table whose columns use them (\dD, \dT, \d).
CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);
CREATE DOMAIN grade AS numeric(4,1) NOT NULL DEFAULT 1.0 CONSTRAINT grade_range CHECK (VALUE BETWEEN 0 AND 10);
CREATE DOMAIN label AS varchar(20);
COMMENT ON DOMAIN grade IS 'a school grade';
CREATE TABLE exam (id posint PRIMARY KEY, g grade, l label DEFAULT 'x');
INSERT INTO exam VALUES (1, 5.5, 'ok');
-- CHECK constraints print as PostgreSQL's analyzer stores them: implicit
-- coercions shown, BETWEEN expanded, IN as = ANY (ARRAY[…]), LIKE as ~~.
CREATE TABLE scores (
  score numeric CHECK (score >= 0),
  i int4 CHECK (i BETWEEN 1 AND 10) CHECK (i > -1),
  b int8 CHECK (b > 3000000000),
  f float8 CHECK (f > i AND f < 1.5),
  v varchar(10) CHECK (v IN ('a', 'b')) CHECK (length(v) < 5),
  t text CHECK (t LIKE 'a%' OR t IS NULL) CHECK (t NOT IN ('x', 'y')),
  c char(3) CHECK (c <> 'abc'),
  d date CHECK (d > '2020-01-01'),
  ok bool CHECK (ok) CHECK (NOT (score < 0 AND ok)),
  CHECK ((i > 0 OR score > 0) AND b + i > 2)
);
