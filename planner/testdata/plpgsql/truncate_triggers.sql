-- TRUNCATE triggers (BEFORE/AFTER … FOR EACH STATEMENT)
CREATE TABLE parents (id int PRIMARY KEY, name text);
CREATE TABLE kids (id int PRIMARY KEY, parent int REFERENCES parents (id));
CREATE TABLE truncations (tbl text, op text, at_when text, n bigint);
INSERT INTO parents VALUES (1, 'a'), (2, 'b');
INSERT INTO kids VALUES (10, 1), (11, 2);
CREATE FUNCTION log_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  c bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM %I', TG_TABLE_NAME) INTO c;
  INSERT INTO truncations VALUES (TG_TABLE_NAME, TG_OP, TG_WHEN, c);
  RAISE NOTICE '% % % on % (% rows, level %)', TG_NAME, TG_WHEN, TG_OP, TG_TABLE_NAME, c, TG_LEVEL;
  RETURN NULL;
END $$;
CREATE TRIGGER parents_before_truncate BEFORE TRUNCATE ON parents FOR EACH STATEMENT EXECUTE FUNCTION log_truncate();
CREATE TRIGGER parents_after_truncate AFTER TRUNCATE ON parents FOR EACH STATEMENT EXECUTE FUNCTION log_truncate();
CREATE TRIGGER kids_after_truncate AFTER TRUNCATE ON kids EXECUTE FUNCTION log_truncate();
CREATE TRIGGER kids_row_truncate BEFORE TRUNCATE ON kids FOR EACH ROW EXECUTE FUNCTION log_truncate();
SELECT tgname, tgtype, tgenabled FROM pg_trigger WHERE tgname LIKE '%truncate' ORDER BY tgname;
TRUNCATE kids;
SELECT * FROM truncations ORDER BY tbl, at_when;
INSERT INTO kids VALUES (12, 2);
TRUNCATE parents CASCADE;
SELECT * FROM truncations ORDER BY tbl, at_when, n;
SELECT count(*) FROM parents;
BEGIN;
INSERT INTO parents VALUES (3, 'c');
TRUNCATE parents, kids;
ROLLBACK;
SELECT count(*) FROM truncations;
CREATE FUNCTION refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'truncating % is not allowed', TG_TABLE_NAME;
END $$;
CREATE TRIGGER no_truncate BEFORE TRUNCATE ON kids FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
INSERT INTO parents VALUES (5, 'e');
INSERT INTO kids VALUES (50, 5);
TRUNCATE kids;
SELECT count(*) FROM kids;
ALTER TABLE kids DISABLE TRIGGER no_truncate;
TRUNCATE kids;
SELECT count(*) FROM kids;
-- trigger arguments (TG_ARGV, TG_NARGS)
CREATE TABLE audit_log (tbl text, op text, tag text, extra text, nargs int);
CREATE FUNCTION audit_with_args() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  i int := 1;
BEGIN
  INSERT INTO audit_log VALUES (TG_TABLE_NAME, TG_OP, TG_ARGV[0], TG_ARGV[i], TG_NARGS);
  IF TG_ARGV[ 2 ] IS NULL THEN
    RAISE NOTICE 'no third argument for %', TG_NAME;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER parents_audit AFTER INSERT ON parents FOR EACH ROW EXECUTE FUNCTION audit_with_args('parents-tag', 'x y');
CREATE TRIGGER kids_audit BEFORE INSERT OR UPDATE ON kids FOR EACH ROW EXECUTE FUNCTION audit_with_args('kids', 42);
INSERT INTO parents VALUES (7, 'g');
INSERT INTO kids VALUES (70, 7);
UPDATE kids SET parent = 7 WHERE id = 70;
SELECT * FROM audit_log ORDER BY tbl, op;
SELECT tgname, tgnargs, tgargs FROM pg_trigger WHERE tgname LIKE '%audit' ORDER BY tgname;
