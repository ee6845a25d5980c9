-- Functions that return one value as FROM items (TypeORM's SELECT * FROM
-- current_schema()): one row, the column named after the item, WITH
-- ORDINALITY, aliases, and joined with a set-returning function.
select * from current_schema();
select * from current_schema() as s;
select s.* from current_schema() as s(x);
select * from upper('abc') with ordinality;
select * from upper('abc') with ordinality as u(v, n);
select current_schema from current_schema();
select * from abs(-3) a, generate_series(1, 2) g;
select * from nosuchfn();
select * from length(1, 2);
create table comma_join_a (id int, a text);
create table comma_join_b (id int, b text);
create table comma_join_c (id int, c text);
insert into comma_join_a select g, 'a' || g from generate_series(1, 50) g;
insert into comma_join_b select g, 'b' || g from generate_series(1, 50) g;
insert into comma_join_c select g, 'c' || g from generate_series(45, 60) g;
-- related items join first (exec/join_order.go); * keeps FROM order
select * from comma_join_a, comma_join_b, comma_join_c where comma_join_a.id = comma_join_c.id and comma_join_b.id = comma_join_c.id order by 1;
