-- LIKE/ILIKE/regex ANY/ALL over subqueries
CREATE TABLE lk (id int PRIMARY KEY, name text);
CREATE TABLE pat (p text);
INSERT INTO lk VALUES (1, 'apple'), (2, 'banana'), (3, NULL), (4, 'cherry');
INSERT INTO pat VALUES ('a%'), ('%rr%');
SELECT id, name LIKE ANY (SELECT p FROM pat), name NOT LIKE ALL (SELECT p FROM pat), name ILIKE ANY (SELECT upper(p) FROM pat) FROM lk ORDER BY id;
SELECT id FROM lk WHERE name ~ ANY (SELECT 'an' UNION ALL SELECT '^c') ORDER BY id;
SELECT id, name LIKE ANY (SELECT p FROM pat WHERE false), name LIKE ALL (SELECT p FROM pat WHERE false) FROM lk ORDER BY id;
SELECT id, name LIKE ANY (SELECT p FROM pat UNION ALL SELECT NULL) FROM lk ORDER BY id;
SELECT id FROM lk l WHERE name LIKE ANY (SELECT substr(l2.name, 1, 1) || '%' FROM lk l2 WHERE l2.id <> l.id) ORDER BY id;
SELECT 1 + ANY (SELECT 1);
