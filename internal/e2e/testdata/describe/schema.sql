-- The schema TestPsqlDescribeCommands describes on pgproxy and on
-- PostgreSQL 15: a serial primary key, UNIQUE, CHECK and NOT NULL
-- constraints, foreign keys with and without actions, a plain index, a
-- standalone sequence, table and column comments, and a few rows so the
-- relations have a size.
CREATE TABLE person (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  born int4 CHECK (born > 0),
  email varchar(100)
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
