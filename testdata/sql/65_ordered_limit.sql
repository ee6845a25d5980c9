-- ORDER BY … LIMIT served in index order (an ordered scan stepping
-- through the keys of an index, joins looked up batch by batch): the
-- first key's rows fewer than, as many as and more than the limit, ties
-- on the first key, filters and joins dropping rows, OFFSET, both
-- directions and a nullable key (its NULLs last). TestDifferentialJoinMethods
-- runs this script again with enable_hashjoin = off and enable_nestloop = off.
CREATE TABLE ol_node (id int PRIMARY KEY, name text, grp int);
CREATE TABLE ol_edge (src int NOT NULL, dst int NOT NULL, w int, opt int);
CREATE INDEX ol_edge_src ON ol_edge (src);
CREATE INDEX ol_edge_opt ON ol_edge (opt);
INSERT INTO ol_node SELECT g, 'n' || g, g % 5 FROM generate_series(1, 3000) g;
INSERT INTO ol_edge SELECT g % 1500 + 1, (g * 7) % 3000 + 1, g % 13, CASE WHEN g % 4 = 0 THEN NULL ELSE g % 900 END FROM generate_series(1, 4000) g;
INSERT INTO ol_edge VALUES (1500, 1, 1, NULL), (1500, 2, 2, NULL), (1500, 3, 3, 899), (1499, 9, 9, 898);
SELECT src, dst, w FROM ol_edge ORDER BY src DESC, dst DESC LIMIT 1;
SELECT src, dst, w FROM ol_edge ORDER BY src DESC, dst DESC LIMIT 2;
SELECT src, dst, w FROM ol_edge ORDER BY src DESC, dst DESC LIMIT 5;
SELECT src, dst, w FROM ol_edge ORDER BY src DESC, dst DESC LIMIT 9;
SELECT src, dst, w FROM ol_edge ORDER BY src DESC, w, dst LIMIT 4;
SELECT src, dst FROM ol_edge ORDER BY src, dst LIMIT 3;
SELECT src, dst FROM ol_edge ORDER BY src, dst DESC LIMIT 7;
SELECT src, dst FROM ol_edge ORDER BY src DESC, dst LIMIT 3 OFFSET 2;
SELECT src, dst FROM ol_edge WHERE w > 10 ORDER BY src DESC, dst LIMIT 3;
SELECT src, dst FROM ol_edge WHERE w = 12 ORDER BY src DESC, dst LIMIT 2;
SELECT e.src, e.dst, n.name FROM ol_edge e JOIN ol_node n ON n.id = e.src ORDER BY e.src DESC, e.dst DESC LIMIT 2;
SELECT e.src, e.dst, n.name FROM ol_edge e JOIN ol_node n ON n.id = e.dst WHERE n.grp = 3 ORDER BY e.src DESC, e.dst LIMIT 3;
SELECT e.src, n.name FROM ol_edge e JOIN ol_node n ON n.id = e.dst ORDER BY e.src, n.name DESC LIMIT 4;
SELECT opt, src, dst FROM ol_edge ORDER BY opt DESC NULLS LAST, src, dst LIMIT 3;
SELECT opt, src, dst FROM ol_edge ORDER BY opt NULLS LAST, src, dst LIMIT 3;
SELECT opt, src, dst FROM ol_edge WHERE opt > 897 OR opt IS NULL ORDER BY opt DESC NULLS LAST, src, dst LIMIT 6;
SELECT opt, src, dst FROM ol_edge WHERE src >= 1499 ORDER BY opt, src, dst LIMIT 8;
