-- Named property graphs (CREATE/ALTER/DROP PROPERTY GRAPH): one table
-- with several labels, one label over several tables (with the same
-- property names), computed properties, explicit keys on a table
-- without a primary key, endpoints from foreign keys and given by
-- SOURCE/DESTINATION KEY … REFERENCES. Each GRAPH_TABLE query is followed
-- by its equivalent in PostgreSQL 15 SQL, written by hand; the property
-- graph statements run on pgproxy only.
create table person (id int primary key, name text, age int);
create table org (oid int primary key, title text, size int);
create table knows (a int not null references person (id), b int not null references person (id), since int);
create table member (p int not null references person (id), o int not null references org (oid), role text);
create table likes (src int not null, dst int not null, stars int);
insert into person values (1, 'Ada', 36), (2, 'Bob', 25), (3, 'Cy', null), (4, 'Dee', 41), (5, null, 30);
insert into org values (10, 'Acme', 500), (11, 'Globex', null), (12, 'Initech', 40);
insert into knows values (1, 2, 2010), (2, 3, 2012), (3, 1, null), (1, 2, 2020), (4, 4, 2018), (2, 4, 2001);
insert into member values (1, 10, 'eng'), (2, 10, null), (3, 11, 'ceo'), (1, 12, 'advisor');
insert into likes values (1, 3, 5), (3, 3, 2), (5, 1, null), (4, 2, 4);

create property graph social
  vertex tables (
    person label person label human properties (name, age, age * 12 as months, id),
    org as company key (oid) label org properties (oid as id, title as name, size)
  )
  edge tables (
    knows key (a, b, since) source key (a) references person (id) destination key (b) references person (id) label knows properties (since),
    member key (p, o) source person destination company label member_of properties (role, upper(role) as shout),
    likes key (src, dst) source key (src) references person (id) destination key (dst) references person (id)
      label knows properties (stars as since) label likes properties (stars, stars >= 4 as good)
  );

select * from graph_table (social match (x is human) columns (x.name, x.months));
select name, age * 12 as months from person;

select * from graph_table (social match (x is person) columns (x.id, x.name, x.age));
select id, name, age from person;

select * from graph_table (social match (x is org) columns (x.id, x.name, x.size));
select oid as id, title as name, size from org;

-- one label spanning tables: person and org share id and name
select * from graph_table (social match (x is person|org) columns (x.id, x.name));
select id, name from person union all select oid, title from org;

select * from graph_table (social match (x) columns (x.id, x.name, x.age, x.size));
select id, name, age, null::int as size from person union all select oid, title, null, size from org;

-- element functions: an element's labels and property names (a text[]
-- sorted by name; a table with several labels exposes each label's
-- properties once)
select * from graph_table (social match (x) columns (x.id, labels(x) as l, property_names(x) as p));
select id, array['human', 'person'] as l, array['age', 'id', 'months', 'name'] as p from person union all select oid, array['org'], array['id', 'name', 'size'] from org;

select * from graph_table (social match (a)-[k]->(b) where a.id = 1 columns (b.id, labels(k) as l, property_names(k) as p));
select b as id, array['knows'] as l, array['since'] as p from knows where a = 1 union all select o, array['member_of'], array['role', 'shout'] from member where p = 1 union all select dst, array['knows', 'likes'], array['good', 'since', 'stars'] from likes where src = 1;

select * from graph_table (social match (x) where 'size' = any (property_names(x)) or 'human' = any (labels(x)) and x.age > 30 columns (x.name));
select name from person where age > 30 union all select title from org;

select * from graph_table (social match (x is human where x.months > 400) columns (x.name));
select name from person where age * 12 > 400;

select * from graph_table (social match (x is !human) columns (x.name));
select title as name from org;

-- the label knows spans two edge tables
select * from graph_table (social match (a is person)-[k is knows]->(b is person) columns (a.id as a, b.id as b, k.since));
select a, b, since from knows union all select src, dst, stars from likes;

select * from graph_table (social match (a)-[k is likes]->(b) columns (a.name as a, b.name as b, k.stars, k.good));
select p.name as a, q.name as b, l.stars, l.stars >= 4 as good from likes l join person p on p.id = l.src join person q on q.id = l.dst;

select * from graph_table (social match (a)-[k is likes where k.good]->(b) columns (a.id as a, b.id as b));
select src as a, dst as b from likes where stars >= 4;

select * from graph_table (social match (p is person)-[m is member_of]->(c is org) columns (p.name, c.name as org, m.role, m.shout));
select p.name, o.title as org, m.role, upper(m.role) as shout from member m join person p on p.id = m.p join org o on o.oid = m.o;

select * from graph_table (social match (c is org)<-[m]-(p) columns (c.id as c, p.id as p));
select o as c, p from member;

select * from graph_table (social match (a is person where a.name = 'Ada')-[k is knows]->(b)-[m is member_of]->(c) columns (b.name, c.name as org));
select b.name, o.title as org from person a join (select a as s, b as d from knows union all select src, dst from likes) k on k.s = a.id join person b on b.id = k.d join member m on m.p = b.id join org o on o.oid = m.o where a.name = 'Ada';

select * from graph_table (social match (a)-[k is knows]-(b) where a.id = 3 columns (b.id, k.since));
select case when k.a = 3 then k.b else k.a end as id, k.since from knows k where k.a = 3 or k.b = 3 union all select case when l.src = 3 then l.dst else l.src end, l.stars from likes l where l.src = 3 or l.dst = 3;

select * from graph_table (social match (a is person where a.id = 1)-[is knows]->{1,2}(b) columns (b.id));
with recursive e(s, d) as (select a, b from knows union all select src, dst from likes), r(d, n) as (select 1, 0 union all select e.d, r.n + 1 from r join e on e.s = r.d where r.n < 2) select d as id from r where n >= 1;

select * from graph_table (social match (a)-[is member_of]->(c), (a)-[is knows]->(a) columns (a.id, c.id as c));
select distinct m.p as id, m.o as c from member m join (select a, b from knows union all select src, dst from likes) k on k.a = m.p and k.b = m.p;

-- error 42704 label "city" does not exist in property graph "social"
select * from graph_table (social match (x is city) columns (x.id));

-- error 42601 property "title" does not exist
select * from graph_table (social match (x is org) columns (x.title));

-- error 42P01 property graph "nosuch" does not exist
select * from graph_table (nosuch match (x) columns (x.id));

-- the implicit graph is still there beside the named one
select * from graph_table (graph match (x is org) columns (x.oid, x.title));
select oid, title from org;

-- error 42P07 relation "social" already exists
create property graph social vertex tables (person);

-- error 42P07 relation "person" already exists
create property graph person vertex tables (org);

-- error 42P17 no key specified and no suitable primary key exists for definition of element "likes"
create property graph g2 vertex tables (likes);

-- error 42601 more than one suitable foreign key exists for SOURCE key of edge "knows"
create property graph g2 vertex tables (person) edge tables (knows key (a, b) source person destination person);

-- error 42P17 source vertex "nobody" of edge "member" does not exist
create property graph g2 vertex tables (person, org) edge tables (member key (p, o) source nobody destination org);

-- error 42703 column "nosuch" of relation "person" does not exist
create property graph g2 vertex tables (person key (nosuch));

-- error 42P07 alias "person" used more than once as element table
create property graph g2 vertex tables (person, org as person);

-- error 42601 property "name" data type mismatch
create property graph g2 vertex tables (person properties (name), org properties (size as name));

-- error 42P17 mismatching number of properties in definition of label "l"
create property graph g2 vertex tables (person label l properties (name), org label l properties (title as name, size));

-- error 42P17 mismatching property names in definition of label "l"
create property graph g2 vertex tables (person label l properties (name), org label l properties (size));

-- error 42601 property name required
create property graph g2 vertex tables (person properties (age + 1));

-- error 42710 property "age" specified more than once
create property graph g2 vertex tables (person properties (age, name as age));

-- error 2BP01 cannot drop table person because other objects depend on it
drop table person;

-- error 42601 syntax error
create property graph g2 vertex tables (person key);

-- ALTER: a label added to a table, an element table added and dropped
alter property graph social alter vertex table company add label place properties (title as name);

select * from graph_table (social match (x is place) columns (x.name));
select title as name from org;

-- error 42710 label "place" already exists
alter property graph social alter vertex table company add label place;

alter property graph social alter vertex table company drop label place;

-- error 42704 label "place" does not exist in property graph "social"
select * from graph_table (social match (x is place) columns (x.name));

-- error 2BP01 cannot drop vertex company of property graph social
alter property graph social drop vertex tables (company);

alter property graph social drop edge tables (member);

alter property graph social drop vertex tables (company);

select * from graph_table (social match (x) columns (x.id));
select id from person;

alter property graph social add vertex tables (org key (oid) properties (oid as id, title as name)) edge tables (member key (p, o) source person destination org label works properties (role));

select * from graph_table (social match (p)-[w is works]->(o is org) columns (p.id as p, o.name as o, w.role));
select m.p, o.title as o, m.role from member m join org o on o.oid = m.o;

alter property graph social alter edge table member alter label works add properties (o as org_id);

select * from graph_table (social match (p)-[w is works]->(o) columns (w.org_id, w.role));
select o as org_id, role from member;

alter property graph social alter edge table member alter label works drop properties (org_id);

-- error 42601 property "org_id" does not exist
select * from graph_table (social match (p)-[w is works]->(o) columns (w.org_id));

create or replace property graph social vertex tables (person no properties) edge tables (knows key (a, b, since) source key (a) references person (id) destination key (b) references person (id) default label properties all columns);

select * from graph_table (social match (a)-[k]->(b) columns (k.a, k.b, k.since));
select a, b, since from knows;

-- error 42601 property "name" does not exist
select * from graph_table (social match (a is person) columns (a.name));

alter property graph social rename to social2;

select * from graph_table (social2 match (a)-[k]->(b) where k.since > 2011 columns (k.a));
select a from knows where since > 2011;

drop property graph social2;

-- error 42P01 property graph "social2" does not exist
select * from graph_table (social2 match (a) columns (a.id));

-- error 42P01 property graph "social2" does not exist
drop property graph social2;

drop property graph if exists social2;

alter property graph if exists social2 add vertex tables (person);

drop table likes;

-- renames follow into the graph; dropping a column it reads is refused
create property graph g3 vertex tables (person properties (name, age + 1 as older)) edge tables (knows key (a, b) source key (a) references person (id) destination key (b) references person (id));

alter table person rename column age to years;

alter table person rename column id to pid;

alter table knows rename column b to dst;

alter table knows rename to acquainted;

select * from graph_table (g3 match (x where x.older > 30)-[k]->(y) columns (x.name, y.name as other, k.since));
select x.name, y.name as other, k.since from person x join acquainted k on k.a = x.pid join person y on y.pid = k.dst where x.years + 1 > 30;

-- error 2BP01 cannot drop column years of table person because other objects depend on it
alter table person drop column years;

-- error 2BP01 cannot drop table acquainted because other objects depend on it
drop table acquainted;

-- the element keeps its alias (the table's name when it was added)
-- error 42704 property graph "g3" has no edge "acquainted"
alter property graph g3 drop edge tables (acquainted);

alter property graph g3 drop edge tables (knows);

drop table acquainted;

drop property graph g3;

alter table person drop column years;
