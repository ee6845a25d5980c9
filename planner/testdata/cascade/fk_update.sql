-- ON UPDATE actions: CASCADE (one and two levels, multi-column keys,
-- an edge table with two keys), SET NULL, SET DEFAULT, RESTRICT and NO
-- ACTION (a key moved to another row still exists).
create table parent (id int primary key, code text unique, v text);
create table child (id int primary key, pid int references parent on update cascade on delete cascade, code text references parent (code) on update set null);
create table grandchild (id int primary key, cid int references child on update cascade);
insert into parent values (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'z');
insert into child values (10, 1, 'a'), (11, 1, 'b'), (12, 2, 'c'), (13, null, null);
insert into grandchild values (100, 10), (101, 11), (102, 12);
update parent set id = id + 10 where id <= 2;
select * from parent order by id;
select * from child order by id;
update child set id = id * 10 where pid = 11;
select * from child order by id;
select * from grandchild order by id;
update parent set code = code || '2' where id = 11;
select * from child order by id;
-- update that leaves referenced keys alone has no consequence
update parent set v = 'w';
select count(*) from child where pid is not null;
-- SET DEFAULT on update
create table sp (id int primary key);
insert into sp values (0), (1), (2);
create table sdu (id int primary key, sp_id int default 0 references sp on update set default);
insert into sdu values (1, 1), (2, 2), (3, null);
update sp set id = 5 where id = 1;
select * from sdu order by id;
update sp set id = 7 where id = 0;
select * from sdu order by id;
-- RESTRICT and NO ACTION
create table rp (id int primary key);
create table rr (id int primary key, rp_id int references rp on update restrict);
create table rn (id int primary key, rp_id int references rp on update no action);
insert into rp values (1), (2), (3);
insert into rr values (1, 1);
insert into rn values (1, 2);
update rp set id = 10 where id = 1;
update rp set id = 20 where id = 2;
update rp set id = 30 where id = 3;
select * from rp order by id;
-- multi-column key
create table mp (a int, b text, primary key (a, b));
create table mc (id int primary key, a int, b text, foreign key (a, b) references mp on update cascade on delete set null);
insert into mp values (1, 'x'), (1, 'y'), (2, 'x');
insert into mc values (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'x'), (4, 1, null);
update mp set b = 'z' where a = 1 and b = 'x';
select * from mc order by id;
update mp set a = a + 100 where b <> 'z';
select * from mc order by id;
delete from mp where a = 1;
select * from mc order by id;
-- edges: both endpoints follow their nodes
create table vert (id int8 primary key, name text);
create table arc (src int8 references vert on update cascade, dst int8 references vert on update cascade);
insert into vert select g, 'v' || g from generate_series(1, 20) g;
insert into arc select g, g % 20 + 1 from generate_series(1, 20) g;
update vert set id = id + 1000 where id % 3 = 0;
select count(*) from arc where src > 1000 or dst > 1000;
select * from arc where src in (1003, 1006) or dst in (1003, 1006) order by src, dst;
-- ON UPDATE CASCADE inside a transaction, over pending rows
begin;
insert into parent values (40, 'q', 'p');
insert into child values (400, 40, 'q');
insert into grandchild values (4000, 400);
update parent set id = 41 where id = 40;
update child set id = 401 where id = 400;
select * from child where id >= 400;
select * from grandchild where id >= 4000;
commit;
select * from grandchild where id >= 4000;
