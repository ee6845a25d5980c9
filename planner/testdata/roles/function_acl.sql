-- Privileges of user functions as PostgreSQL 15 keeps them: EXECUTE for
-- PUBLIC by default, GRANT/REVOKE EXECUTE ON FUNCTION and ON ALL
-- FUNCTIONS IN SCHEMA, WITH GRANT OPTION and CASCADE, 42501 on a call
-- without EXECUTE (also when no row calls it), pg_proc.proacl,
-- has_function_privilege, ALTER DEFAULT PRIVILEGES … ON FUNCTIONS,
-- ALTER FUNCTION … OWNER TO, and triggers (EXECUTE is checked by
-- CREATE TRIGGER, not when the trigger fires). "-- as NAME" switches
-- sessions.
-- as postgres
CREATE ROLE fa LOGIN;
CREATE ROLE fb LOGIN;
CREATE ROLE fgrp;
GRANT fgrp TO fb;
GRANT CREATE ON SCHEMA public TO fa;
CREATE FUNCTION add1(int) RETURNS int LANGUAGE sql AS 'SELECT $1 + 1';
CREATE FUNCTION twice(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN x * 2; END $$;
SELECT proname, proacl FROM pg_proc WHERE proname IN ('add1', 'twice') ORDER BY 1;
SELECT has_function_privilege('fa', 'add1(int)', 'EXECUTE'), has_function_privilege('fa', 'add1(int)', 'EXECUTE WITH GRANT OPTION');
-- as fa
SELECT add1(1), twice(2);
-- as postgres
REVOKE EXECUTE ON FUNCTION add1(int) FROM PUBLIC;
SELECT proacl FROM pg_proc WHERE proname = 'add1';
SELECT has_function_privilege('fa', 'add1(int)', 'EXECUTE'), has_function_privilege('postgres', 'add1(int)', 'EXECUTE');
SELECT add1(10);
-- as fa
SELECT add1(1);
SELECT twice(add1(2));
SELECT twice(3);
SELECT has_function_privilege('add1(int)', 'EXECUTE');
-- as postgres
GRANT EXECUTE ON FUNCTION add1 TO fgrp;
SELECT proacl FROM pg_proc WHERE proname = 'add1';
-- as fb
SELECT add1(5);
SELECT has_function_privilege('add1(int)', 'EXECUTE');
-- as fa
SELECT add1(5);
GRANT EXECUTE ON FUNCTION add1(int) TO fb;
REVOKE EXECUTE ON FUNCTION twice(int) FROM fb;
-- as postgres
GRANT EXECUTE ON FUNCTION add1(int) TO fa WITH GRANT OPTION;
-- as fa
GRANT EXECUTE ON FUNCTION add1(int) TO fb;
SELECT proacl FROM pg_proc WHERE proname = 'add1';
-- as postgres
REVOKE EXECUTE ON FUNCTION add1(int) FROM fa;
REVOKE EXECUTE ON FUNCTION add1(int) FROM fa CASCADE;
SELECT proacl FROM pg_proc WHERE proname = 'add1';
REVOKE ALL ON FUNCTION twice(int) FROM PUBLIC;
GRANT ALL ON ALL FUNCTIONS IN SCHEMA public TO fa;
SELECT proname, proacl FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY proname;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM fa;
SELECT proname, proacl FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY proname;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA nosuch TO fa;
GRANT EXECUTE ON FUNCTION add1(text) TO fa;
GRANT EXECUTE ON FUNCTION public.nosuch() TO fa;
GRANT EXECUTE ON FUNCTION public.nosuch TO fa;
GRANT EXECUTE ON FUNCTION public.nosuch(int, text) TO fa;
GRANT SELECT ON FUNCTION add1(int) TO fa;
GRANT EXECUTE ON FUNCTION add1(int) TO nobody;
GRANT EXECUTE ON PROCEDURE add1(int) TO fa;
-- as fa
SELECT twice(1);
-- as postgres
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
CREATE FUNCTION later(int) RETURNS int LANGUAGE sql AS 'SELECT $1';
SELECT proacl FROM pg_proc WHERE proname = 'later';
-- as fa
SELECT later(1);
-- as postgres
ALTER DEFAULT PRIVILEGES FOR ROLE fa GRANT EXECUTE ON FUNCTIONS TO fb;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON FUNCTIONS TO fb;
SELECT defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2::text;
-- as fa
CREATE FUNCTION fa_fn() RETURNS int LANGUAGE sql AS 'SELECT 7';
SELECT proacl, pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'fa_fn';
-- as fb
SELECT fa_fn();
-- as fa
CREATE FUNCTION fa_priv() RETURNS int LANGUAGE sql AS 'SELECT 8';
REVOKE ALL ON FUNCTION fa_priv() FROM PUBLIC;
SELECT fa_priv();
ALTER FUNCTION fa_priv() OWNER TO fb;
ALTER FUNCTION add1(int) OWNER TO fa;
-- as postgres
ALTER FUNCTION fa_priv() OWNER TO fb;
SELECT proacl, pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'fa_priv';
ALTER FUNCTION nosuch() OWNER TO fb;
ALTER FUNCTION add1(int) OWNER TO nobody;
-- as fa
SELECT fa_priv();
-- as fb
SELECT fa_priv();
-- as postgres
CREATE TABLE tg (id int);
GRANT ALL ON tg TO fa;
CREATE FUNCTION tg_fn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.id := NEW.id + 100; RETURN NEW; END $$;
REVOKE EXECUTE ON FUNCTION tg_fn() FROM PUBLIC;
-- as fa
CREATE TRIGGER tg_t BEFORE INSERT ON tg FOR EACH ROW EXECUTE FUNCTION tg_fn();
-- as postgres
CREATE TRIGGER tg_t BEFORE INSERT ON tg FOR EACH ROW EXECUTE FUNCTION tg_fn();
-- as fa
INSERT INTO tg VALUES (1);
SELECT id FROM tg;
-- information_schema's routine grants, as each role sees them
SELECT grantor, grantee, routine_catalog = current_database(), routine_name, privilege_type, is_grantable FROM information_schema.routine_privileges WHERE routine_schema = 'public' ORDER BY routine_name, grantee, grantor;
SELECT grantor, grantee, routine_name, is_grantable FROM information_schema.role_routine_grants WHERE routine_schema = 'public' ORDER BY routine_name, grantee, grantor;
-- as postgres
SELECT grantor, grantee, routine_name, privilege_type, is_grantable FROM information_schema.routine_privileges WHERE routine_schema = 'public' ORDER BY routine_name, grantee, grantor;
SELECT grantor, grantee, routine_name, is_grantable FROM information_schema.role_routine_grants WHERE routine_schema = 'public' ORDER BY routine_name, grantee, grantor;
SELECT bool_and(r.specific_name = r.routine_name || '_' || p.oid), bool_and(r.specific_schema = 'public') FROM information_schema.routine_privileges r JOIN pg_proc p ON p.proname = r.routine_name AND p.pronamespace = 'public'::regnamespace WHERE r.routine_schema = 'public';
