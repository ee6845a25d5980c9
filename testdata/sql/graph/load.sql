-- differential: postgresql (PostgreSQL 15 must print the same transcript)
-- load.sql: the social graph loaded with COPY (text, csv with header,
-- csv with a NULL marker, a custom delimiter), then read back: counts,
-- one-hop and two-hop traversals, aggregation over edges, reachability.
\ir social.psql
SELECT 'people' AS t, count(*) FROM people
UNION ALL SELECT 'companies', count(*) FROM companies
UNION ALL SELECT 'knows', count(*) FROM knows
UNION ALL SELECT 'works_at', count(*) FROM works_at;
SELECT * FROM people ORDER BY id;
SELECT * FROM companies ORDER BY id;
SELECT * FROM knows WHERE since IS NULL;
-- whom Ada knows
SELECT p.name, k.since
FROM knows k JOIN people p ON p.id = k.dst
WHERE k.src = 1
ORDER BY p.name;
-- friends of friends of Ada she does not know directly
SELECT DISTINCT f2.name
FROM knows a
JOIN knows b ON b.src = a.dst
JOIN people f2 ON f2.id = b.dst
WHERE a.src = 1 AND b.dst <> 1
  AND b.dst NOT IN (SELECT dst FROM knows WHERE src = 1)
ORDER BY f2.name;
-- headcount and roles per company
SELECT c.name, count(*) AS staff, string_agg(w.role, ', ' ORDER BY w.role) AS roles
FROM companies c JOIN works_at w ON w.dst = c.id
GROUP BY c.name
ORDER BY staff DESC, c.name;
-- everyone reachable from Ken along knows edges
WITH RECURSIVE reach(id, depth) AS (
  SELECT 5::int8, 0
  UNION
  SELECT k.dst, r.depth + 1 FROM reach r JOIN knows k ON k.src = r.id WHERE r.depth < 6
)
SELECT p.name, min(r.depth) AS hops
FROM reach r JOIN people p ON p.id = r.id
GROUP BY p.name
ORDER BY hops, p.name;
-- the data round-trips through COPY TO
COPY (SELECT id, name, email, age FROM people ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER true);
COPY companies TO STDOUT;
