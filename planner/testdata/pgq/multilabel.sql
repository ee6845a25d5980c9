-- A graph of several vertex and edge tables: label expressions that span
-- tables (IS a | b, %, !), edges that connect different vertex tables,
-- properties some tables lack (NULL in the others), parallel edges and
-- an empty edge table. Each GRAPH_TABLE query is followed by its
-- equivalent in PostgreSQL 15 SQL, written by hand.
create table city (id int primary key, name text, country text);
create table company (id int primary key, name text, founded int);
create table emp (id int primary key, name text, age int);
create table lives_in (src int not null references emp (id), dst int not null references city (id), since int) with (graph.kind = edge);
create table works_at (src int not null references emp (id), dst int not null references company (id), role text, since int) with (graph.kind = edge);
create table located (src int not null references company (id), dst int not null references city (id)) with (graph.kind = edge);
create table manages (src int not null references emp (id), dst int not null references emp (id)) with (graph.kind = edge);
create table rivals (src int not null references company (id), dst int not null references company (id)) with (graph.kind = edge);
insert into city values (1, 'London', 'UK'), (2, 'Paris', 'FR'), (3, 'Lyon', 'FR'), (4, 'Nowhere', null);
insert into company values (10, 'Acme', 1990), (11, 'Globex', null), (12, 'Initech', 2001);
insert into emp values (100, 'Ann', 30), (101, 'Ben', null), (102, 'Cat', 45), (103, null, 28);
insert into lives_in values (100, 1, 2015), (101, 2, null), (102, 2, 2001), (103, 3, 2020), (100, 2, 2019);
insert into works_at values (100, 10, 'eng', 2016), (101, 10, 'ops', null), (102, 11, 'ceo', 2000), (103, 12, null, 2021), (100, 12, 'advisor', 2020), (100, 10, 'lead', 2018);
insert into located values (10, 1), (11, 2), (12, 3), (12, 1);
insert into manages values (102, 100), (102, 101), (100, 103);

select * from graph_table (graph match (x is city|company) columns (x.id, x.name));
select id, name from city union all select id, name from company;

select * from graph_table (graph match (x is city|company) columns (x.id, x.country, x.founded));
select id, country, null::int as founded from city union all select id, null::text, founded from company;

select * from graph_table (graph match (x is %) columns (x.id, x.name));
select id, name from city union all select id, name from company union all select id, name from emp;

select * from graph_table (graph match (x) columns (x.name));
select name from city union all select name from company union all select name from emp;

select * from graph_table (graph match (x is !emp) columns (x.id));
select id from city union all select id from company;

select * from graph_table (graph match (x is !emp & !city) columns (x.id, x.founded));
select id, founded from company;

select * from graph_table (graph match (x is city|company where x.name like '%o%') columns (x.name));
select name from city where name like '%o%' union all select name from company where name like '%o%';

select * from graph_table (graph match (x) where x.age > 29 or x.founded > 2000 columns (x.id));
select id from emp where age > 29 union all select id from company where founded > 2000;

select * from graph_table (graph match (x) where x.country = 'FR' columns (x.id, x.country));
select id, country from city where country = 'FR';

select * from graph_table (graph match (x is company) columns (x.country));
select null::text as country from company;

-- element functions over the implicit graph: a table's label is its name,
-- its properties are its columns
select * from graph_table (graph match (x is city|company) columns (x.id, labels(x) as l, property_names(x) as p));
select id, array['city'] as l, array['country', 'id', 'name'] as p from city union all select id, array['company'], array['founded', 'id', 'name'] from company;

select * from graph_table (graph match (e is emp)-[w]->(y) columns (e.id, labels(w) as wl, property_names(y) as yp));
select src as id, array['lives_in'] as wl, array['country', 'id', 'name'] as yp from lives_in union all select src, array['works_at'], array['founded', 'id', 'name'] from works_at union all select src, array['manages'], array['age', 'id', 'name'] from manages;

-- error 0A000 cannot be referenced outside its pattern
select * from graph_table (graph match (a is emp)-[m is manages]->{1,2}(b) columns (b.id, labels(m) as l));

-- edges between different vertex tables
select * from graph_table (graph match (e is emp)-[l is lives_in]->(c is city) columns (e.name as emp, c.name as city, l.since));
select e.name as emp, c.name as city, l.since from emp e join lives_in l on l.src = e.id join city c on c.id = l.dst;

select * from graph_table (graph match (c is city)<-[l is lives_in]-(e) columns (c.id as c, e.id as e));
select l.dst as c, l.src as e from lives_in l;

select * from graph_table (graph match (e is emp)-[w is works_at]->(co is company)-[is located]->(c is city) columns (e.name as emp, co.name as co, c.name as city, w.role));
select e.name as emp, co.name as co, c.name as city, w.role from emp e join works_at w on w.src = e.id join company co on co.id = w.dst join located l on l.src = co.id join city c on c.id = l.dst;

select * from graph_table (graph match (e is emp)-[is works_at]->(co)-[is located]->(c), (e)-[is lives_in]->(c) columns (e.id as e, co.id as co, c.id as c));
select w.src as e, w.dst as co, l.dst as c from works_at w join located l on l.src = w.dst join lives_in li on li.src = w.src and li.dst = l.dst;

select * from graph_table (graph match (e)-[x]->(c is city) columns (e.id as e, c.id as c));
select src as e, dst as c from lives_in union all select src, dst from located;

select * from graph_table (graph match (e)-[x is lives_in|located]->(c) columns (e.id as e, c.id as c, x.since));
select src as e, dst as c, since from lives_in union all select src, dst, null::int from located;

select * from graph_table (graph match (e is emp)-[x]->(t) columns (e.id as e, t.id as t, x.since, x.role));
select src as e, dst as t, since, null::text as role from lives_in union all select src, dst, since, role from works_at union all select src, dst, null::int, null::text from manages;

select * from graph_table (graph match (e is emp)-[x]->(t is company|city) columns (e.id as e, t.name));
select l.src as e, c.name from lives_in l join city c on c.id = l.dst union all select w.src, co.name from works_at w join company co on co.id = w.dst;

select * from graph_table (graph match (a)-[x]-(b) where a.id = 10 columns (b.id, b.name));
select c.id, c.name from located l join city c on c.id = l.dst where l.src = 10 union all select e.id, e.name from works_at w join emp e on e.id = w.src where w.dst = 10;

select * from graph_table (graph match (a is city)-(b) columns (a.id as a, b.id as b));
select dst as a, src as b from lives_in union all select dst, src from located;

select * from graph_table (graph match (a is city)->(b) columns (a.id as a));
select 1 as a where false;

select * from graph_table (graph match (a is city)-[x is works_at]->(b) columns (a.id as a));
select 1 as a where false;

select * from graph_table (graph match (a is company)-[r is rivals]->(b) columns (a.id as a, b.id as b));
select src as a, dst as b from rivals;

select * from graph_table (graph match (a is company)-[r is rivals|located]->(b) columns (a.id as a, b.id as b));
select src as a, dst as b from rivals union all select src, dst from located;

-- parallel edges and self-references
select * from graph_table (graph match (e is emp where e.id = 100)-[w is works_at]->(c) columns (c.id, w.role, w.since));
select w.dst as id, w.role, w.since from works_at w where w.src = 100;

select count(*) from graph_table (graph match (e)-[is works_at]->(c) columns (e.id as e, c.id as c));
select count(*) from works_at;

select c, count(*) from graph_table (graph match (e)-[is works_at]->(x) columns (x.name as c)) g group by c;
select co.name as c, count(*) from works_at w join company co on co.id = w.dst group by co.name;

select * from graph_table (graph match (m is emp)-[is manages]->(e is emp)-[is manages]->(f is emp) columns (m.name as m, f.name as f));
select m.name as m, f.name as f from manages a join manages b on b.src = a.dst join emp m on m.id = a.src join emp f on f.id = b.dst;

select * from graph_table (graph match (m is emp)-[is manages]->(e), (m)-[is lives_in]->(c), (e)-[is lives_in]->(c) columns (m.id as m, e.id as e, c.id as c));
select a.src as m, a.dst as e, l1.dst as c from manages a join lives_in l1 on l1.src = a.src join lives_in l2 on l2.src = a.dst and l2.dst = l1.dst;

select * from graph_table (graph match (e is emp)-[is manages]-(f) columns (e.id as e, f.id as f));
select src as e, dst as f from manages union all select dst, src from manages;

select * from graph_table (graph match (e is emp)<-[is manages]-(f) where f.age is null columns (e.id as e));
select m.dst as e from manages m join emp f on f.id = m.src where f.age is null;

select * from graph_table (graph match (e is emp where e.age is null)-[is lives_in]->(c) columns (e.id, c.country));
select e.id, c.country from emp e join lives_in l on l.src = e.id join city c on c.id = l.dst where e.age is null;

select * from graph_table (graph match (c is city where c.country is null)<-[x]-(y) columns (y.id));
select src as id from lives_in where dst = 4 union all select src from located where dst = 4;

select * from graph_table (graph match (c is city where c.country is null) columns (c.id, c.name));
select id, name from city where country is null;

select * from graph_table (graph match (co is company)-[is located]->(c is city) where co.founded is null columns (co.name, c.name as city));
select co.name, c.name as city from company co join located l on l.src = co.id join city c on c.id = l.dst where co.founded is null;

select * from graph_table (graph match (e is emp)-[w is works_at where w.role is null]->(co) columns (e.id, co.id as co));
select w.src as id, w.dst as co from works_at w where w.role is null;

select * from graph_table (graph match (e is emp)-[w is works_at]->(co) where w.since > co.founded columns (e.id, co.id as co, w.since - co.founded as yrs));
select w.src as id, w.dst as co, w.since - co.founded as yrs from works_at w join company co on co.id = w.dst where w.since > co.founded;

select * from graph_table (graph match (e is emp)-[is works_at]->(co)<-[is works_at]-(f is emp) where e.id < f.id columns (e.id as e, f.id as f, co.id as co));
select a.src as e, b.src as f, a.dst as co from works_at a join works_at b on b.dst = a.dst where a.src < b.src;

select * from graph_table (graph match (e is emp)-[is lives_in]->(c)<-[is located]-(co) columns (e.id as e, co.id as co));
select l.src as e, lo.src as co from lives_in l join located lo on lo.dst = l.dst;

select * from graph_table (graph match (e is emp)-[is lives_in]->(c)<-[is lives_in]-(f) where e.id <> f.id columns (e.id as e, f.id as f));
select a.src as e, b.src as f from lives_in a join lives_in b on b.dst = a.dst where a.src <> b.src;

select * from graph_table (graph match (c is city)<-(x)-(y) where c.id = 1 columns (x.id as x, y.id as y));
select 100 as x, 102 as y where false union all select l.src, m.src from lives_in l join manages m on m.dst = l.src where l.dst = 1 union all select l.src, m.dst from lives_in l join manages m on m.src = l.src where l.dst = 1 union all select l.src, w.dst from lives_in l join works_at w on w.src = l.src where l.dst = 1 union all select l.src, l2.dst from lives_in l join lives_in l2 on l2.src = l.src where l.dst = 1 union all select lo.src, lo2.dst from located lo join located lo2 on lo2.src = lo.src where lo.dst = 1 union all select lo.src, w.src from located lo join works_at w on w.dst = lo.src where lo.dst = 1;

-- quantified edges over one table from a vertex table to itself
select * from graph_table (graph match (m is emp where m.id = 102)-[is manages]->{1,3}(e) columns (e.id));
with recursive r(d, n) as (select 102, 0 union all select m.dst, r.n + 1 from r join manages m on m.src = r.d where r.n < 3) select d as id from r where n >= 1;

select * from graph_table (graph match (m is emp where m.id = 102)-[is manages]->*(e) columns (e.name));
with recursive r(d, n) as (select 102, 0 union all select m.dst, r.n + 1 from r join manages m on m.src = r.d where r.n < 8) select e.name from r join emp e on e.id = r.d;

select * from graph_table (graph match (e is emp where e.id = 103)<-[is manages]-+(m) columns (m.id));
with recursive r(d, n) as (select 103, 0 union all select m.src, r.n + 1 from r join manages m on m.dst = r.d where r.n < 8) select d as id from r where n >= 1;

select * from graph_table (graph match (e is emp)-[is manages]->{2}(f) columns (e.id as e, f.id as f));
select a.src as e, b.dst as f from manages a join manages b on b.src = a.dst;

select * from graph_table (graph match (c is company)-[is rivals]->{1,2}(d) columns (c.id));
select 1 as id where false;

select * from graph_table (graph match (c is company)-[is rivals]->*(d) columns (c.id as c, d.id as d));
select id as c, id as d from company;

select * from graph_table (graph match (e is emp)-[is manages]->{1,2}(f)-[is lives_in]->(c) where e.id = 102 columns (f.id as f, c.name));
with recursive r(d, n) as (select 102, 0 union all select m.dst, r.n + 1 from r join manages m on m.src = r.d where r.n < 2) select r.d as f, c.name from r join lives_in l on l.src = r.d join city c on c.id = l.dst where r.n >= 1;

select * from graph_table (graph match any shortest (e is emp)-[is manages]->+(f) columns (e.id as e, f.id as f));
select a.src as e, a.dst as f from manages a union select a.src, b.dst from manages a join manages b on b.src = a.dst;

select * from graph_table (graph match any shortest (e is emp)-[is manages]-+(f) where e.id = 103 columns (f.id));
select 103 as id union all select 100 union all select 102 union all select 101;

-- quantified edges whose walks cross vertex tables: each step may take
-- any edge table from the table the walk is in (equivalents carry the
-- vertex table's name beside the key)
select * from graph_table (graph match (e is emp where e.id = 102)-[]->{1,2}(x) columns (x.id, labels(x) as l));
with recursive st as (select 'emp'::text as ft, src as s, 'emp'::text as tt, dst as d from manages union all select 'emp', src, 'city', dst from lives_in union all select 'emp', src, 'company', dst from works_at union all select 'company', src, 'city', dst from located union all select 'company', src, 'company', dst from rivals), r(t, d, n) as (select 'emp'::text, 102, 0 union all select st.tt, st.d, r.n + 1 from r join st on st.ft = r.t and st.s = r.d where r.n < 2) select d as id, array[t] as l from r where n >= 1;

select * from graph_table (graph match (c is city where c.id = 1)<-[]-{1,2}(x) columns (x.id, labels(x) as l));
with recursive st as (select 'emp'::text as ft, dst as s, 'emp'::text as tt, src as d from manages union all select 'city', dst, 'emp', src from lives_in union all select 'company', dst, 'emp', src from works_at union all select 'city', dst, 'company', src from located union all select 'company', dst, 'company', src from rivals), r(t, d, n) as (select 'city'::text, 1, 0 union all select st.tt, st.d, r.n + 1 from r join st on st.ft = r.t and st.s = r.d where r.n < 2) select d as id, array[t] as l from r where n >= 1;

select * from graph_table (graph match (e is emp where e.id = 102)-[is manages|works_at|located]->{2,3}(c is city) columns (c.name));
with recursive st as (select 'emp'::text as ft, src as s, 'emp'::text as tt, dst as d from manages union all select 'emp', src, 'company', dst from works_at union all select 'company', src, 'city', dst from located), r(t, d, n) as (select 'emp'::text, 102, 0 union all select st.tt, st.d, r.n + 1 from r join st on st.ft = r.t and st.s = r.d where r.n < 3) select c.name from r join city c on c.id = r.d where r.t = 'city' and r.n >= 2;

select * from graph_table (graph match p = any shortest (e is emp where e.id = 102)-[]->{1,3}(c is city) columns (c.name, path_length(p) as len));
with recursive st as (select 'emp'::text as ft, src as s, 'emp'::text as tt, dst as d from manages union all select 'emp', src, 'city', dst from lives_in union all select 'emp', src, 'company', dst from works_at union all select 'company', src, 'city', dst from located union all select 'company', src, 'company', dst from rivals), r(t, d, n) as (select 'emp'::text, 102, 0 union all select st.tt, st.d, r.n + 1 from r join st on st.ft = r.t and st.s = r.d where r.n < 3) select c.name, min(r.n) as len from r join city c on c.id = r.d where r.t = 'city' and r.n >= 1 group by c.name;

select * from graph_table (graph match acyclic (e is emp where e.id = 100)-[]-{1,2}(x) columns (x.id, labels(x) as l));
with recursive st as (select 'emp'::text as ft, src as s, 'emp'::text as tt, dst as d from manages union all select 'emp', src, 'city', dst from lives_in union all select 'emp', src, 'company', dst from works_at union all select 'company', src, 'city', dst from located union all select 'company', src, 'company', dst from rivals union all select 'emp'::text as ft, dst as s, 'emp'::text as tt, src as d from manages union all select 'city', dst, 'emp', src from lives_in union all select 'company', dst, 'emp', src from works_at union all select 'city', dst, 'company', src from located union all select 'company', dst, 'company', src from rivals), r(t, d, n, p) as (select 'emp'::text, 100, 0, array['emp:100'] union all select st.tt, st.d, r.n + 1, r.p || (st.tt || ':' || st.d) from r join st on st.ft = r.t and st.s = r.d where r.n < 2 and not (st.tt || ':' || st.d) = any (r.p)) select d as id, array[t] as l from r where n >= 1;

-- selectors on paths of any shape: per pair of end vertices, over all
-- the paths the pattern (element WHEREs included) matches; the graph
-- pattern's WHERE then filters the paths selected
select * from graph_table (graph match p = all shortest (e is emp)-[is manages]->{0,2}(f)-[is lives_in]->(c is city) columns (e.id as e, c.id as c, path_length(p) as len));
with recursive r(s, d, n) as (select id, id, 0 from emp union all select r.s, m.dst, r.n + 1 from r join manages m on m.src = r.d where r.n < 2), paths as (select r.s as e, l.dst as c, r.n + 1 as len from r join lives_in l on l.src = r.d) select e, c, len from (select e, c, len, min(len) over (partition by e, c) as m from paths) x where len = m;

select * from graph_table (graph match any shortest (a is emp)-[]->(b)-[]->(c is city) columns (a.id as a, c.id as c));
select distinct a, c from (select m.src as a, l.dst as c from manages m join lives_in l on l.src = m.dst union all select w.src, lo.dst from works_at w join located lo on lo.src = w.dst) x;

select * from graph_table (graph match p = all shortest (e is emp where e.id = 102)-[is manages]->{0,2}(f)-[is lives_in]->(c is city) where f.id <> 102 columns (c.id as c, path_length(p) as len));
with recursive r(d, n) as (select 102, 0 union all select m.dst, r.n + 1 from r join manages m on m.src = r.d where r.n < 2), paths as (select r.d as f, l.dst as c, r.n + 1 as len from r join lives_in l on l.src = r.d), best as (select f, c, len, min(len) over (partition by c) as m from paths) select c, len from best where len = m and f <> 102;

select * from graph_table (graph match p = shortest 2 (a is emp where a.id = 100)-[]->(b)-[]->(c) columns (c.id as c, path_length(p) as len));
select c, 2 as len from (select c, row_number() over (partition by c) as k from (select m.dst as x, l.dst as c from manages m join lives_in l on l.src = m.dst where m.src = 100 union all select m.dst, w.dst from manages m join works_at w on w.src = m.dst where m.src = 100 union all select m.dst, m2.dst from manages m join manages m2 on m2.src = m.dst where m.src = 100 union all select w.dst, lo.dst from works_at w join located lo on lo.src = w.dst where w.src = 100 union all select w.dst, r.dst from works_at w join rivals r on r.src = w.dst where w.src = 100) p) q where k <= 2;

-- error 0A000 path selectors are only supported
select * from graph_table (graph match any shortest (a is emp)-[]->(b), (b)-[]->(c) columns (c.id));

-- the clause in the rest of SQL
select g.city, count(*) from graph_table (graph match (e)-[is lives_in]->(c) columns (c.name as city)) g group by g.city;
select c.name as city, count(*) from lives_in l join city c on c.id = l.dst group by c.name;

select e.name, (select count(*) from graph_table (graph match (x)-[is works_at]->(y) columns (x.id as x)) g where g.x = e.id) as jobs from emp e;
select e.name, (select count(*) from works_at w where w.src = e.id) as jobs from emp e;

select c.name from city c where exists (select 1 from graph_table (graph match (co)-[is located]->(x) columns (x.id as x)) g where g.x = c.id);
select c.name from city c where exists (select 1 from located l where l.dst = c.id);

select c.name from city c left join graph_table (graph match (e)-[is lives_in]->(x) columns (x.id as x, e.id as e)) g on g.x = c.id where g.e is null;
select c.name from city c left join lives_in l on l.dst = c.id where l.src is null;

with g as (select * from graph_table (graph match (e)-[w is works_at]->(co) columns (e.id as e, co.id as co, w.role))) select co, string_agg(coalesce(role, '?'), ',' order by role nulls first) from g group by co;
select dst as co, string_agg(coalesce(role, '?'), ',' order by role nulls first) from works_at group by dst;

select * from graph_table (graph match (a is city) columns (a.name)) g where g.name > 'M' order by g.name limit 2;
select name from city where name > 'M' order by name limit 2;

select distinct c from graph_table (graph match (e)-[is lives_in]->(x) columns (x.country as c));
select distinct c.country as c from lives_in l join city c on c.id = l.dst;

-- errors
-- error 42704 label "town" does not exist in property graph "graph"
select * from graph_table (graph match (x is city|town) columns (x.id));

-- error 42704
select * from graph_table (graph match (x)-[e is !knows]->(y) columns (x.id));

-- error 42601 property "founded_at" does not exist
select * from graph_table (graph match (x is city) columns (x.founded_at));

-- error 42601
select * from graph_table (graph match (x is city) columns (x.name, x.name || 'x'));

-- a bare column name is no property reference
-- error 42703 column "name" does not exist
select * from graph_table (graph match (x is city where name = 'London') columns (x.id));

-- error 42703 column "age" does not exist
select * from graph_table (graph match (x is emp) columns (x.id, age + 1 as next));

-- error 42P01 property graph "public.nograph" does not exist
select * from graph_table (public.nograph match (x) columns (x.id));

select * from graph_table (graph match any (x)-[is manages]->(y) columns (x.id));
select src as id from (select distinct src, dst from manages) m;

select * from graph_table (graph match any shortest (x)-[is manages]->(y) columns (x.id));
select src as id from (select distinct src, dst from manages) m;

-- error 0A000
select * from graph_table (graph match (x)-[e is manages]->+(y), (x)-[e]->(y) columns (x.id));

