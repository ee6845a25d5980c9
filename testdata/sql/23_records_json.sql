-- Record values (ROW(...), whole-row references) inside expressions; conversion to JSON.
CREATE TABLE rc (id int PRIMARY KEY, name text, price numeric(8,2), tags text[], meta jsonb, doc json, at timestamptz, ts timestamp, ok bool);
INSERT INTO rc VALUES (1, 'a b', 9.50, '{x,y}', '{"k": [1, 2]}', '{"z" :  1}', '2024-01-02 03:04:05+00', '2024-01-02 03:04:05', true),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (3, 'q"uote', 0, '{}', 'null', '[1,2]', '2024-06-01 00:00:00+00', '2024-06-01 12:00:00.5', false);
SELECT (ROW(id, name)).f2, (ROW(id, name)).f1 + 1 FROM rc ORDER BY id;
SELECT row_to_json(rc) FROM rc ORDER BY id;
SELECT to_json(rc), to_jsonb(rc) FROM rc ORDER BY id;
SELECT row_to_json(s) FROM (SELECT id, name AS n FROM rc) s ORDER BY 1;
SELECT row_to_json(s) FROM (SELECT id, name AS n FROM rc) s ORDER BY s.id;
SELECT row_to_json(rc, true) FROM rc WHERE id = 1;
SELECT row_to_json(rc, false) FROM rc WHERE id = 3;
SELECT json_agg(rc ORDER BY id) FROM rc;
SELECT jsonb_agg(t ORDER BY t.id) FROM (SELECT id, ok FROM rc) t;
SELECT json_agg(tags) FROM rc;
SELECT row_to_json(ROW(1, 'x')), to_jsonb(ROW(1, NULL, 'y')), to_json(ROW(2.50, true));
SELECT id, (SELECT row_to_json(x) FROM (SELECT rc.name, rc.price) x) FROM rc ORDER BY id;
SELECT json_build_object('row', rc), jsonb_build_object('row', rc) FROM rc WHERE id = 1;
SELECT to_json(at), to_json(ts), to_jsonb(at), json_build_array(at, ts) FROM rc ORDER BY id;
SELECT to_json(meta), to_json(doc), json_build_object('m', meta, 'd', doc), jsonb_build_object('d', doc), json_agg(doc) OVER (ORDER BY id) FROM rc ORDER BY id;
SELECT json_agg(doc), json_agg(meta), jsonb_agg(doc) FROM rc;
SELECT g.id, row_to_json(g) FROM (rc a JOIN rc b USING (id)) AS g WHERE g.id = 1;
SELECT count(*) FROM rc WHERE row_to_json(rc)::text LIKE '%"ok":true%';
SELECT row_to_json(1);
SELECT doc FROM rc ORDER BY doc;
-- unsupported
SELECT rc FROM rc;
-- unsupported
SELECT row_to_json(ROW(ROW(1, 2), 3));
