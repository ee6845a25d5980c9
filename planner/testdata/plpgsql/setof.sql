-- set-returning and record-returning functions, VARIADIC, named and DEFAULT arguments
CREATE TABLE pets (id int PRIMARY KEY, name text, kind text, age int);
INSERT INTO pets VALUES (1, 'rex', 'dog', 3), (2, 'tom', 'cat', 5), (3, 'kit', 'cat', 1), (4, 'bo', 'dog', NULL);
CREATE FUNCTION pet_names(k text) RETURNS SETOF text LANGUAGE sql STABLE AS $$ SELECT name FROM pets WHERE kind = k ORDER BY id $$;
SELECT * FROM pet_names('cat');
SELECT * FROM pet_names('dog') AS n;
SELECT n.x FROM pet_names('dog') AS n(x);
SELECT * FROM pet_names('cat') WITH ORDINALITY;
SELECT * FROM pet_names('cat') WITH ORDINALITY AS t(nm, pos);
SELECT pet_names('dog');
SELECT pet_names('dog'), generate_series(1, 3) ORDER BY 2;
SELECT count(*) FROM pet_names('none');
SELECT upper(p) FROM pet_names('cat') p ORDER BY 1 DESC;
CREATE FUNCTION pets_of(k text) RETURNS TABLE(pet_id int, pet_name text) LANGUAGE sql AS $$ SELECT id, name FROM pets WHERE kind = k ORDER BY id $$;
SELECT * FROM pets_of('dog');
SELECT pet_name FROM pets_of('cat') WHERE pet_id > 2;
SELECT t.* FROM pets_of('cat') AS t(a, b);
SELECT * FROM pets_of('cat') WITH ORDINALITY;
SELECT pets_of('dog');
SELECT (pets_of('dog')).pet_name;
SELECT k, p.pet_name FROM (VALUES ('cat'), ('dog')) v(k), LATERAL pets_of(k) p ORDER BY 1, 2;
CREATE FUNCTION evens(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$
DECLARE
  i int := 0;
BEGIN
  WHILE i <= n LOOP
    RETURN NEXT i;
    i := i + 2;
  END LOOP;
  RETURN;
END $$;
SELECT * FROM evens(7);
SELECT evens(4) AS e;
SELECT sum(e) FROM evens(10) e;
CREATE FUNCTION old_pets(min_age int) RETURNS TABLE(name text, age int) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY SELECT p.name, p.age FROM pets p WHERE p.age >= min_age ORDER BY p.age;
  name := 'extra';
  age := 99;
  RETURN NEXT;
END $$;
SELECT * FROM old_pets(2);
CREATE FUNCTION min_max(OUT lo int, OUT hi int) LANGUAGE sql AS $$ SELECT min(age), max(age) FROM pets $$;
SELECT * FROM min_max();
SELECT min_max();
SELECT (min_max()).hi;
SELECT lo + hi FROM min_max();
CREATE FUNCTION split_pair(s text, OUT first text, OUT second text) LANGUAGE plpgsql AS $$
BEGIN
  first := split_part(s, ',', 1);
  second := split_part(s, ',', 2);
END $$;
SELECT * FROM split_pair('a,b');
SELECT split_pair('x,y');
CREATE FUNCTION anon_rows() RETURNS SETOF record LANGUAGE sql AS $$ SELECT id, name FROM pets ORDER BY id $$;
SELECT * FROM anon_rows() AS t(id int, name text);
SELECT * FROM anon_rows();
SELECT * FROM pet_names('cat') AS t(x text);
SELECT * FROM pets_of('cat') AS t(x int, y text);
CREATE FUNCTION rec_rows() RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT id, kind FROM pets WHERE age IS NOT NULL ORDER BY id LOOP
    RETURN NEXT r;
  END LOOP;
END $$;
SELECT * FROM rec_rows() AS (n int, k text);
CREATE FUNCTION strict_set(n int) RETURNS SETOF int LANGUAGE sql STRICT AS $$ SELECT generate_series(1, n) $$;
SELECT * FROM strict_set(NULL);
SELECT * FROM strict_set(2);
-- VARIADIC
CREATE FUNCTION total(VARIADIC nums int[]) RETURNS int LANGUAGE sql AS $$ SELECT sum(x)::int FROM unnest(nums) x $$;
SELECT total(1, 2, 3), total(5);
SELECT total(VARIADIC ARRAY[4, 5]);
SELECT total();
SELECT total(ARRAY[1, 2]);
CREATE FUNCTION joined(sep text, VARIADIC parts text[]) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN array_to_string(parts, sep);
END $$;
SELECT joined('-', 'a', 'b', 'c');
SELECT joined(VARIADIC parts => ARRAY['x', 'y'], sep => '+');
CREATE FUNCTION bad_variadic(VARIADIC n int) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad_variadic(VARIADIC n int[], m int) RETURNS int LANGUAGE sql AS 'SELECT 1';
SELECT pg_get_function_arguments(oid), pg_get_function_identity_arguments(oid), provariadic::regtype FROM pg_proc WHERE proname = 'joined';
-- named and DEFAULT arguments
CREATE FUNCTION label(name text, prefix text DEFAULT '<', suffix text DEFAULT '>') RETURNS text LANGUAGE sql AS $$ SELECT prefix || name || suffix $$;
SELECT label('a'), label('a', '['), label('a', '[', ']');
SELECT label(name => 'b'), label(suffix => '!', name => 'c'), label('d', suffix => ')');
SELECT label(name := 'e');
SELECT label(nosuch => 'x');
SELECT label('a', name => 'b');
SELECT label(name => 'a', name => 'b');
SELECT label(prefix => '[');
SELECT * FROM pets_of(k => 'dog');
SELECT * FROM evens(n => 3);
-- a table's row type as the result
CREATE FUNCTION all_pets() RETURNS SETOF pets LANGUAGE sql STABLE AS $$ SELECT * FROM pets ORDER BY id $$;
SELECT * FROM all_pets();
SELECT name FROM all_pets() WHERE kind = 'cat';
SELECT p.id, p.age FROM all_pets() AS p WHERE p.age > 2;
CREATE FUNCTION oldest_pet() RETURNS pets LANGUAGE sql AS $$ SELECT * FROM pets WHERE age IS NOT NULL ORDER BY age DESC LIMIT 1 $$;
SELECT oldest_pet();
SELECT (oldest_pet()).name;
SELECT * FROM oldest_pet();
CREATE FUNCTION pets_of_kind(k text) RETURNS SETOF pets LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT * FROM pets WHERE kind = k ORDER BY id LOOP
    RETURN NEXT r;
  END LOOP;
  RETURN QUERY SELECT * FROM pets WHERE id = 4;
END $$;
SELECT * FROM pets_of_kind('cat');
CREATE FUNCTION first_pet() RETURNS pets LANGUAGE plpgsql AS $$
DECLARE
  r pets;
BEGIN
  SELECT * INTO r FROM pets ORDER BY id LIMIT 1;
  RETURN r;
END $$;
SELECT first_pet();
SELECT pg_get_function_result(oid) FROM pg_proc WHERE proname IN ('all_pets', 'oldest_pet') ORDER BY proname;
DO $$
DECLARE
  p pets%ROWTYPE;
  q pets;
BEGIN
  RAISE NOTICE 'before: % %', p.id, q.name IS NULL;
  SELECT * INTO p FROM pets WHERE id = 2;
  RAISE NOTICE 'after: % % %', p.id, p.name, p.kind;
  FOR q IN SELECT * FROM pets WHERE kind = 'dog' ORDER BY id LOOP
    RAISE NOTICE 'dog %', q.name;
  END LOOP;
END $$;
