-- Aggregates of DISTINCT integers (count(DISTINCT e3.dst) of traversals)
-- take a sort of (group, value) pairs instead of the general row-key sort
-- (exec/agg.go, distinctIntPerm); NULLs, ORDER BY inside the aggregate,
-- several arguments and other types keep the general path. The order
-- array_agg(DISTINCT …) sees is ascending in both.
CREATE TABLE di (g int, a smallint, b int, c bigint, t text);
INSERT INTO di SELECT s % 7, (s * 13) % 11, (s * 31) % 17 - 8, (s * 7919) % 23 - 11, 'v' || (s % 5) FROM generate_series(1, 400) s;
INSERT INTO di VALUES (3, NULL, NULL, NULL, NULL), (8, 1, 1, 1, 'x'), (8, 1, 1, 1, 'x'), (9, NULL, 2, -9223372036854775808, NULL), (9, 5, 2, 9223372036854775807, 'y');
SELECT count(DISTINCT a), count(DISTINCT b), count(DISTINCT c), count(*) FROM di;
SELECT g, count(DISTINCT a), count(DISTINCT b), count(DISTINCT c) FROM di GROUP BY g ORDER BY g;
SELECT g, sum(DISTINCT b), avg(DISTINCT c), min(DISTINCT a), max(DISTINCT c) FROM di GROUP BY g ORDER BY g;
SELECT g, array_agg(DISTINCT b), array_agg(DISTINCT c) FROM di GROUP BY g ORDER BY g;
SELECT g, array_agg(DISTINCT a) FROM di WHERE g IN (3, 8, 9) GROUP BY g ORDER BY g;
SELECT g, array_agg(DISTINCT b ORDER BY b DESC), string_agg(DISTINCT t, ',') FROM di GROUP BY g ORDER BY g;
SELECT g, count(DISTINCT b) FILTER (WHERE c > 0), array_agg(DISTINCT c) FILTER (WHERE a < 4) FROM di GROUP BY g ORDER BY g;
SELECT count(DISTINCT b) FROM di WHERE g = 100;
SELECT array_agg(DISTINCT c) FROM di WHERE g = 9;
SELECT count(DISTINCT (b, c)), count(DISTINCT b + c) FROM di;
