-- Range conditions on indexed integer columns (primary keys, CREATE
-- INDEX columns, edge endpoints) read the keys in range through the
-- index; small and large ranges, strict and inclusive bounds, NULL and
-- out-of-type bounds, pending writes of a transaction, joins driven by
-- a range, and ORDER BY ... LIMIT in key order; answers equal to
-- PostgreSQL 15's.
create table ir_node (id int primary key, small int2, big int8, name text);
create index ir_node_small on ir_node (small);
create index ir_node_big on ir_node (big);
create table ir_edge (src bigint not null, dst bigint not null, w int);
create index ir_edge_src on ir_edge (src);
create index ir_edge_dst on ir_edge (dst);
insert into ir_node select g, (g % 300)::int2, g::int8 * 1000000007, 'n' || g from generate_series(1, 4000) g;
insert into ir_node values (4001, null, null, 'nulls');
insert into ir_edge select (g * 7) % 3000 + 1, (g * 13) % 4000 + 1, g % 23 from generate_series(1, 12000) g;
select count(*), min(id), max(id) from ir_node where id between 100 and 199;
select id, name from ir_node where id > 3990 order by id;
select id from ir_node where id >= 3998 and id < 4001 order by id;
select id from ir_node where id < 3 order by id;
select id from ir_node where id <= 0;
select id from ir_node where id > 5 and id < 5;
select id from ir_node where id between 10 and 9;
select count(*) from ir_node where id > null;
select count(*) from ir_node where id between 2 and 3000 and id > 2990;
select count(*) from ir_node where id > -2147483648;
select count(*), sum(id) from ir_node where small between 10 and 12;
select count(*) from ir_node where small > 100000;
select count(*) from ir_node where small < -40000;
select id from ir_node where small >= 299 and id < 1000 order by id;
select count(*) from ir_node where big > 3999 * 1000000007::int8;
select id from ir_node where big <= 2000000014 order by id;
select id from ir_node where big < -9223372036854775807 order by id;
select src, dst, w from ir_edge where src between 10 and 12 order by src, dst, w;
select count(*), count(distinct dst) from ir_edge where dst > 3995;
select count(*), count(distinct e2.dst) from ir_edge e1 join ir_edge e2 on e2.src = e1.dst where e1.src between 100 and 140;
select count(*), count(distinct n.name) from ir_edge e1 join ir_edge e2 on e2.src = e1.dst join ir_node n on n.id = e2.dst where e1.src between 1 and 50 and n.small < 100;
select n.small, count(*), sum(e.w) from ir_edge e join ir_node n on n.id = e.dst % 100 + 1 where e.src < 200 group by n.small order by n.small;
select count(*) from ir_edge e left join ir_node n on n.id = e.dst % 150 + 3990 where e.src < 230 and n.id is null;
select n.id, e.dst from ir_node n left join ir_edge e on e.src = n.id where n.id between 2995 and 3005 order by n.id, e.dst;
select n.id from ir_node n where n.id < 60 and not exists (select 1 from ir_edge e where e.src = n.id) order by n.id;
select n.id from ir_node n where n.id between 1 and 30 and exists (select 1 from ir_edge e where e.dst = n.id and e.src > 2900) order by n.id;
select n.id, (select count(*) from ir_edge e where e.src = n.id and e.dst between 1 and 2000) from ir_node n where n.id between 7 and 11 order by n.id;
select n.id, x.c from ir_node n cross join lateral (select count(*) as c from ir_edge e where e.src = n.id and e.dst > n.id) x where n.id < 6 order by n.id;
select e.src, e.dst, n.name from ir_edge e join ir_node n on n.id = e.src order by e.src desc, e.dst desc limit 3;
select e.src, e.dst from ir_edge e order by e.src, e.dst limit 4;
select e.src, e.dst from ir_edge e where e.src > 2990 order by e.src desc, e.dst limit 5;
select id, name from ir_node order by id desc limit 2;
select id from ir_node order by id limit 3 offset 2;
select small, id from ir_node order by small desc nulls last, id limit 3;
select small, id from ir_node order by small desc, id limit 3;
select big, id from ir_node where big is not null order by big limit 2;
prepare r(int, int) as select count(*), min(id), max(id) from ir_node where id between $1 and $2;
execute r(5, 25);
execute r(30, 20);
execute r(null, 20);
prepare s(bigint) as select count(*) from ir_edge e1 join ir_edge e2 on e2.src = e1.dst where e1.src between $1 and $1 + 20;
execute s(1);
execute s(2990);
-- new versions and pending writes
delete from ir_node where id between 150 and 160;
update ir_node set id = id + 10000 where id between 170 and 172;
insert into ir_node values (165, 7, 7, 'again');
select id from ir_node where id between 145 and 175 order by id;
select id from ir_node where id > 9000 order by id;
begin;
delete from ir_node where id between 180 and 185;
insert into ir_node values (4500, 1, 1, 'tx'), (181, 2, 2, 'tx2');
select id, name from ir_node where id between 178 and 190 order by id;
select id, name from ir_node where id > 4001 order by id;
select id from ir_node order by id desc limit 3;
select count(*) from ir_edge e join ir_node n on n.id = e.dst where n.id between 178 and 190;
rollback;
select id from ir_node where id between 178 and 190 order by id;
set enable_hashjoin = off;
select count(*), count(distinct e2.dst) from ir_edge e1 join ir_edge e2 on e2.src = e1.dst where e1.src between 100 and 140;
select e.src, e.dst, n.name from ir_edge e join ir_node n on n.id = e.src order by e.src desc, e.dst desc limit 3;
set enable_hashjoin = on;
set enable_nestloop = off;
select count(*), count(distinct e2.dst) from ir_edge e1 join ir_edge e2 on e2.src = e1.dst where e1.src between 100 and 140;
select e.src, e.dst, n.name from ir_edge e join ir_node n on n.id = e.src order by e.src desc, e.dst desc limit 3;
reset enable_nestloop;
analyze;
select count(*) from ir_node where id between 100 and 300;
select count(*), count(distinct e2.dst) from ir_edge e1 join ir_edge e2 on e2.src = e1.dst where e1.src between 100 and 140;
-- an outer input of several batches repeating few keys: one lookup of its distinct keys
create table ir_big (id int primary key, g int);
insert into ir_big select g, g % 37 from generate_series(1, 20000) g;
select b.g, count(*), sum(e.w) from ir_edge e join ir_big b on b.id = (e.dst % 500 + 1)::int where e.src < 600 group by b.g order by b.g;
select count(*) from ir_edge e where e.src < 600 and exists (select 1 from ir_big b where b.id = (e.dst % 500 + 19990)::int);
