-- Range lookups and ORDER BY … LIMIT in index order on text and varchar
-- key columns (byte order, the C collation both servers compare in):
-- strict and inclusive bounds, BETWEEN, a bound equal to a key, an empty
-- range, a NULL bound, bounds past every key, both directions of the
-- ordered walk with ties on the first key, a nullable key (NULLs last),
-- filters and joins above the walk, and multi-column indexes used
-- through their leading column (equality or range on it, the next
-- column in the filter or the ORDER BY). TestDifferentialJoinMethods
-- runs this script again with enable_hashjoin = off and enable_nestloop
-- = off.
CREATE TABLE tr_node (id int PRIMARY KEY, name text NOT NULL, tag varchar(20), grp int);
CREATE INDEX tr_node_name ON tr_node (name);
CREATE INDEX tr_node_tag ON tr_node (tag);
CREATE TABLE tr_edge (src int NOT NULL, dst int NOT NULL, label text, w int);
CREATE INDEX tr_edge_label_w ON tr_edge (label, w);
CREATE INDEX tr_edge_src_w ON tr_edge (src, w);
INSERT INTO tr_node SELECT g, 'n' || lpad(g::text, 4, '0'), CASE WHEN g % 7 = 0 THEN NULL ELSE 't' || (g % 50) END, g % 5 FROM generate_series(1, 3000) g;
INSERT INTO tr_node VALUES (3001, 'n0100', 'dup', 1), (3002, 'N', 'Z', 2), (3003, 'n', '', 3), (3004, 'n0100a', 't1', 4);
INSERT INTO tr_edge SELECT g % 1500 + 1, (g * 7) % 3000 + 1, 'l' || (g % 300), g % 13 FROM generate_series(1, 4000) g;
INSERT INTO tr_edge VALUES (1, 2, NULL, 5), (2, 3, 'l7', NULL);
SELECT id, name FROM tr_node WHERE name > 'n2990' ORDER BY id;
SELECT id, name FROM tr_node WHERE name >= 'n2990' ORDER BY id;
SELECT id, name FROM tr_node WHERE name BETWEEN 'n0098' AND 'n0101' ORDER BY id;
SELECT id, name FROM tr_node WHERE name > 'n0100' AND name < 'n0102' ORDER BY id;
SELECT id, name FROM tr_node WHERE name >= 'n0100' AND name <= 'n0100' ORDER BY id;
SELECT id, name FROM tr_node WHERE name > 'n0100' AND name <= 'n0100' ORDER BY id;
SELECT id, name FROM tr_node WHERE name > 'n0200' AND name < 'n0100' ORDER BY id;
SELECT id, name FROM tr_node WHERE name < 'n0003' ORDER BY id;
SELECT id, name FROM tr_node WHERE name > 'z' ORDER BY id;
SELECT id, name FROM tr_node WHERE name < NULL ORDER BY id;
SELECT id, name FROM tr_node WHERE name >= 'n' AND name < 'n0002' AND grp = 3 ORDER BY id;
SELECT id, tag FROM tr_node WHERE tag > 't48' ORDER BY id LIMIT 20;
SELECT count(*) FROM tr_node WHERE tag BETWEEN 't10' AND 't11';
SELECT count(*) FROM tr_node WHERE tag >= '' AND tag < 't';
-- params: n0500 | n0505
SELECT id, name FROM tr_node WHERE name BETWEEN $1 AND $2 ORDER BY id;
SELECT id, name FROM tr_node ORDER BY name LIMIT 3;
SELECT id, name FROM tr_node ORDER BY name DESC LIMIT 3;
SELECT id, name FROM tr_node ORDER BY name, id LIMIT 5 OFFSET 99;
SELECT id, name FROM tr_node ORDER BY name DESC, id DESC LIMIT 4 OFFSET 2898;
SELECT id, name FROM tr_node WHERE grp = 2 ORDER BY name DESC, id LIMIT 4;
SELECT id, name FROM tr_node WHERE name > 'n1000' ORDER BY name LIMIT 3;
SELECT id, name FROM tr_node WHERE name < 'n1000' ORDER BY name DESC LIMIT 3;
SELECT id, tag FROM tr_node ORDER BY tag, id LIMIT 6;
SELECT id, tag FROM tr_node ORDER BY tag DESC, id LIMIT 6;
SELECT id, tag FROM tr_node ORDER BY tag DESC NULLS LAST, id LIMIT 6;
SELECT id, tag FROM tr_node WHERE id > 2990 ORDER BY tag NULLS LAST, id LIMIT 20;
SELECT id, tag FROM tr_node WHERE id > 2990 ORDER BY tag NULLS FIRST, id LIMIT 5;
SELECT n.name, e.dst FROM tr_node n JOIN tr_edge e ON e.src = n.id ORDER BY n.name DESC, e.dst LIMIT 5;
SELECT n.name, m.name FROM tr_node n JOIN tr_edge e ON e.src = n.id JOIN tr_node m ON m.id = e.dst WHERE n.name BETWEEN 'n0010' AND 'n0012' ORDER BY 1, 2;
SELECT label, w, src, dst FROM tr_edge WHERE label = 'l7' AND w > 10 ORDER BY src, dst;
SELECT label, w, src, dst FROM tr_edge WHERE label = 'l7' ORDER BY w DESC, src, dst LIMIT 3;
SELECT label, w, src FROM tr_edge WHERE label > 'l98' AND label < 'l99' ORDER BY label, w, src;
SELECT label, w, src, dst FROM tr_edge ORDER BY label, w, src, dst LIMIT 5;
SELECT label, w, src, dst FROM tr_edge ORDER BY label DESC NULLS LAST, w, src, dst LIMIT 5;
SELECT src, w, dst FROM tr_edge WHERE src = 7 AND w BETWEEN 3 AND 9 ORDER BY w, dst;
SELECT src, w, dst FROM tr_edge WHERE src = 7 ORDER BY w DESC, dst LIMIT 2;
SELECT src, w, dst FROM tr_edge WHERE src BETWEEN 7 AND 9 ORDER BY src DESC, w, dst LIMIT 4;
SELECT id, name FROM tr_node WHERE name LIKE 'n010%' ORDER BY id;
SELECT id, name FROM tr_node WHERE name LIKE 'n0100%' ORDER BY id;
SELECT id, name FROM tr_node WHERE name LIKE 'n01_0' ORDER BY id;
SELECT id, name FROM tr_node WHERE name LIKE 'n0100' ORDER BY id;
SELECT id, name FROM tr_node WHERE name LIKE 'n\_%' ORDER BY id;
SELECT id, name FROM tr_node WHERE name LIKE 'n29%' AND name > 'n2950' ORDER BY id;
SELECT id, name FROM tr_node WHERE name NOT LIKE 'n%' ORDER BY id;
SELECT id, tag FROM tr_node WHERE tag LIKE 't4%' AND id < 100 ORDER BY id;
SELECT id, tag FROM tr_node WHERE tag LIKE 'dup' ORDER BY id;
SELECT id, name FROM tr_node WHERE name LIKE '%0100' ORDER BY id;
SELECT id, name FROM tr_node WHERE name LIKE 'n2999%' ORDER BY name DESC LIMIT 2;
