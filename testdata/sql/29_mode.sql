-- mode() WITHIN GROUP (ORDER BY x)
CREATE TABLE md (g text, x int, s text, ts date);
INSERT INTO md VALUES ('a', 1, 'p', '2024-01-01'), ('a', 2, 'q', '2024-01-01'), ('a', 2, 'q', '2024-01-02'), ('a', NULL, NULL, NULL), ('b', 5, 'z', '2024-02-01'), ('b', 3, 'y', '2024-02-01'), ('c', NULL, NULL, NULL);
SELECT mode() WITHIN GROUP (ORDER BY x) FROM md;
SELECT g, mode() WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY s DESC), mode() WITHIN GROUP (ORDER BY ts) FROM md GROUP BY g ORDER BY g;
SELECT g, mode() WITHIN GROUP (ORDER BY x DESC) FILTER (WHERE x > 1) FROM md GROUP BY g ORDER BY g;
SELECT mode() WITHIN GROUP (ORDER BY x) FROM md WHERE false;
SELECT mode(x) FROM md;
SELECT mode() WITHIN GROUP (ORDER BY 'k');
SELECT mode() WITHIN GROUP (ORDER BY x) OVER () FROM md;
