-- json_each and its variants as FROM items WITH ORDINALITY (with and
-- without column aliases), joined laterally to a table.
select * from json_each('{"a":1,"b":[2,3]}') with ordinality;
select * from jsonb_each('{"b":2,"a":{"x":1}}') with ordinality as x(k, v, n);
select * from json_each_text('{"a":"t","b":null}') with ordinality as x(k);
select k, n from jsonb_each_text('{"z":"1","y":"2"}') with ordinality as x(k, v, n) order by n desc;
create table json_each_docs (id int, doc jsonb);
insert into json_each_docs values (1, '{"p":1,"q":2}'), (2, '{"r":3}');
select d.id, e.* from json_each_docs d, jsonb_each(d.doc) with ordinality e order by d.id, e.ordinality;
select * from json_each('[1,2]') with ordinality;
drop table json_each_docs;
