-- CREATE TRIGGER … EXECUTE FUNCTION: the updated_at trigger migrations
-- emit (Rails / Django style), BEFORE/AFTER ROW and STATEMENT triggers,
-- WHEN, UPDATE OF, skipping rows, DISABLE/ENABLE, DROP TRIGGER
CREATE TABLE posts (id bigint PRIMARY KEY, title text NOT NULL, updated_at timestamp NOT NULL DEFAULT '2000-01-01 00:00:00', edits int NOT NULL DEFAULT 0);
CREATE OR REPLACE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := '2024-05-06 07:08:09';
  NEW.edits := OLD.edits + 1;
  RETURN NEW;
END;
$$;
CREATE TRIGGER posts_set_updated_at BEFORE UPDATE ON posts FOR EACH ROW EXECUTE FUNCTION set_updated_at();
INSERT INTO posts (id, title) VALUES (1, 'a'), (2, 'b');
UPDATE posts SET title = title || '!' WHERE id = 1;
SELECT id, title, updated_at, edits FROM posts ORDER BY id;
UPDATE posts SET title = 'c' RETURNING id, title, updated_at, edits;
CREATE TRIGGER posts_set_updated_at BEFORE UPDATE ON posts FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TABLE audit (op text, detail text);
CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO audit VALUES (TG_OP || ' ' || TG_WHEN || ' ' || TG_LEVEL, NEW.title);
  ELSE
    INSERT INTO audit VALUES (TG_OP || ' ' || TG_WHEN || ' ' || TG_LEVEL, OLD.title || ' -> ' || NEW.title);
  END IF;
  RETURN NULL;
END $$;
CREATE FUNCTION audit_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit VALUES (TG_OP || ' ' || TG_WHEN || ' ' || TG_LEVEL || ' ' || TG_TABLE_NAME, NULL);
  RETURN NULL;
END $$;
CREATE TRIGGER posts_audit AFTER INSERT OR UPDATE ON posts FOR EACH ROW EXECUTE FUNCTION audit_row();
CREATE TRIGGER posts_audit_stmt BEFORE INSERT OR UPDATE OR DELETE ON posts FOR EACH STATEMENT EXECUTE PROCEDURE audit_stmt();
INSERT INTO posts (id, title) VALUES (3, 'c3');
UPDATE posts SET title = 'z' WHERE id = 3;
DELETE FROM posts WHERE id = 99;
SELECT op, detail FROM audit ORDER BY op, detail;
CREATE FUNCTION no_empty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.title = '' THEN
    RETURN NULL;
  END IF;
  NEW.title := upper(NEW.title);
  RETURN NEW;
END $$;
CREATE TRIGGER posts_no_empty BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION no_empty();
INSERT INTO posts (id, title) VALUES (4, 'keep'), (5, ''), (6, 'also');
SELECT id, title FROM posts ORDER BY id;
CREATE FUNCTION when_big() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'big edit on %: % -> %', NEW.id, OLD.title, NEW.title;
  RETURN NEW;
END $$;
CREATE TRIGGER posts_when BEFORE UPDATE OF title ON posts FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title) EXECUTE FUNCTION when_big();
UPDATE posts SET title = title WHERE id = 4;
UPDATE posts SET title = 'changed' WHERE id = 4;
UPDATE posts SET edits = 0 WHERE id = 4;
ALTER TABLE posts DISABLE TRIGGER posts_set_updated_at;
UPDATE posts SET title = 'quiet' WHERE id = 6;
SELECT id, title, updated_at, edits FROM posts WHERE id = 6;
ALTER TABLE posts ENABLE TRIGGER posts_set_updated_at;
ALTER TABLE posts DISABLE TRIGGER nosuch;
ALTER TABLE posts DISABLE TRIGGER ALL;
UPDATE posts SET title = 'silent' WHERE id = 6;
ALTER TABLE posts ENABLE TRIGGER ALL;
SELECT tgname, tgenabled, tgtype FROM pg_trigger WHERE tgrelid = 'posts'::regclass ORDER BY tgname;
CREATE FUNCTION not_trigger() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE TRIGGER bad BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION not_trigger();
CREATE TRIGGER bad BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION nosuch_fn();
CREATE TRIGGER bad BEFORE INSERT ON nosuch_table FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER bad BEFORE INSERT ON posts FOR EACH ROW WHEN (OLD.id > 0) EXECUTE FUNCTION set_updated_at();
DROP FUNCTION set_updated_at();
DROP TRIGGER posts_when ON posts;
DROP TRIGGER posts_when ON posts;
DROP TRIGGER IF EXISTS posts_when ON posts;
DROP TRIGGER posts_set_updated_at ON posts;
DROP FUNCTION set_updated_at();
UPDATE posts SET title = 'plain' WHERE id = 1;
SELECT id, title, edits FROM posts WHERE id = 1;
BEGIN;
INSERT INTO posts (id, title) VALUES (7, 'rolled');
ROLLBACK;
SELECT count(*) FROM audit WHERE detail = 'ROLLED';
CREATE FUNCTION guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.title = 'keep' OR OLD.title = 'KEEP' THEN
    RAISE NOTICE 'keeping %', OLD.id;
    RETURN NULL;
  END IF;
  INSERT INTO audit VALUES ('deleted', OLD.title);
  RETURN OLD;
END $$;
CREATE TRIGGER posts_guard BEFORE DELETE ON posts FOR EACH ROW EXECUTE FUNCTION guard_delete();
SELECT id, title FROM posts ORDER BY id;
INSERT INTO posts (id, title) VALUES (8, 'keep');
DELETE FROM posts WHERE id IN (4, 6, 8) RETURNING id, title;
DELETE FROM posts WHERE id > 100;
SELECT id, title FROM posts ORDER BY id;
SELECT op, detail FROM audit WHERE op = 'deleted' ORDER BY detail;
CREATE FUNCTION after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'gone: % (%)', OLD.id, TG_OP;
  RETURN NULL;
END $$;
CREATE TRIGGER posts_after_delete AFTER DELETE ON posts FOR EACH ROW EXECUTE FUNCTION after_delete();
DELETE FROM posts WHERE id = 3;
SELECT count(*) FROM posts;
-- a migration as Rails/Django-style tools emit it: one transaction,
-- DROP TRIGGER IF EXISTS, then the function and the trigger
BEGIN;
CREATE TABLE accounts (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, created_at timestamp(6) NOT NULL, updated_at timestamp(6) NOT NULL);
CREATE OR REPLACE FUNCTION trigger_set_timestamp() RETURNS TRIGGER AS $$
BEGIN
  IF row(NEW.*) IS DISTINCT FROM row(OLD.*) THEN
    NEW.updated_at = NOW();
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS set_timestamp ON accounts;
CREATE TRIGGER set_timestamp BEFORE UPDATE ON accounts FOR EACH ROW EXECUTE PROCEDURE trigger_set_timestamp();
COMMIT;
INSERT INTO accounts (email, created_at, updated_at) VALUES ('a@x', '2020-01-01', '2020-01-01'), ('b@x', '2020-01-01', '2020-01-01');
UPDATE accounts SET email = 'a@y' WHERE id = 1;
UPDATE accounts SET email = email WHERE id = 2;
SELECT id, email, updated_at > '2020-01-01' AS touched FROM accounts ORDER BY id;
-- OLD on INSERT and NEW on DELETE are NULL records: their fields read as
-- NULL (PostgreSQL 11 and later), a whole-row reference is NULL
CREATE TABLE null_rec (id int PRIMARY KEY, v text);
CREATE TABLE null_rec_log (op text, new_id int, old_id int, old_null bool, new_null bool);
CREATE FUNCTION null_rec_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO null_rec_log VALUES (tg_op, new.id, old.id, old IS NULL, new IS NULL);
  IF tg_op = 'DELETE' THEN
    RETURN old;
  END IF;
  RETURN new;
END $$;
CREATE TRIGGER null_rec_b BEFORE INSERT OR UPDATE OR DELETE ON null_rec FOR EACH ROW EXECUTE FUNCTION null_rec_trg();
INSERT INTO null_rec VALUES (1, 'a'), (2, 'b');
UPDATE null_rec SET v = 'c' WHERE id = 1;
DELETE FROM null_rec WHERE id = 2;
SELECT * FROM null_rec_log ORDER BY op, coalesce(new_id, old_id);
SELECT * FROM null_rec ORDER BY id;
