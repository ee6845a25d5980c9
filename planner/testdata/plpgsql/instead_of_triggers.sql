-- INSTEAD OF triggers on views: INSERT, UPDATE and DELETE through a view
-- run the trigger function once per row (NEW, OLD, TG_OP, TG_WHEN), a
-- NULL return skips the row (not counted in the tag), several triggers
-- fire in name order; pg_trigger; the errors PostgreSQL gives for
-- INSTEAD OF on tables, row BEFORE/AFTER on views, WHEN, column lists
CREATE TABLE people (id int PRIMARY KEY, first text, last text, active bool NOT NULL DEFAULT true);
INSERT INTO people VALUES (1, 'Ada', 'Lovelace', true), (2, 'Alan', 'Turing', true);
CREATE TABLE log (op text, detail text);
CREATE VIEW people_v AS SELECT id, first || ' ' || last AS full_name FROM people WHERE active;
CREATE FUNCTION people_v_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO log VALUES (TG_OP, TG_WHEN || ' ' || TG_LEVEL || ' ' || TG_TABLE_NAME);
  IF TG_OP = 'INSERT' THEN
    IF NEW.full_name IS NULL THEN
      RETURN NULL;
    END IF;
    INSERT INTO people VALUES (NEW.id, split_part(NEW.full_name, ' ', 1), split_part(NEW.full_name, ' ', 2));
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE people SET first = split_part(NEW.full_name, ' ', 1), last = split_part(NEW.full_name, ' ', 2) WHERE id = OLD.id;
    RETURN NEW;
  ELSE
    UPDATE people SET active = false WHERE id = OLD.id;
    RETURN OLD;
  END IF;
END;
$$;
CREATE TRIGGER people_v_ins INSTEAD OF INSERT ON people_v FOR EACH ROW EXECUTE FUNCTION people_v_write();
INSERT INTO people_v VALUES (3, 'Grace Hopper');
INSERT INTO people_v (id, full_name) VALUES (4, 'Edsger Dijkstra'), (5, NULL);
INSERT INTO people_v (id) VALUES (6);
INSERT INTO people_v SELECT id + 10, first || ' ' || last FROM people WHERE id <= 2;
SELECT * FROM people ORDER BY id;
SELECT * FROM log ORDER BY op, detail;
CREATE TRIGGER people_v_upd INSTEAD OF UPDATE ON people_v FOR EACH ROW EXECUTE FUNCTION people_v_write();
UPDATE people_v SET full_name = 'Ada King' WHERE id = 1;
UPDATE people_v SET full_name = upper(full_name) WHERE id > 10;
UPDATE people_v SET full_name = 'Nobody' WHERE id = 999;
SELECT * FROM people ORDER BY id;
CREATE TRIGGER people_v_del INSTEAD OF DELETE ON people_v FOR EACH ROW EXECUTE FUNCTION people_v_write();
DELETE FROM people_v WHERE id = 2;
DELETE FROM people_v WHERE full_name LIKE 'E%';
SELECT * FROM people_v ORDER BY id;
SELECT id, active FROM people ORDER BY id;
SELECT count(*) FROM log;
SELECT tgname, tgtype, tgenabled FROM pg_trigger WHERE tgrelid = 'people_v'::regclass ORDER BY tgname;
CREATE FUNCTION skip_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO log VALUES ('skip', TG_NAME);
  RETURN NULL;
END;
$$;
CREATE TRIGGER aa_skip INSTEAD OF DELETE ON people_v FOR EACH ROW EXECUTE FUNCTION skip_all();
DELETE FROM people_v;
SELECT op, detail FROM log WHERE op = 'skip';
DROP TRIGGER aa_skip ON people_v;
BEGIN;
INSERT INTO people_v VALUES (20, 'In Tx');
ROLLBACK;
SELECT count(*) FROM people WHERE id = 20;
CREATE TRIGGER bad1 INSTEAD OF INSERT ON people FOR EACH ROW EXECUTE FUNCTION people_v_write();
CREATE TRIGGER bad2 BEFORE INSERT ON people_v FOR EACH ROW EXECUTE FUNCTION people_v_write();
CREATE TRIGGER bad3 INSTEAD OF INSERT ON people_v EXECUTE FUNCTION people_v_write();
CREATE TRIGGER bad4 INSTEAD OF UPDATE OF full_name ON people_v FOR EACH ROW EXECUTE FUNCTION people_v_write();
CREATE TRIGGER bad5 INSTEAD OF INSERT ON people_v FOR EACH ROW WHEN (NEW.id > 0) EXECUTE FUNCTION people_v_write();
CREATE TRIGGER bad6 AFTER TRUNCATE ON people_v EXECUTE FUNCTION people_v_write();
CREATE OR REPLACE VIEW people_v AS SELECT id, first || ' ' || last AS full_name FROM people;
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'people_v'::regclass;
DROP TRIGGER people_v_del ON people_v;
DROP FUNCTION people_v_write();
ALTER TABLE people_v DISABLE TRIGGER people_v_ins;
INSERT INTO people_v VALUES (30, 'Dis Abled');
ALTER TABLE people_v ENABLE TRIGGER people_v_ins;
INSERT INTO people_v VALUES (30, 'En Abled');
SELECT id, first, last FROM people WHERE id = 30;
DROP VIEW people_v;
SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'people_v%';
