CREATE TABLE people (
  id bigserial PRIMARY KEY,
  name varchar(100) NOT NULL,
  email text UNIQUE,
  age int CHECK (age >= 0),
  balance numeric(12,2) DEFAULT 0,
  score double precision,
  born date,
  created_at timestamptz NOT NULL DEFAULT now(),
  token uuid DEFAULT gen_random_uuid(),
  profile jsonb,
  photo bytea,
  active boolean DEFAULT true,
  embedding vector(3)
);
CREATE TABLE people (id int);
CREATE TABLE IF NOT EXISTS people (id int);
CREATE TABLE companies (id int GENERATED ALWAYS AS IDENTITY (START WITH 100 INCREMENT BY 10) PRIMARY KEY, name text NOT NULL, CONSTRAINT companies_name_uq UNIQUE (name));
CREATE TABLE works_at (
  src bigint NOT NULL REFERENCES people ON DELETE CASCADE,
  dst int REFERENCES companies (id),
  since date,
  CHECK (since > '2000-01-01' AND src > 0)
) WITH (graph.kind = edge, graph.max_out = 3);
CREATE TABLE knows (a bigint REFERENCES people(id), b bigint REFERENCES people(id)) WITH (graph.kind = edge, graph.source = a, graph.target = b);
CREATE TABLE notes (body text, n numeric, small smallserial, t timestamp(3), c char(2), v varchar);
CREATE TABLE public.plain2 (x int8, PRIMARY KEY (x), UNIQUE (x)) WITH (fillfactor = 70);
CREATE TABLE "Mixed Case" ("Id" int PRIMARY KEY, "select" text);
CREATE TABLE emp (id int PRIMARY KEY, boss int REFERENCES emp ON DELETE SET NULL, dept text COLLATE "C");
CREATE TABLE t_defaults (a int DEFAULT 1 + 2, b text DEFAULT 'x' || 'y', c timestamptz DEFAULT CURRENT_TIMESTAMP, d date DEFAULT current_date, e bool DEFAULT NULL);
CREATE UNLOGGED TABLE ul (x int);
