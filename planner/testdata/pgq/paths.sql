-- Path selectors (ALL SHORTEST, ANY k, SHORTEST k), path modes (WALK,
-- TRAIL, ACYCLIC, SIMPLE) and path variables with path_length, over a
-- graph with cycles, a self-loop and parallel edges. Each GRAPH_TABLE
-- query is followed by its equivalent in PostgreSQL 15 SQL, written by
-- hand (walks enumerated by WITH RECURSIVE, the path kept as an array
-- where the mode needs it).
create table node (id int primary key, name text);
create table link (src int not null references node (id), dst int not null references node (id), w int) with (graph.kind = edge);
create table road (rid int primary key, a int not null references node (id), b int not null references node (id));
insert into node values (1, 'n1'), (2, 'n2'), (3, 'n3'), (4, 'n4'), (5, 'n5'), (6, 'n6');
insert into link values (1, 2, 1), (2, 3, 1), (3, 1, 1), (1, 2, 2), (3, 4, 1), (4, 4, 1), (4, 5, 1), (2, 5, 3), (5, 6, 1);
insert into road select row_number() over (order by src, dst, w), src, dst from link;
create property graph roads vertex tables (node) edge tables (road source key (a) references node (id) destination key (b) references node (id));

-- ALL SHORTEST: every walk of the shortest length per pair
select * from graph_table (graph match all shortest (a is node where a.id = 1)-[is link]->{1,4}(b) columns (b.id));
with recursive w(d, n) as (select 1, 0 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 4) select d as id from w where n >= 1 and n = (select min(n) from w v where v.d = w.d and v.n >= 1);

select count(*) from graph_table (graph match all shortest (a is node)-[is link]->{1,3}(b is node) columns (a.id));
with recursive w(s, d, n) as (select id, id, 0 from node union all select w.s, l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 3) select count(*) from w where n >= 1 and n = (select min(n) from w v where v.s = w.s and v.d = w.d and v.n >= 1);

select * from graph_table (graph match all shortest (a is node where a.id = 4)-[is link]-{1,2}(b) columns (b.id));
with recursive e(s, d) as (select src, dst from link union all select dst, src from link where src <> dst), w(d, n) as (select 4, 0 union all select e.d, w.n + 1 from w join e on e.s = w.d where w.n < 2) select d as id from w where n >= 1 and n = (select min(n) from w v where v.d = w.d and v.n >= 1);

select * from graph_table (graph match all shortest (a is node where a.id = 6)-[is link]->{1,3}(b) columns (b.id));
select 1 as id where false;

select * from graph_table (graph match all shortest (a is node where a.id = 1)-[is link]->{0,3}(b) columns (b.id));
with recursive w(d, n) as (select 1, 0 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 3) select d as id from w where n = (select min(n) from w v where v.d = w.d);

-- ANY k and SHORTEST k: k walks per pair
select * from graph_table (graph match any 2 (a is node where a.id = 1)-[is link]->{1,4}(b) columns (b.id));
with recursive w(d, n) as (select 1, 0 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 4), c as (select d, count(*) as k from w where n >= 1 group by d) select d as id from c cross join generate_series(1, least(k, 2)::int);

select * from graph_table (graph match any (a is node where a.id = 2)-[is link]->{1,3}(b) columns (b.id));
with recursive w(d, n) as (select 2, 0 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 3) select distinct d as id from w where n >= 1;

select * from graph_table (graph match p = shortest 2 (a is node where a.id = 1)-[is link]->{1,5}(b) columns (b.id, path_length(p) as len));
with recursive w(d, n) as (select 1, 0 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 5) select t.d as id, x.n as len from (select distinct d from w where n >= 1) t cross join lateral (select n from w v where v.d = t.d and v.n >= 1 order by n limit 2) x;

select * from graph_table (graph match p = shortest 3 (a is node)-[is link]->{1,3}(b is node) where a.id = 3 columns (b.id, path_length(p) as len));
with recursive w(d, n) as (select 3, 0 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 3) select t.d as id, x.n as len from (select distinct d from w where n >= 1) t cross join lateral (select n from w v where v.d = t.d and v.n >= 1 order by n limit 3) x;

-- path modes on a quantified edge
select * from graph_table (graph match acyclic (a is node where a.id = 1)-[is link]->{1,5}(b) columns (b.id));
with recursive w(d, n, p) as (select 1, 0, array[1] union all select l.dst, w.n + 1, w.p || l.dst from w join link l on l.src = w.d where w.n < 5 and not l.dst = any(w.p)) select d as id from w where n >= 1;

select * from graph_table (graph match simple (a is node where a.id = 1)-[is link]->{1,5}(b) columns (b.id));
with recursive w(d, n, p) as (select 1, 0, array[1] union all select l.dst, w.n + 1, w.p || l.dst from w join link l on l.src = w.d where w.n < 5 and (w.n = 0 or w.d <> 1) and (not l.dst = any(w.p) or l.dst = 1)) select d as id from w where n >= 1;

select * from graph_table (graph match simple (a is node where a.id = 4)-[is link]->{1,3}(b) columns (b.id));
select id from (values (4), (5), (6)) v (id);

select * from graph_table (graph match acyclic (a is node where a.id = 4)-[is link]->{1,3}(b) columns (b.id));
select id from (values (5), (6)) v (id);

select * from graph_table (graph match walk (a is node where a.id = 4)-[is link]->{1,2}(b) columns (b.id));
select id from (values (4), (4), (5), (5), (6)) v (id);

select count(*) from graph_table (graph match acyclic (a is node)-[is link]-{1,4}(b is node) columns (a.id));
with recursive e(s, d) as (select src, dst from link union all select dst, src from link where src <> dst), w(s, d, n, p) as (select id, id, 0, array[id] from node union all select w.s, e.d, w.n + 1, w.p || e.d from w join e on e.s = w.d where w.n < 4 and not e.d = any(w.p)) select count(*) from w where n >= 1;

select * from graph_table (roads match trail (a where a.id = 4)-[r]->{1,4}(b) columns (b.id));
with recursive w(d, n, p) as (select 4, 0, array[]::int[] union all select r.b, w.n + 1, w.p || r.rid from w join road r on r.a = w.d where w.n < 4 and not r.rid = any(w.p)) select d as id from w where n >= 1;

select count(*) from graph_table (roads match trail (a)-[r]->{1,6}(b) columns (a.id));
with recursive w(s, d, n, p) as (select id, id, 0, array[]::int[] from node union all select w.s, r.b, w.n + 1, w.p || r.rid from w join road r on r.a = w.d where w.n < 6 and not r.rid = any(w.p)) select count(*) from w where n >= 1;

select * from graph_table (roads match any shortest acyclic (a where a.id = 1)-[r]->{1,3}(b) columns (b.id));
with recursive w(d, n) as (select 1, 0 union select r.b, w.n + 1 from w join road r on r.a = w.d where w.n < 3) select distinct d as id from w where n >= 1 and d <> 1;

select * from graph_table (roads match any shortest (a where a.id = 1)-[r]->{1,3}(b) columns (b.id));
with recursive w(d, n) as (select 1, 0 union select r.b, w.n + 1 from w join road r on r.a = w.d where w.n < 3) select distinct d as id from w where n >= 1;

-- path modes on paths without quantifiers
select * from graph_table (graph match acyclic (a is node)-[is link]->(b is node)-[is link]->(c is node) columns (a.id as a, b.id as b, c.id as c));
select l.src as a, l.dst as b, m.dst as c from link l join link m on m.src = l.dst where l.src <> l.dst and m.src <> m.dst and l.src <> m.dst;

select * from graph_table (graph match simple (a is node)-[is link]->(b is node)-[is link]->(c is node) columns (a.id as a, b.id as b, c.id as c));
select l.src as a, l.dst as b, m.dst as c from link l join link m on m.src = l.dst where l.src <> l.dst and m.src <> m.dst;

select * from graph_table (graph match simple (a is node)-[is link]->(b is node)-[is link]->(a) columns (a.id as a, b.id as b));
select l.src as a, l.dst as b from link l join link m on m.src = l.dst and m.dst = l.src where l.src <> l.dst;

select * from graph_table (graph match acyclic (a is node)-[is link]->(b is node)-[is link]->(a) columns (a.id as a));
select 1 as a where false;

select * from graph_table (roads match trail (a)-[r]->(b)-[s]->(c) where a.id = 4 columns (r.rid as r, s.rid as s, c.id as c));
select r.rid as r, s.rid as s, s.b as c from road r join road s on s.a = r.b where r.a = 4 and r.rid <> s.rid;

select * from graph_table (roads match walk (a)-[r]->(b)-[s]->(c) where a.id = 4 columns (r.rid as r, s.rid as s, c.id as c));
select r.rid as r, s.rid as s, s.b as c from road r join road s on s.a = r.b where r.a = 4;

select * from graph_table (roads match trail (a)-[r]->(b)-[r]->(c) columns (a.id));
select 1 as id where false;

-- path variables
select * from graph_table (graph match p = (a is node)-[is link]->(b is node) where a.id = 2 columns (b.id, path_length(p) as len));
select dst as id, 1 as len from link where src = 2;

select * from graph_table (graph match p = (a is node where a.id = 1)-[is link]->{0,2}(b) columns (b.id, path_length(p) as len));
with recursive w(d, n) as (select 1, 0 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 2) select d as id, n as len from w;

select * from graph_table (graph match p = (a is node where a.id = 3)-[is link]->(b)-[is link]->{1,2}(c) where path_length(p) = 3 columns (c.id));
with recursive w(d, n) as (select l.dst, 1 from link l where l.src = 3 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 3) select d as id from w where n = 3;

select * from graph_table (graph match p = (a is node where a.id = 5)-[is link]->(b), q = (b)-[is link]->(c) columns (c.id, path_length(p) + path_length(q) as len));
select m.dst as id, 2 as len from link l join link m on m.src = l.dst where l.src = 5;

select max(len) from graph_table (graph match p = any shortest (a is node)-[is link]->{1,6}(b is node) columns (path_length(p) as len));
with recursive w(s, d, n) as (select id, id, 0 from node union select w.s, l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 6) select max(n) from (select s, d, min(n) as n from w where n >= 1 group by s, d) x;

-- vertices only passed through are not joined when the edges guarantee
-- them (NOT NULL endpoints under foreign keys)
select * from graph_table (graph match (a is node where a.id = 1)-[is link]->(b)-[is link]->(c)-[is link]->(d) columns (d.id));
select l3.dst as id from link l1 join link l2 on l2.src = l1.dst join link l3 on l3.src = l2.dst where l1.src = 1;

select * from graph_table (graph match (a is node)-[is link]->()-[is link]->(c) columns (a.id as a, c.id as c));
select l1.src as a, l2.dst as c from link l1 join link l2 on l2.src = l1.dst;

select * from graph_table (graph match (a is node)<-[is link]-()-[is link]->(c) where a.id = 2 columns (c.id));
select l2.dst as id from link l1 join link l2 on l2.src = l1.src where l1.dst = 2;

-- errors
-- error 0A000 TRAIL over an edge table without a
select * from graph_table (graph match trail (a is node)-[is link]->{1,2}(b) columns (a.id));

-- error 0A000 TRAIL over an edge table without a key
select * from graph_table (graph match trail (a is node)-[is link]->(b)-[is link]->(c) columns (a.id));

-- error 42601 path variable "p" is used more than once
select * from graph_table (graph match p = (a is node), p = (b is node) columns (a.id));

-- every edge is a shortest path between its ends (parallel edges too)
select * from graph_table (graph match all shortest (a is node)-[is link]->(b) columns (a.id));
select src as id from link;

select * from graph_table (graph match any 1 (a is node)-[is link]->(b) columns (a.id, b.id as b));
select distinct src as id, dst as b from link;

-- path modes on paths with quantified edges among other elements: the
-- walks record their vertices (edges under TRAIL) and the mode holds
-- across the whole path
select * from graph_table (graph match acyclic (a is node where a.id = 1)-[is link]->{1,2}(b)-[is link]->(c) columns (b.id as b, c.id as c));
with recursive w(d, n, p) as (select 1, 0, array[1] union all select l.dst, w.n + 1, w.p || l.dst from w join link l on l.src = w.d where w.n < 3 and not l.dst = any (w.p)) select p[n] as b, d as c from w where n >= 2;

select * from graph_table (graph match acyclic (a is node where a.id = 1)-[is link]->{1,2}(b)-[is link]->{1,2}(c) columns (b.id as b, c.id as c));
with recursive w(d, n, p) as (select 1, 0, array[1] union all select l.dst, w.n + 1, w.p || l.dst from w join link l on l.src = w.d where w.n < 4 and not l.dst = any (w.p)) select p[k + 1] as b, d as c from w cross join generate_series(1, 2) as k where w.n - k between 1 and 2;

select * from graph_table (roads match trail (a where a.id = 4)-[r]->(b)-[s]->{1,3}(c) columns (r.rid as r, c.id as c));
with recursive w(d, n, e, first) as (select r.b, 1, array[r.rid], r.rid from road r where r.a = 4 union all select x.b, w.n + 1, w.e || x.rid, w.first from w join road x on x.a = w.d where w.n < 4 and not x.rid = any (w.e)) select first as r, d as c from w where n >= 2;

-- SIMPLE on such paths: no vertex twice, but the path may end where it began
select * from graph_table (graph match simple (a is node where a.id = 1)-[is link]->{1,2}(b)-[is link]->(c) columns (b.id as b, c.id as c));
with recursive w(d, n, p) as (select 1, 0, array[1] union all select l.dst, w.n + 1, w.p || l.dst from w join link l on l.src = w.d where w.n < 3 and (not l.dst = any (w.p) or l.dst = 1) and (w.n = 0 or w.d <> 1)) select p[n] as b, d as c from w where n >= 2;

select * from graph_table (graph match simple (a is node where a.id = 3)-[is link]->(b)-[is link]->{1,2}(c) columns (b.id as b, c.id as c));
with recursive w(d, n, p) as (select 3, 0, array[3] union all select l.dst, w.n + 1, w.p || l.dst from w join link l on l.src = w.d where w.n < 3 and (not l.dst = any (w.p) or l.dst = 3) and (w.n = 0 or w.d <> 3)) select p[2] as b, d as c from w where n >= 2;

select * from graph_table (graph match simple (a is node where a.id = 1)-[is link]->{1,2}(b)-[is link]->{1,2}(c) columns (b.id as b, c.id as c));
with recursive w(d, n, p) as (select 1, 0, array[1] union all select l.dst, w.n + 1, w.p || l.dst from w join link l on l.src = w.d where w.n < 4 and (not l.dst = any (w.p) or l.dst = 1) and (w.n = 0 or w.d <> 1)) select p[k + 1] as b, d as c from w cross join generate_series(1, 2) as k where w.n - k between 1 and 2;

-- parenthesized path patterns: their elements join the path where they
-- stand, their WHERE filters the matches (before a selector)
select * from graph_table (graph match ((a is node)-[e is link]->(b) where e.w > 1) columns (a.id as a, b.id as b));
select src as a, dst as b from link where w > 1;

select * from graph_table (graph match (a is node where a.id = 3)-[is link]->((b)-[is link]->(c) where b.id <> c.id)-[is link]->(d) columns (b.id as b, c.id as c, d.id as d));
select l2.src as b, l2.dst as c, l3.dst as d from link l1 join link l2 on l2.src = l1.dst join link l3 on l3.src = l2.dst where l1.src = 3 and l2.src <> l2.dst;

select * from graph_table (graph match p = any shortest ((a is node where a.id = 1)-[is link]->{1,4}(b) where b.id <> 2) columns (b.id, path_length(p) as len));
with recursive w(d, n) as (select 1, 0 union all select l.dst, w.n + 1 from w join link l on l.src = w.d where w.n < 4) select d as id, min(n) as len from w where n >= 1 and d <> 2 group by d;

-- error 0A000 quantified parenthesized path patterns are not supported
select * from graph_table (graph match ((a is node)-[is link]->(b)){1,2} columns (a.id));

-- error 0A000 concatenated without an edge pattern
select * from graph_table (graph match (a is node)((b)-[is link]->(c)) columns (a.id));

-- an int endpoint referencing a bigint key: the key read through the
-- edge keeps the vertex's type
create table big (id bigint primary key, name text);
create table tie (src int not null references big (id), dst int not null references big (id)) with (graph.kind = edge);
insert into big values (1, 'x'), (2, 'y'), (3, 'z');
insert into tie values (1, 2), (2, 3), (3, 1), (2, 1);

select * from graph_table (graph match (a is big where a.id = 1)-[is tie]->(b)-[is tie]->(c) columns (c.id, b.id as mid));
select t2.dst::bigint as id, t1.dst::bigint as mid from tie t1 join tie t2 on t2.src = t1.dst where t1.src = 1;
