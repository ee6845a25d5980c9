-- Bound parameters ($n as untyped text on both sides): ORM pagination, ANY($1), keyset rows, frames
CREATE TABLE pt (id int PRIMARY KEY, name text, score numeric(6,2), at timestamptz, tags text[]);
INSERT INTO pt VALUES (1, 'ann', 1.5, '2024-01-01 00:00+00', '{a}'), (2, 'bob', 2.5, '2024-01-02 00:00+00', '{b,c}'), (3, 'cid', NULL, NULL, NULL), (4, 'Dan', 4, '2024-01-04 00:00+00', '{}');
-- params: 2
SELECT id FROM pt ORDER BY id FETCH FIRST $1 ROWS ONLY;
-- params: 1 | 2
SELECT id FROM pt ORDER BY id OFFSET $1 ROWS FETCH NEXT $2 ROWS ONLY;
-- params: {1,3}
SELECT id, name FROM pt WHERE id = ANY($1) ORDER BY id;
-- params: bob
SELECT id FROM pt WHERE $1::text IS NULL OR name = $1 ORDER BY id;
-- params: %A%
SELECT id FROM pt WHERE name ILIKE $1 ORDER BY id;
-- params: 2024-01-02
SELECT id FROM pt WHERE at >= $1 ORDER BY id;
-- params: 2.5 | 2
SELECT id FROM pt WHERE (score, id) < ($1, $2) ORDER BY score DESC, id DESC;
-- params: b
SELECT id FROM pt WHERE $1 = ANY(tags) ORDER BY id;
-- params: {b}
SELECT id FROM pt WHERE tags && $1 ORDER BY id;
-- params: 1
SELECT id, name FROM pt p LEFT JOIN LATERAL (SELECT count(*) AS c FROM pt q WHERE q.id > p.id + $1) s ON true ORDER BY id;
-- params: x
SELECT coalesce($1, name) FROM pt ORDER BY id;
-- params: 3
SELECT id FROM pt ORDER BY id LIMIT $1 FETCH FIRST 1 ROW WITH TIES;
-- params: 2
SELECT id FROM pt ORDER BY id FETCH FIRST $1 ROWS WITH TIES;
-- params: {"a":1}
SELECT jsonb_set($1::jsonb, '{b}', '2');
-- params: 1 day
SELECT count(*) OVER (ORDER BY at RANGE BETWEEN $1::interval PRECEDING AND CURRENT ROW) FROM pt ORDER BY id;
