-- Differential script: CREATE TABLE … AS and SELECT … INTO (tables made
-- from a query, filled in the same commit).
create table src (id int8 primary key, name varchar(10), price numeric(8,2), at timestamptz, tags text[], ok bool);
insert into src values (1, 'ada', 1.50, '2024-01-02 03:04:05+00', '{a,b}', true), (2, 'bob', null, null, null, false), (3, 'cy', 10, '2023-05-06 00:00:00+00', '{}', null);
create table t1 as select * from src;
select * from t1 order by id;
select column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, is_nullable from information_schema.columns where table_name = 't1' order by ordinal_position;
create table t2 (a, b) as select id, name, price * 2 from src where id > 1;
select * from t2 order by a;
select attname, format_type(atttypid, atttypmod) from pg_attribute where attrelid = 't2'::regclass and attnum > 0 order by attnum;
create table t3 as select 1 as x, 'lit' as y, 2.5 as z, null as n, now() is not null as w;
select x, y, z, n, w from t3;
select attname, format_type(atttypid, atttypmod) from pg_attribute where attrelid = 't3'::regclass and attnum > 0 order by attnum;
create table t4 as select id from src with no data;
select count(*) from t4;
insert into t4 values (7);
select * from t4;
create table if not exists t4 as select 1;
create table if not exists t5 as select id, name from src order by id desc limit 2;
select * from t5;
create table t6 as select count(*), sum(price) from src;
select * from t6;
create table t7 as select 1;
select * from t7;
create table t8 as with c as (select id from src where ok) select c.id, s.name from c join src s using (id);
select * from t8;
create table t9 as values (1, 'one'), (2, 'two');
select * from t9 order by column1;
create table t10 as table src;
select count(*) from t10;
create table t11 as select * from src where false;
select count(*) from t11;
-- SELECT … INTO
select id, name into t12 from src where id <> 2 order by id;
select * from t12;
select name as nm into table t13 from src;
select count(*) from t13;
select * into t14 from src union all select * from src;
select count(*) from t14;
-- errors
create table t1 as select 1;
create table e1 as select 1 as a, 2 as a;
create table e2 (a, b, c) as select 1, 2;
create table e3 (a, a) as select 1, 2;
create table e4 as select * from missing;
create table e5 as select 1/0;
select * from e5;
create table e6 as select nocol from src;
select 1 into e1 from src where id = 1;
select * from e1;
create table e7 as select 1 into e8;
-- in a transaction: the table and its rows are one unit
begin;
create table tx1 as select id from src;
select count(*) from tx1;
rollback;
select count(*) from tx1;
begin;
create table tx2 as select id, name from src;
insert into tx2 values (9, 'z');
commit;
select * from tx2 order by id;
drop table t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, tx2;
-- positions of errors in the query, INTO forms, options
create table e9 (x) as select
  nocol from src with no data;
select id into table public.t15 from src where id = 1;
select * from t15;
select id into unlogged t17 from src;
create table t19 with (fillfactor = 70) as select 1 as a;
select * from t19;
create table t20 as select row(1, 2) as r;
create table t21 as select 1 as a union select 2 order by 1;
select * from t21;
create table t22 as select $$x$$::varchar(3) as v, 1.5::numeric(4,1) as n, '2020-01-01'::date as d, array[1,2] as a;
select attname, format_type(atttypid, atttypmod) from pg_attribute where attrelid = 't22'::regclass and attnum > 0 order by attnum;
drop table t15, t19, t21, t22;
