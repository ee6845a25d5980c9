-- PL/pgSQL CASE, FOREACH, labels with EXIT/CONTINUE, EXECUTE … INTO / USING
CREATE TABLE events (id int PRIMARY KEY, kind text, qty int);
INSERT INTO events VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', NULL);
CREATE FUNCTION grade(n int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  CASE n
    WHEN 1, 2 THEN RETURN 'low';
    WHEN 3 THEN RETURN 'mid';
    ELSE RETURN 'high';
  END CASE;
END $$;
SELECT n, grade(n) FROM generate_series(1, 4) n ORDER BY n;
CREATE FUNCTION sign_of(x numeric) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  CASE
    WHEN x < 0 THEN RETURN 'negative';
    WHEN x = 0 THEN RETURN 'zero';
    WHEN x > 0 THEN RETURN 'positive';
  END CASE;
END $$;
SELECT sign_of(-2.5), sign_of(0), sign_of(7);
SELECT sign_of(NULL);
CREATE FUNCTION kind_label(k text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  out text;
BEGIN
  CASE lower(k)
    WHEN 'a' THEN out := 'alpha';
    WHEN 'b' THEN out := 'beta';
    ELSE out := 'other ' || k;
  END CASE;
  RETURN out;
END $$;
SELECT kind, kind_label(upper(kind)) FROM events ORDER BY id;
DO $$
DECLARE
  total int := 0;
  x int;
BEGIN
  FOREACH x IN ARRAY ARRAY[1, 2, 3, NULL, 5] LOOP
    CONTINUE WHEN x IS NULL;
    total := total + x;
  END LOOP;
  RAISE NOTICE 'total %', total;
END $$;
DO $$
DECLARE
  w text;
  s text := '';
BEGIN
  FOREACH w IN ARRAY string_to_array('to be or not', ' ') LOOP
    s := s || upper(w) || '.';
  END LOOP;
  RAISE NOTICE '%', s;
END $$;
DO $$
DECLARE
  x int;
  a int[];
BEGIN
  FOREACH x IN ARRAY a LOOP
    RAISE NOTICE 'never';
  END LOOP;
END $$;
DO $$
DECLARE
  x int;
BEGIN
  FOREACH x IN ARRAY 5 LOOP
    NULL;
  END LOOP;
END $$;
DO $$
DECLARE
  i int;
  j int;
BEGIN
  <<outer_loop>>
  FOR i IN 1..3 LOOP
    <<inner_loop>>
    FOR j IN 1..3 LOOP
      CONTINUE outer_loop WHEN j > i;
      EXIT outer_loop WHEN i = 3;
      RAISE NOTICE 'i=% j=%', i, j;
    END LOOP inner_loop;
  END LOOP outer_loop;
  RAISE NOTICE 'after';
END $$;
DO $$
DECLARE
  n int := 0;
BEGIN
  <<counting>>
  LOOP
    n := n + 1;
    WHILE true LOOP
      EXIT counting WHEN n >= 3;
      EXIT;
    END LOOP;
  END LOOP;
  RAISE NOTICE 'n=%', n;
END $$;
DO $$
BEGIN
  <<blk>>
  BEGIN
    RAISE NOTICE 'in block';
    EXIT blk;
    RAISE NOTICE 'not reached';
  END;
  RAISE NOTICE 'after block';
END $$;
DO $$
DECLARE
  r record;
BEGIN
  <<rows>>
  FOR r IN SELECT id, kind FROM events ORDER BY id LOOP
    CONTINUE rows WHEN r.id = 2;
    RAISE NOTICE 'row % %', r.id, r.kind;
  END LOOP;
END $$;
DO $$
DECLARE
  c int;
  k text;
BEGIN
  EXECUTE 'SELECT count(*) FROM events WHERE qty > $1' INTO c USING 5;
  RAISE NOTICE 'count %', c;
  EXECUTE format('SELECT kind FROM %I WHERE id = $1', 'events') INTO STRICT k USING 2;
  RAISE NOTICE 'kind %', k;
  EXECUTE 'UPDATE events SET qty = $1 WHERE kind = $2' USING 99, 'c';
  EXECUTE 'SELECT kind FROM events WHERE id = $1' INTO k USING 42;
  RAISE NOTICE 'missing %', k;
END $$;
SELECT * FROM events ORDER BY id;
DO $$
DECLARE
  r record;
BEGIN
  EXECUTE 'SELECT id, kind FROM events WHERE qty = $1' INTO r USING 20;
  RAISE NOTICE 'got % %', r.id, r.kind;
END $$;
DO $$
DECLARE
  k text;
BEGIN
  EXECUTE 'SELECT kind FROM events' INTO STRICT k;
END $$;
DO $$
DECLARE
  k text;
BEGIN
  EXECUTE 'SELECT kind FROM events WHERE id = $1' INTO STRICT k USING 77;
END $$;
DO $$
DECLARE
  k text;
BEGIN
  EXECUTE 'SELECT $2' INTO k USING 1;
END $$;
DO $$
DECLARE
  d date;
BEGIN
  EXECUTE 'SELECT $1 + 1' INTO d USING '2024-02-28'::date;
  RAISE NOTICE 'next day %', d;
END $$;
-- nested DECLARE sections
DO $$
DECLARE
  x int := 1;
  y text := 'outer';
BEGIN
  DECLARE
    x int := 10;
    z int := x + 5;
  BEGIN
    RAISE NOTICE 'inner x=% y=% z=%', x, y, z;
    y := 'changed';
  END;
  RAISE NOTICE 'outer x=% y=%', x, y;
  FOR i IN 1..2 LOOP
    DECLARE
      counter int := 0;
    BEGIN
      counter := counter + i;
      RAISE NOTICE 'counter %', counter;
    END;
  END LOOP;
END $$;
CREATE FUNCTION nested_sum(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  total int := 0;
BEGIN
  FOR i IN 1..n LOOP
    DECLARE
      sq int := i * i;
    BEGIN
      total := total + sq;
    END;
  END LOOP;
  RETURN total;
END $$;
SELECT nested_sum(3);
DO $$
BEGIN
  DECLARE
    v int NOT NULL := NULL;
  BEGIN
    NULL;
  END;
END $$;
