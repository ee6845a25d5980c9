-- Traversals through the Lance-backed indexes (covering lookups from the
-- column cache for integer columns, Lance reads for the others) with
-- each join method forced, before and after deletes and updates, and
-- after ANALYZE; answers equal to PostgreSQL 15's.
create table lj_node (id int primary key, name text, age int);
create table lj_edge (src int not null, dst int not null, w int, since date, note text);
create index lj_edge_src on lj_edge (src);
create index lj_edge_dst on lj_edge (dst);
insert into lj_node select g, 'n' || g, 18 + g % 50 from generate_series(1, 3000) g;
insert into lj_edge select (g * 7) % 2500 + 1, (g * 13) % 3000 + 1, case when g % 9 = 0 then null else g % 17 end, date '2020-01-01' + g % 400, 'e' || g from generate_series(1, 9000) g;
set enable_hashjoin = off;
select count(*), count(distinct e2.dst), sum(e2.w) from lj_edge e1 join lj_edge e2 on e2.src = e1.dst where e1.src = 8;
select e.dst, e.w, e.since, n.name from lj_edge e join lj_node n on n.id = e.dst where e.src = 15 order by e.dst, e.w;
select e2.dst, e2.w from lj_edge e1 join lj_edge e2 on e2.src = e1.dst where e1.src = 22 and e2.w is not null order by e2.w desc, e2.dst limit 5;
select n.id, (select count(*) from lj_edge e where e.dst = n.id) from lj_node n where n.id in (5, 6, 7, 2999) order by n.id;
select n.id from lj_node n where n.id < 40 and not exists (select 1 from lj_edge e where e.src = n.id) order by n.id;
select n.id, e.dst from lj_node n left join lj_edge e on e.src = n.id and e.w > 10 where n.id between 2495 and 2505 order by n.id, e.dst;
with recursive r(node, depth) as (select 3, 0 union all select e.dst, r.depth + 1 from r join lj_edge e on e.src = r.node where r.depth < 3) select depth, count(*), count(distinct node) from r group by depth order by depth;
with recursive r(node, depth) as (select 3, 0 union select e.dst, r.depth + 1 from r join lj_edge e on e.src = r.node where r.depth < 4) select depth, count(*) from r group by depth order by depth;
with recursive r(node, depth) as (select 3, 0 union all select e.dst, r.depth + 1 from r join lj_edge e on e.src = r.node where r.depth < 4) cycle node set is_cycle using path select count(*), count(*) filter (where is_cycle) from r;
with recursive r(node, path) as (select 3, array[3] union all select e.dst, r.path || e.dst from r join lj_edge e on e.src = r.node where cardinality(r.path) < 4 and not e.dst = any (r.path)) select count(*), max(cardinality(path)) from r;
with recursive r(node, depth) as (select 3, 0 union all select e.dst, r.depth + 1 from r join lj_edge e on e.src = r.node where r.depth < 6) search breadth first by node set ord select node, depth from r order by ord limit 12;
set enable_hashjoin = on;
set enable_nestloop = off;
select count(*), count(distinct e2.dst), sum(e2.w) from lj_edge e1 join lj_edge e2 on e2.src = e1.dst where e1.src = 8;
select e.dst, e.w, e.since, n.name from lj_edge e join lj_node n on n.id = e.dst where e.src = 15 order by e.dst, e.w;
with recursive r(node, depth) as (select 3, 0 union all select e.dst, r.depth + 1 from r join lj_edge e on e.src = r.node where r.depth < 3) select depth, count(*), count(distinct node) from r group by depth order by depth;
reset enable_nestloop;
-- new versions: deleted and updated edges must not be found, new ones must
delete from lj_edge where src = 8 and dst % 2 = 0;
update lj_edge set dst = 1, w = 99 where src = 15 and w < 5;
insert into lj_edge values (8, 2, 7, '2021-01-01', 'new'), (15, 2, null, null, null);
select count(*), count(distinct e2.dst), sum(e2.w) from lj_edge e1 join lj_edge e2 on e2.src = e1.dst where e1.src = 8;
select e.dst, e.w, e.since from lj_edge e where e.src = 15 order by e.dst, e.w nulls first;
select e.src, e.w from lj_edge e where e.dst = 1 order by e.src, e.w;
begin;
delete from lj_edge where src = 22;
insert into lj_edge values (22, 5, 1, null, 'tx');
select e2.dst, e2.w from lj_edge e1 join lj_edge e2 on e2.src = e1.dst where e1.src = 22 order by e2.dst, e2.w;
rollback;
select count(*) from lj_edge e1 join lj_edge e2 on e2.src = e1.dst where e1.src = 22;
analyze;
select count(*), count(distinct e3.dst) from lj_edge e1 join lj_edge e2 on e2.src = e1.dst join lj_edge e3 on e3.src = e2.dst where e1.src = 8;
select n.age, count(*) from lj_edge e join lj_node n on n.id = e.dst where e.src in (1, 2, 3, 4) group by n.age order by n.age;
