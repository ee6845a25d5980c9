-- ON DELETE actions, set-based: every level of a cascade, SET NULL,
-- SET DEFAULT, RESTRICT below a cascade, self references, transactions.
create table a (id int8 primary key, name text);
create table b (id int8 primary key, a_id int8 references a (id) on delete cascade, note text);
create table c (id int8 primary key, b_id int8 references b (id) on delete cascade);
create table d (id int8 primary key, c_id int8 references c (id) on delete cascade);
insert into a values (1, 'one'), (2, 'two'), (3, 'three');
insert into b values (10, 1, 'x'), (11, 1, 'y'), (12, 2, 'z'), (13, null, 'orphan');
insert into c values (100, 10), (101, 10), (102, 11), (103, 12), (104, 13);
insert into d values (1000, 100), (1001, 101), (1002, 102), (1003, 103), (1004, 104), (1005, 100);
delete from a where id = 1;
select id from b order by id;
select id from c order by id;
select id from d order by id;
delete from a where id in (2, 3) returning id, name;
select count(*) from b;
select id from c order by id;
select id from d order by id;
-- SET NULL and SET DEFAULT
create table p (id int primary key);
insert into p values (0), (1), (2), (3);
create table sn (id int primary key, p_id int references p on delete set null, v text);
create table sd (id int primary key, p_id int default 0 references p on delete set default, v text);
insert into sn values (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c'), (4, null, 'd');
insert into sd values (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c');
delete from p where id = 1;
select * from sn order by id;
select * from sd order by id;
delete from p where id in (2, 3);
select * from sn order by id;
select * from sd order by id;
-- the default itself is gone: SET DEFAULT then violates the key
delete from p where id = 0;
select * from p order by id;
-- SET NULL into a NOT NULL column
create table q (id int primary key);
create table qn (id int primary key, q_id int not null references q on delete set null);
insert into q values (1);
insert into qn values (7, 1);
delete from q where id = 1;
select * from qn;
-- a cascade reaching a RESTRICT
create table r1 (id int primary key);
create table r2 (id int primary key, r1_id int references r1 on delete cascade);
create table r3 (id int primary key, r2_id int references r2 on delete restrict);
insert into r1 values (1), (2);
insert into r2 values (10, 1), (20, 2);
insert into r3 values (100, 20);
delete from r1 where id = 1;
delete from r1 where id = 2;
select * from r1 order by id;
select * from r2 order by id;
-- NO ACTION
create table n1 (id int primary key);
create table n2 (id int primary key, n1_id int references n1);
insert into n1 values (1), (2), (3);
insert into n2 values (1, 2), (2, 3);
delete from n1 where id >= 2;
delete from n1 where id = 1;
select * from n1 order by id;
-- a tree: deleting the root removes every descendant (many levels of one table)
create table tree (id int primary key, parent int references tree on delete cascade);
insert into tree values (1, null), (2, 1), (3, 1), (4, 2), (5, 4), (6, 5), (7, 6), (8, 3), (9, null), (10, 9);
delete from tree where id = 1;
select id from tree order by id;
-- two foreign keys of one table to the same parent (edges)
create table node (id int8 primary key);
create table edge (src int8 not null references node on delete cascade, dst int8 not null references node on delete cascade, w float8);
insert into node select g from generate_series(1, 50) g;
insert into edge select g, g + 1, 0.5 from generate_series(1, 49) g;
insert into edge select g, g + 2, 0.25 from generate_series(1, 48) g;
delete from node where id % 10 = 1;
select count(*) from edge;
select count(*) from edge where src % 10 = 1 or dst % 10 = 1;
-- read-your-writes: pending parents and children inside a transaction
begin;
insert into a values (50, 'fifty');
insert into b values (500, 50, 'p'), (501, 50, 'q');
insert into c values (5000, 500), (5001, 501);
delete from a where id = 50;
select count(*) from b where a_id = 50;
select count(*) from c where id >= 5000;
commit;
select count(*) from c where id >= 5000;
