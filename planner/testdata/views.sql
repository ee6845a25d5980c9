-- Differential script: SQL views. Every statement runs on PostgreSQL 15
-- and on pgproxy; command tags, rows (text format) and errors (SQLSTATE,
-- message, detail) must be identical.
create table emp (id int8 primary key, name text not null, dept varchar(10), salary numeric(8,2), boss int8);
create table dept (code varchar(10) primary key, title text);
insert into emp values (1, 'ada', 'eng', 120.50, null), (2, 'bob', 'eng', 99, 1), (3, 'cy', 'ops', 80, 1), (4, 'di', null, 70, 3);
insert into dept values ('eng', 'Engineering'), ('ops', 'Operations'), ('hr', 'People');
-- creation and use
create view eng as select id, name, salary from emp where dept = 'eng';
select * from eng order by id;
select name from eng where salary > 100;
select e.name, d.title from eng e join emp x on x.id = e.id join dept d on d.code = x.dept order by 1;
select count(*), sum(salary) from eng;
select * from eng where id in (select boss from emp) order by id;
with eng as (select 42 as id) select count(*) from eng;
with x as (select * from eng) select name from x order by name;
select (select max(salary) from eng) as top;
select * from (select name from eng) s order by 1;
select eng.* from eng order by id desc limit 1;
select * from eng natural join emp order by id;
create view payroll (who, pay) as select name, salary * 12 from emp;
select * from payroll order by who;
select who from payroll where pay > 1000 order by pay desc;
-- views over views, joins and aggregates
create view senior as select e.who, e.pay from payroll e where e.pay >= 1188;
select * from senior order by who;
create view by_dept as select coalesce(d.title, '(none)') as title, count(e.id) as n, avg(e.salary)::numeric(8,2) as avg_salary from emp e left join dept d on d.code = e.dept group by 1 order by 1;
select * from by_dept;
select title from by_dept where n > 1;
create view ranked as select name, dept, rank() over (partition by dept order by salary desc) as r from emp;
select * from ranked order by dept, r, name;
create view u as select id from emp where id < 2 union all select id from emp where id > 3;
select * from u order by 1;
create view consts as select 1 as one, 'two' as two, null as three, 1.5 as four, now() is not null as five;
select * from consts;
create view empty_cols as select;
select count(*) from empty_cols;
create recursive view chain (id, depth) as select 1::int8, 0 union all select e.id, c.depth + 1 from emp e join chain c on e.boss = c.id;
select * from chain order by id, depth;
create view distinct_depts as select distinct dept from emp;
select * from distinct_depts order by 1;
-- * is expanded at creation: a later column does not appear
create view star as select * from dept;
alter table dept add column budget int default 0;
select * from star order by code;
select * from dept order by code;
-- the query is checked when the view is created
create view bad1 as select nope from emp;
create view bad2 as select * from nope;
create view bad3 as select 1 as a, 2 as a;
create view bad4 as select id, id from emp;
create view bad5 (a, b, c) as select 1, 2;
create view bad6 as select $1;
create view bad7 as select emp.nope from emp;
create view bad8 as select id from emp e where x.id = 1;
create view eng as select 1;
create view emp as select 1;
create view if not exists eng2 as select 1;
-- CREATE OR REPLACE: same columns, new ones at the end
create or replace view eng as select id, name, salary from emp where dept = 'eng' and salary < 110;
select * from eng order by id;
create or replace view eng as select id, name, salary, dept from emp where dept = 'eng';
select * from eng order by id;
create or replace view eng as select id, name from emp;
create or replace view eng as select id, name as nm, salary, dept from emp;
create or replace view eng as select id, name, salary::int, dept from emp;
create or replace view eng as select id::int4, name, salary, dept from emp;
create or replace view emp as select 1;
create or replace view payroll (who, pay, extra) as select name, salary * 12, 1 from emp;
select * from payroll order by who;
-- shared namespace and wrong object types
create table eng (x int);
create sequence eng;
create index on eng (id);
drop table eng;
drop sequence eng;
drop index eng;
drop view emp;
drop view dept_code_seq;
drop view emp_pkey;
truncate eng;
alter table eng add column z int;
alter view emp rename to emp2;
comment on view emp is 'no';
comment on table eng is 'no';
insert into emp select 5, 'ed', 'hr', 1, null;
select * from eng order by id;
-- dependencies
drop table emp;
drop view payroll;
alter table emp drop column name;
alter table emp drop column salary;
alter table emp drop column boss;
alter table emp alter column salary type numeric(10,2);
alter table emp alter column name type varchar(20);
alter table emp alter column boss type int4;
select * from eng order by id;
begin;
drop table emp cascade;
select count(*) from pg_views where schemaname = 'public';
rollback;
select count(*) from pg_views where schemaname = 'public';
begin;
alter table emp drop column name cascade;
select viewname from pg_views where schemaname = 'public' order by 1;
rollback;
begin;
drop view payroll cascade;
select viewname from pg_views where schemaname = 'public' order by 1;
rollback;
drop view senior;
drop view senior;
drop view if exists senior, nope;
drop view nope;
drop view consts, empty_cols;
select viewname from pg_views where schemaname = 'public' order by 1;
-- renames: the definition follows
alter table emp rename column name to full_name;
select * from eng order by id;
select pg_get_viewdef('eng'::regclass, true);
alter table emp rename to staff;
select * from eng order by id;
select pg_get_viewdef('eng'::regclass, true);
select pg_get_viewdef('payroll', true);
alter view eng rename to engineers;
select * from engineers order by id;
alter table engineers rename to eng;
alter view eng rename column name to person;
alter view eng rename column full_name to person;
alter view eng rename column nope to x;
alter view eng rename column full_name to id;
select * from eng order by id;
alter view nope rename to x;
alter view if exists nope rename to x;
alter view staff rename to x;
alter view eng rename to staff;
create view over_eng as select person from eng;
alter view eng rename column person to who;
select * from over_eng order by 1;
select pg_get_viewdef('over_eng', true);
alter view eng rename to eng2;
select pg_get_viewdef('over_eng', true);
alter table staff rename column dept to division;
select pg_get_viewdef('eng2', true);
select * from eng2 order by id;
-- comments
comment on view eng2 is 'engineers';
comment on column eng2.who is 'their name';
select obj_description('eng2'::regclass, 'pg_class'), col_description('eng2'::regclass, 2);
comment on view eng2 is null;
select obj_description('eng2'::regclass, 'pg_class');
-- catalogs
select relname, relkind, relnatts, relhasrules, relhasindex, relpersistence, relam, relkind <> 'v' or reltuples = -1 from pg_class where relname in ('eng2', 'payroll', 'staff') order by 1;
select attname, attnum, format_type(atttypid, atttypmod), attnotnull, atthasdef from pg_attribute where attrelid = 'payroll'::regclass and attnum > 0 order by attnum;
select viewname, viewowner is not null, definition from pg_views where schemaname = 'public' order by 1;
select pg_get_viewdef('by_dept'), pg_get_viewdef('by_dept'::regclass::oid, true);
select pg_get_viewdef('staff'), pg_get_viewdef(0), pg_get_viewdef('pg_class');
select pg_get_viewdef('nope');
-- (is_updatable and is_insertable_into differ: PostgreSQL's simple
-- views are automatically updatable, pggraph's are read-only)
select table_name, table_type from information_schema.tables where table_schema = 'public' order by 1;
select table_name, check_option, is_trigger_updatable, is_trigger_deletable, is_trigger_insertable_into, view_definition from information_schema.views where table_schema = 'public' order by 1;
select table_name, column_name, ordinal_position, data_type, is_nullable, character_maximum_length, numeric_precision, numeric_scale from information_schema.columns where table_name in ('payroll', 'by_dept', 'star') order by 1, 3;
select r.rulename, c.relname, r.ev_type, r.is_instead from pg_rewrite r join pg_class c on c.oid = r.ev_class where c.relnamespace = 'public'::regnamespace order by 2;
select c.relname, t.relname as ref, d.refobjsubid, d.deptype from pg_depend d join pg_rewrite r on r.oid = d.objid join pg_class c on c.oid = r.ev_class join pg_class t on t.oid = d.refobjid where d.classid = 'pg_rewrite'::regclass and c.relname in ('payroll', 'by_dept', 'senior') order by 1, 2, 3, 4;
select c.relname from pg_depend d join pg_rewrite r on r.oid = d.objid join pg_class c on c.oid = r.ev_class where d.refobjid = 'staff'::regclass and d.deptype = 'n' group by 1 order by 1;
select count(*) from pg_type where typname = 'payroll' and typrelid = 'payroll'::regclass;
-- COPY
copy (select * from payroll order by who) to stdout;
copy payroll to stdout;
-- reads through views in transactions see the transaction's writes
begin;
insert into staff values (9, 'zed', 'eng', 500, null);
select * from eng2 order by id;
create view rich as select full_name from staff where salary > 200;
select * from rich;
rollback;
select * from rich;
select * from eng2 order by id;
-- a view that reaches itself
create view loop1 as select 1 as x;
create view loop2 as select x from loop1;
create or replace view loop1 as select x from loop2;
select * from loop1;
drop view loop1 cascade;
-- view options PostgreSQL does not know
create view ov2 with (foo = 1) as select id from staff;
-- DROP TABLE / DROP VIEW name an index, a missing relation, the other kind
create table dropt (id int8 primary key, v text);
create index dropt_v on dropt (v);
create view dropv as select id from dropt;
drop table dropt_v;
drop view dropt_v;
drop table dropv;
drop view dropt;
drop table if exists nosuch, dropt_nope;
drop view if exists nosuch;
drop table nosuch;
drop view dropv, dropv;
drop table dropt;
