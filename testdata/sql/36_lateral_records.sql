-- record-returning functions as lateral FROM items expand into their fields (pgjdbc's
-- getPrimaryKeys/getIndexInfo shape: FROM pg_index i, information_schema._pg_expandarray(i.indkey) k)
CREATE TABLE lr_t (id int, arr int2[]);
INSERT INTO lr_t VALUES (1, '{3,1,2}'), (2, '{}'), (3, NULL), (4, '{7}');
SELECT t.id, k.x, k.n FROM lr_t t, information_schema._pg_expandarray(t.arr) k ORDER BY t.id, k.n;
SELECT * FROM lr_t t, information_schema._pg_expandarray(t.arr) k ORDER BY t.id, k.n;
SELECT t.id, e.a, e.b FROM lr_t t, information_schema._pg_expandarray(t.arr) AS e(a, b) WHERE e.b > 1 ORDER BY 1, 3;
SELECT t.id, e.a, e.n FROM lr_t t, information_schema._pg_expandarray(t.arr) AS e(a) ORDER BY 1, 3;
SELECT t.id, count(k.x), sum(k.x) FROM lr_t t, information_schema._pg_expandarray(t.arr) k GROUP BY t.id ORDER BY 1;
SELECT t.id, e.a FROM lr_t t, information_schema._pg_expandarray(t.arr) AS e(a, b, c);
SELECT t.id, k.nope FROM lr_t t, information_schema._pg_expandarray(t.arr) k;
