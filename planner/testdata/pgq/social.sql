-- A social graph: people, who knows whom (cycles, a self-loop, parallel
-- edges, NULL properties) and who follows whom (a second edge table over
-- the same vertex table). Each GRAPH_TABLE query is followed by its
-- equivalent in PostgreSQL 15 SQL, written by hand.
create table person (id int primary key, name text, age int, city text);
create table knows (src int not null references person (id), dst int not null references person (id), since int, w float8) with (graph.kind = edge);
create table follows (src int not null references person (id), dst int not null references person (id), at text) with (graph.kind = edge);
insert into person values (1, 'Ada', 36, 'London'), (2, 'Bob', 25, 'Paris'), (3, 'Cy', null, 'London'), (4, 'Dee', 41, null), (5, null, 30, 'Paris'), (6, 'Eve', 22, 'Rome');
insert into knows values (1, 2, 2010, 1.0), (2, 3, 2012, 0.5), (3, 1, 2015, null), (1, 2, 2020, 2.0), (4, 4, 2018, 1.5), (2, 4, null, 0.7), (4, 5, 2019, 1.1), (5, 1, 2021, null), (1, 3, 2011, 0.9);
insert into follows values (1, 4, 'x'), (4, 1, 'y'), (2, 2, 'z'), (3, 5, null), (6, 1, 'w');

select * from graph_table (graph match (a is person where a.name = 'Ada')-[k is knows]->(b is person) columns (b.name, k.since));
select b.name, k.since from person a join knows k on k.src = a.id join person b on b.id = k.dst where a.name = 'Ada';

select * from graph_table (graph match (a)-[k]->(b) columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a join knows k on k.src = a.id join person b on b.id = k.dst union all select a.id, b.id from person a join follows k on k.src = a.id join person b on b.id = k.dst;

select * from graph_table (graph match (a is person)<-[k is knows]-(b is person) columns (a.id as a, b.id as b, k.w));
select a.id as a, b.id as b, k.w from person a join knows k on k.dst = a.id join person b on b.id = k.src;

select * from graph_table (graph match (a is person)-[k is knows]-(b is person) columns (a.id as a, b.id as b, k.since));
select a.id as a, b.id as b, k.since from person a join knows k on k.src = a.id or k.dst = a.id join person b on (k.src = a.id and b.id = k.dst) or (k.dst = a.id and b.id = k.src);

select * from graph_table (graph match (a is person where a.id = 1)-[is knows]->{1,3}(b is person) columns (b.id));
with recursive r(d, n) as (select 1, 0 union all select k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 3) select d as id from r where n >= 1;

-- error 42704
select * from graph_table (graph match (a is nosuch) columns (a.id));

-- error 42601
select * from graph_table (graph match (a is person) columns (a.nosuch));

-- error 42601
select * from graph_table (graph match (a is person where) columns (a.id));

-- vertex patterns alone
select * from graph_table (graph match (a is person) columns (a.id, a.name, a.age, a.city));
select id, name, age, city from person;

select * from graph_table (graph match (a) columns (a.name));
select name from person;

select * from graph_table (graph match (a is person where a.age > 30) columns (a.name));
select name from person where age > 30;

select * from graph_table (graph match (a is person where a.age is null) columns (a.id));
select id from person where age is null;

select * from graph_table (graph match (a is person where a.name is null) columns (a.id, a.city));
select id, city from person where name is null;

select * from graph_table (graph match (a is person where a.id > 100) columns (a.id));
select id from person where id > 100;

select * from graph_table (graph match (a is person) where a.city = 'London' columns (a.name as who));
select name as who from person where city = 'London';

select * from graph_table (graph match (a is person) columns (a.age + 1 as next, upper(a.name) as shout));
select age + 1 as next, upper(name) as shout from person;

select * from graph_table (graph match (a is person) columns (a.name || '@' || a.city as tag));
select name || '@' || city as tag from person;

select * from graph_table (graph match (a is person) columns (coalesce(a.age, -1) as age));
select coalesce(age, -1) as age from person;

select * from graph_table (graph match (a : person) columns (a.id));
select id from person;

select * from graph_table (graph match (a is %) columns (a.id));
select id from person;

select * from graph_table (graph match (a is !person) columns (a.id));
select id from person where false;

select * from graph_table (graph match (a is person|person) columns (a.id));
select id from person;

select * from graph_table (graph match (a is person & !person) columns (a.id));
select id from person where false;

-- one hop, each direction
select * from graph_table (graph match (a)-[k is knows]->(b) columns (a.id as a, b.id as b, k.since, k.w));
select a.id as a, b.id as b, k.since, k.w from person a join knows k on k.src = a.id join person b on b.id = k.dst;

select * from graph_table (graph match (a is person)-[is knows]->(b is person) columns (a.name as a, b.name as b));
select a.name as a, b.name as b from person a join knows k on k.src = a.id join person b on b.id = k.dst;

select * from graph_table (graph match (a is person)-[k is knows]->(b is person where b.city = 'London') columns (a.id, k.since));
select a.id, k.since from person a join knows k on k.src = a.id join person b on b.id = k.dst where b.city = 'London';

select * from graph_table (graph match (a is person)-[k is knows where k.since >= 2015]->(b is person) columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a join knows k on k.src = a.id join person b on b.id = k.dst where k.since >= 2015;

select * from graph_table (graph match (a is person)-[k is knows where k.since is null]->(b is person) columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a join knows k on k.src = a.id join person b on b.id = k.dst where k.since is null;

select * from graph_table (graph match (a is person)-[k is knows where k.w is null]->(b) columns (a.name, b.name as b));
select a.name, b.name as b from person a join knows k on k.src = a.id join person b on b.id = k.dst where k.w is null;

select * from graph_table (graph match (a)->(b) columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a join knows k on k.src = a.id join person b on b.id = k.dst union all select a.id, b.id from person a join follows f on f.src = a.id join person b on b.id = f.dst;

select * from graph_table (graph match (a)<-(b) columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a join knows k on k.dst = a.id join person b on b.id = k.src union all select a.id, b.id from person a join follows f on f.dst = a.id join person b on b.id = f.src;

select * from graph_table (graph match (a where a.id = 4)-(b) columns (b.id));
select b.id from person a join knows k on k.src = a.id or k.dst = a.id join person b on (k.src = a.id and b.id = k.dst) or (k.dst = a.id and b.id = k.src) where a.id = 4 union all select b.id from person a join follows k on k.src = a.id or k.dst = a.id join person b on (k.src = a.id and b.id = k.dst) or (k.dst = a.id and b.id = k.src) where a.id = 4;

select * from graph_table (graph match (a is person where a.id = 2)<-[k is knows]-(b) columns (b.name, k.since));
select b.name, k.since from person a join knows k on k.dst = a.id join person b on b.id = k.src where a.id = 2;

select * from graph_table (graph match (a is person where a.id = 2)-[k is knows]-(b) columns (b.id, k.since));
select b.id, k.since from knows k join person b on b.id = k.dst where k.src = 2 union all select b.id, k.since from knows k join person b on b.id = k.src where k.dst = 2 and k.src <> 2;

select * from graph_table (graph match (a is person)<-[k is knows]->(b is person) where a.id < b.id columns (a.id as a, b.id as b));
select k.src as a, k.dst as b from knows k where k.src < k.dst union all select k.dst, k.src from knows k where k.dst < k.src;

select * from graph_table (graph match (a is person)-[k is follows]->(b is person) columns (a.id as a, b.id as b, k.at));
select a.id as a, b.id as b, k.at from person a join follows k on k.src = a.id join person b on b.id = k.dst;

select * from graph_table (graph match (a is person)-[k is follows where k.at is not null]->(b) columns (a.id as a, k.at));
select a.id as a, k.at from person a join follows k on k.src = a.id join person b on b.id = k.dst where k.at is not null;

-- label disjunction over edge tables: missing properties are NULL
select * from graph_table (graph match (a)-[k is knows|follows]->(b) columns (a.id as a, b.id as b, k.since, k.at));
select k.src as a, k.dst as b, k.since, null::text as at from knows k union all select f.src, f.dst, null::int, f.at from follows f;

select * from graph_table (graph match (a)-[k is %]->(b) where k.since > 2012 or k.at = 'x' columns (a.id as a, b.id as b));
select k.src as a, k.dst as b from knows k where k.since > 2012 union all select f.src, f.dst from follows f where f.at = 'x';

select * from graph_table (graph match (a)-[k is !knows]->(b) columns (a.id as a, b.id as b));
select src as a, dst as b from follows;

select * from graph_table (graph match (a)-[k is !follows & !knows]->(b) columns (a.id as a));
select 1 as a where false;

select * from graph_table (graph match (a)-[k is (knows|follows) & !follows]->(b) columns (a.id as a, b.id as b));
select src as a, dst as b from knows;

-- self-loops and repeated variables
select * from graph_table (graph match (a)-[k is knows]->(a) columns (a.id, k.since));
select a.id, k.since from person a join knows k on k.src = a.id and k.dst = a.id;

select * from graph_table (graph match (a)-[k]->(a) columns (a.id));
select src as id from knows where src = dst union all select src from follows where src = dst;

select * from graph_table (graph match (a)-[k is knows]-(a) columns (a.id));
select src as id from knows where src = dst;

select * from graph_table (graph match (a)-[k is knows]->(b)-[l is knows]->(a) columns (a.id as a, b.id as b));
select k.src as a, k.dst as b from knows k join knows l on l.src = k.dst and l.dst = k.src;

select * from graph_table (graph match (a)-[is knows]->(b)-[is knows]->(c)-[is knows]->(a) columns (a.id as a, b.id as b, c.id as c));
select k1.src as a, k2.src as b, k3.src as c from knows k1 join knows k2 on k2.src = k1.dst join knows k3 on k3.src = k2.dst and k3.dst = k1.src;

select * from graph_table (graph match (a is person)-[k1 is knows]->(b is person), (a)-[k2 is follows]->(c is person) columns (a.id as a, b.id as b, c.id as c));
select k1.src as a, k1.dst as b, k2.dst as c from knows k1 join follows k2 on k2.src = k1.src;

select * from graph_table (graph match (a is person)-[is knows]->(b is person), (b)-[is follows]->(c is person) columns (a.id as a, b.id as b, c.id as c));
select k.src as a, k.dst as b, f.dst as c from knows k join follows f on f.src = k.dst;

select * from graph_table (graph match (a is person where a.id = 6), (b is person where b.id < 3) columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a cross join person b where a.id = 6 and b.id < 3;

select * from graph_table (graph match (a)-[k is knows]->(b), (a)-[k]->(b) columns (a.id as a, b.id as b));
select src as a, dst as b from knows;

select * from graph_table (graph match (a)-[k is knows]->(b), (c)-[k]->(d) columns (a.id as a, d.id as d));
select src as a, dst as d from knows;

-- two and three hops
select * from graph_table (graph match (a)-[is knows]->(b)-[is knows]->(c) columns (a.id as a, b.id as b, c.id as c));
select k1.src as a, k1.dst as b, k2.dst as c from knows k1 join knows k2 on k2.src = k1.dst;

select * from graph_table (graph match (a where a.id = 1)-[is knows]->(b)-[is knows]->(c) columns (c.name));
select c.name from knows k1 join knows k2 on k2.src = k1.dst join person c on c.id = k2.dst where k1.src = 1;

select * from graph_table (graph match (a where a.id = 1)-[is knows]->()-[is knows]->()-[is knows]->(d) columns (d.id));
select k3.dst as id from knows k1 join knows k2 on k2.src = k1.dst join knows k3 on k3.src = k2.dst where k1.src = 1;

select * from graph_table (graph match (a)-[k1 is knows]->(b)<-[k2 is knows]-(c) where a.id < c.id columns (a.id as a, b.id as b, c.id as c));
select k1.src as a, k1.dst as b, k2.src as c from knows k1 join knows k2 on k2.dst = k1.dst where k1.src < k2.src;

select * from graph_table (graph match (a)<-[is knows]-(b)-[is knows]->(c) where a.id <> c.id columns (a.id as a, b.id as b, c.id as c));
select k1.dst as a, k1.src as b, k2.dst as c from knows k1 join knows k2 on k2.src = k1.src where k1.dst <> k2.dst;

select * from graph_table (graph match (a)-[is knows]->(b)-[is follows]->(c) columns (a.id as a, c.id as c));
select k.src as a, f.dst as c from knows k join follows f on f.src = k.dst;

select * from graph_table (graph match (a)-[is follows]->(b)-[is knows]->(c where c.age > 30) columns (a.id as a, c.name));
select f.src as a, c.name from follows f join knows k on k.src = f.dst join person c on c.id = k.dst where c.age > 30;

select * from graph_table (graph match (a)-[k1 is knows where k1.since < 2015]->(b)-[k2 is knows where k2.since >= 2015]->(c) columns (a.id as a, c.id as c, k1.since as s1, k2.since as s2));
select k1.src as a, k2.dst as c, k1.since as s1, k2.since as s2 from knows k1 join knows k2 on k2.src = k1.dst where k1.since < 2015 and k2.since >= 2015;

select * from graph_table (graph match (a)-[k1 is knows]->(b)-[k2 is knows]->(c) where k1.w + k2.w > 1.5 columns (a.id as a, c.id as c, k1.w + k2.w as total));
select k1.src as a, k2.dst as c, k1.w + k2.w as total from knows k1 join knows k2 on k2.src = k1.dst where k1.w + k2.w > 1.5;

select * from graph_table (graph match (a)-(b)-(c) where a.id = 6 columns (c.id));
with und(x, y) as (select src, dst from knows union all select dst, src from knows where src <> dst union all select src, dst from follows union all select dst, src from follows where src <> dst) select u2.y as id from und u1 join und u2 on u2.x = u1.y where u1.x = 6;

select * from graph_table (graph match (a is person where a.id = 6)-[is knows]->(b) columns (b.id));
select dst as id from knows where src = 6;

select * from graph_table (graph match (a is person where a.id = 3)-[is knows]-(b)-[is knows]-(c) columns (b.id as b, c.id as c));
with und(x, y, since) as (select src, dst, since from knows union all select dst, src, since from knows where src <> dst) select u1.y as b, u2.y as c from und u1 join und u2 on u2.x = u1.y where u1.x = 3;

-- the clause in the rest of SQL: joins, aggregates, subqueries, CTEs, views
select g.b, count(*) from graph_table (graph match (a)-[is knows]->(b) columns (b.id as b)) g group by g.b;
select dst as b, count(*) from knows group by dst;

select p.name, g.n from person p join graph_table (graph match (a)-[is knows]->(b) columns (a.id as a, b.id as n)) g on g.a = p.id;
select p.name, k.dst as n from person p join knows k on k.src = p.id;

select p.id from person p where p.id in (select x from graph_table (graph match (a)-[is follows]->(b) columns (b.id as x)));
select p.id from person p where p.id in (select dst from follows);

select p.id from person p where not exists (select 1 from graph_table (graph match (a)-[is knows]->(b) columns (a.id as a)) g where g.a = p.id);
select p.id from person p where not exists (select 1 from knows k where k.src = p.id);

with hops as (select * from graph_table (graph match (a)-[is knows]->(b)-[is knows]->(c) columns (a.id as a, c.id as c))) select a, count(distinct c) from hops group by a;
select k1.src as a, count(distinct k2.dst) from knows k1 join knows k2 on k2.src = k1.dst group by k1.src;

select x.a, x.b from graph_table (graph match (a)-[is knows]->(b) columns (a.id as a, b.id as b)) as x (a, b) where x.a < x.b;
select src as a, dst as b from knows where src < dst;

select t.p, t.q from graph_table (graph match (a)-[is knows]->(b) columns (a.id as a, b.id as b)) as t (p, q);
select src as p, dst as q from knows;

select * from (select * from graph_table (graph match (a)-[k is knows]->(b) columns (k.since)) g order by since nulls first limit 3) s;
select * from (select since from knows order by since nulls first limit 3) s;

select count(*) from graph_table (graph match (a)-[is knows]->(b)-[is knows]->(c)-[is knows]->(d) columns (a.id as a));
select count(*) from knows k1 join knows k2 on k2.src = k1.dst join knows k3 on k3.src = k2.dst;

select g1.a, g2.c from graph_table (graph match (a)-[is knows]->(b) columns (a.id as a, b.id as b)) g1 join graph_table (graph match (b)-[is follows]->(c) columns (b.id as b, c.id as c)) g2 on g2.b = g1.b;
select k.src as a, f.dst as c from knows k join follows f on f.src = k.dst;

select * from graph_table (graph match (a)-[is knows]->(b) columns (a.id as a, b.id as b)) union select * from graph_table (graph match (a)-[is follows]->(b) columns (a.id as a, b.id as b));
select src as a, dst as b from knows union select src, dst from follows;

select a, max(since) from graph_table (graph match (a)-[k is knows]->() columns (a.name as a, k.since)) group by a;
select p.name as a, max(k.since) from person p join knows k on k.src = p.id group by p.name;

create view two_hops as select * from graph_table (graph match (a)-[is knows]->(b)-[is knows]->(c) columns (a.id as a, c.id as c));
create view two_hops as select k1.src as a, k2.dst as c from knows k1 join knows k2 on k2.src = k1.dst;

select * from graph_table (graph match (a is person where a.id = 1)-[is knows]->(b) columns (b.id as b)) g join two_hops h on h.a = g.b;
select k.dst as b, h.a, h.c from knows k join two_hops h on h.a = k.dst where k.src = 1;

-- quantified edges: walks of bounded length, from a seeded start
select * from graph_table (graph match (a is person where a.id = 1)-[is knows]->{1,2}(b) columns (b.id));
with recursive r(d, n) as (select 1, 0 union all select k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 2) select d as id from r where n >= 1;

select * from graph_table (graph match (a is person where a.id = 1)-[is knows]->{2}(b) columns (b.id));
select k2.dst as id from knows k1 join knows k2 on k2.src = k1.dst where k1.src = 1;

select * from graph_table (graph match (a is person where a.id = 4)-[is knows]->{0,1}(b) columns (b.id));
select 4 as id union all select dst from knows where src = 4;

select * from graph_table (graph match (a is person where a.id = 2)-[is knows]->*(b) where b.id = 4 columns (b.name));
with recursive r(d, n) as (select 2, 0 union all select k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 8) select p.name from r join person p on p.id = r.d where r.d = 4;

select count(*) from graph_table (graph match (a is person where a.id = 1)-[is knows]->+(b) columns (b.id));
with recursive r(d, n) as (select 1, 0 union all select k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 8) select count(*) from r where n >= 1;

select * from graph_table (graph match (a is person where a.id = 5)<-[is knows]-{1,3}(b) columns (b.id));
with recursive r(d, n) as (select 5, 0 union all select k.src, r.n + 1 from r join knows k on k.dst = r.d where r.n < 3) select d as id from r where n >= 1;

select * from graph_table (graph match (a is person where a.id = 6)-[is knows]->{1,3}(b) columns (b.id));
select 1 as id where false;

select * from graph_table (graph match (a is person where a.id = 6)-[is knows]->*(b) columns (b.id));
select 6 as id;

select * from graph_table (graph match (a is person where a.id = 3)-[k is knows where k.since > 2011]->{1,4}(b) columns (b.id));
with recursive r(d, n) as (select 3, 0 union all select k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 4 and k.since > 2011) select d as id from r where n >= 1;

select * from graph_table (graph match (a is person where a.id = 1)-[is knows|follows]->{1,2}(b) columns (b.id));
with recursive e(s, d) as (select src, dst from knows union all select src, dst from follows), r(d, n) as (select 1, 0 union all select e.d, r.n + 1 from r join e on e.s = r.d where r.n < 2) select d as id from r where n >= 1;

select * from graph_table (graph match (a is person where a.id = 6)-[is knows]-{1,2}(b) columns (b.id));
select 1 as id where false;

select * from graph_table (graph match (a is person where a.id = 4)-[is knows]-{1,2}(b) columns (b.id));
with recursive e(s, d) as (select src, dst from knows union all select dst, src from knows where src <> dst), r(d, n) as (select 4, 0 union all select e.d, r.n + 1 from r join e on e.s = r.d where r.n < 2) select d as id from r where n >= 1;

select * from graph_table (graph match (a is person)-[is knows]->{1,2}(b is person) where a.id < 3 columns (a.id as a, b.id as b));
with recursive r(s, d, n) as (select id, id, 0 from person union all select r.s, k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 2) select s as a, d as b from r where n >= 1 and s < 3;

select * from graph_table (graph match (a is person where a.id = 1)-[is knows]->{1,3}(b is person where b.age > 30) columns (b.name, b.age));
with recursive r(d, n) as (select 1, 0 union all select k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 3) select p.name, p.age from r join person p on p.id = r.d where n >= 1 and p.age > 30;

select * from graph_table (graph match (a is person where a.id = 1)-[is knows]->{1,2}(b)-[is follows]->(c) columns (b.id as b, c.id as c));
with recursive r(d, n) as (select 1, 0 union all select k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 2) select r.d as b, f.dst as c from r join follows f on f.src = r.d where n >= 1;

select * from graph_table (graph match (a is person where a.id = 1)-[is knows]->{1,3}(a) columns (a.id));
with recursive r(d, n) as (select 1, 0 union all select k.dst, r.n + 1 from r join knows k on k.src = r.d where r.n < 3) select d as id from r where n >= 1 and d = 1;

-- ANY SHORTEST: one row per endpoint pair
select * from graph_table (graph match any shortest (a is person where a.id = 1)-[is knows]->+(b) columns (b.id));
with recursive r(d) as (select 1 union select k.dst from r join knows k on k.src = r.d) select d as id from r where d <> 1 union select 1 from knows k where k.dst = 1 and exists (select 1 from knows where src = 1) limit 100;

select * from graph_table (graph match any shortest (a is person where a.id = 6)-[is knows]->+(b) columns (b.id));
select 1 as id where false;

select * from graph_table (graph match any shortest (a is person where a.id = 2)-[is knows]->*(b) columns (b.id));
with recursive r(d) as (select 2 union select k.dst from r join knows k on k.src = r.d) select d as id from r;

select count(*) from graph_table (graph match any shortest (a is person)-[is knows]->{1,8}(b is person) columns (a.id as a, b.id as b));
with recursive r(s, d) as (select src, dst from knows union select r.s, k.dst from r join knows k on k.src = r.d) select count(*) from r;

select * from graph_table (graph match any shortest (a is person)-[is follows]->{1,3}(b is person) columns (a.id as a, b.id as b));
with recursive r(s, d) as (select src, dst from follows union select r.s, f.dst from r join follows f on f.src = r.d) select s as a, d as b from r;

-- errors
-- error 42704
select * from graph_table (graph match (a is person)-[k is nosuch]->(b) columns (a.id));

-- error 42P01
select * from graph_table (nograph match (a is person) columns (a.id));

-- error 42601
select * from graph_table (graph match (a is person)-[k is knows]->(b) columns (k.nosuch));

-- error 42601
select * from graph_table (graph match (a is person) where a.nosuch = 1 columns (a.id));

-- error 42601
select * from graph_table (graph match (a is person) columns (a.id + 1));

-- error 42601
select * from graph_table (graph match (a is person)-[k is knows]-> columns (a.id));

-- error 42601
select * from graph_table (graph match (a is person)-[k is knows)->(b) columns (a.id));

-- error 42601
select * from graph_table (graph match (a is person) columns ());

-- error 42601
select * from graph_table (graph match (a is) columns (a.id));

-- error 42601
select * from graph_table (graph match (a)-[a]->(b) columns (a.id));

-- error 42601
select * from graph_table (graph match (a)-[is knows]->{3,1}(b) columns (a.id));

-- error 0A000
select * from graph_table (graph match (a)-[k is knows]->{1,2}(b) columns (k.since));

select count(*) from graph_table (graph match all shortest (a)-[is knows]->+(b) columns (a.id));
with recursive w(s, d, n) as (select id, id, 0 from person union all select w.s, k.dst, w.n + 1 from w join knows k on k.src = w.d where w.n < 8) select count(*) from w where n >= 1 and n = (select min(n) from w v where v.s = w.s and v.d = w.d and v.n >= 1);

-- error 0A000
select * from graph_table (graph match (a) columns (a.*));

-- more shapes
select * from graph_table (graph match (a is person where a.city = 'Paris')-[k is knows]->(b is person where b.city = 'London') columns (a.name as a, b.name as b));
select a.name as a, b.name as b from person a join knows k on k.src = a.id join person b on b.id = k.dst where a.city = 'Paris' and b.city = 'London';

select * from graph_table (graph match (a)-[k is knows]->(b) where a.age > b.age columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a join knows k on k.src = a.id join person b on b.id = k.dst where a.age > b.age;

select * from graph_table (graph match (a)-[k is knows]->(b) where a.city is not distinct from b.city columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a join knows k on k.src = a.id join person b on b.id = k.dst where a.city is not distinct from b.city;

select * from graph_table (graph match (a)-[k is knows]->(b) columns (case when k.w > 1 then 'heavy' else 'light' end as kind, k.w));
select case when k.w > 1 then 'heavy' else 'light' end as kind, k.w from knows k;

select * from graph_table (graph match (a)-[k is knows]->(b) where k.since between 2011 and 2019 columns (k.since));
select since from knows where since between 2011 and 2019;

select * from graph_table (graph match (a)-[k is knows]->(b) where b.id in (1, 4) columns (a.id as a, b.id as b));
select src as a, dst as b from knows where dst in (1, 4);

select * from graph_table (graph match (a)-[k is knows]->(b) where a.name like 'A%' or b.name is null columns (a.id as a, b.id as b));
select a.id as a, b.id as b from person a join knows k on k.src = a.id join person b on b.id = k.dst where a.name like 'A%' or b.name is null;

select * from graph_table (graph match (a is person)-[is follows]->(b is person)-[is follows]->(c is person) columns (a.id as a, b.id as b, c.id as c));
select f1.src as a, f1.dst as b, f2.dst as c from follows f1 join follows f2 on f2.src = f1.dst;

select * from graph_table (graph match (a is person)-[is follows]-(b is person) where a.id = 2 columns (b.id));
select 2 as id;

select * from graph_table (graph match (a)-[k is knows]->(b) columns (k.w * 2 as dbl, round(k.w::numeric, 1) as r));
select w * 2 as dbl, round(w::numeric, 1) as r from knows;

select * from graph_table (graph match (a where a.id = 1)-[is knows]->(b)-[is knows]->(c)-[is knows]->(d)-[is knows]->(e) columns (e.id));
select k4.dst as id from knows k1 join knows k2 on k2.src = k1.dst join knows k3 on k3.src = k2.dst join knows k4 on k4.src = k3.dst where k1.src = 1;

select * from graph_table (graph match ("A" is person where "A".id = 5)-[is knows]->("B") columns ("B".name as "Friend Name"));
select p.name as "Friend Name" from knows k join person p on p.id = k.dst where k.src = 5;

-- the same shape with other literals (a client's repeated simple queries)
select * from graph_table (graph match (a where a.id = 1)-[is knows]->(b) columns (b.name));
select p.name from knows k join person p on p.id = k.dst where k.src = 1;

select * from graph_table (graph match (a where a.id = 2)-[is knows]->(b) columns (b.name));
select p.name from knows k join person p on p.id = k.dst where k.src = 2;

select * from graph_table (graph match (a where a.id = 4)-[is knows]->(b) columns (b.name));
select p.name from knows k join person p on p.id = k.dst where k.src = 4;

select * from graph_table (graph match (a where a.id = 5)-[is knows]->(b) columns (b.name));
select p.name from knows k join person p on p.id = k.dst where k.src = 5;
