-- Differential script: ALTER SCHEMA … RENAME TO of a schema that holds
-- tables (indexes, constraints and foreign keys follow; the old name is
-- gone). Every statement runs on PostgreSQL 15 and on pgproxy; command
-- tags, rows (text format) and errors must be identical.
create schema sales;
create table sales.customers (id int primary key, email text unique);
create table sales.orders (id int primary key, customer_id int references sales.customers (id), total int check (total >= 0));
create index orders_total_idx on sales.orders (total);
create table audit (id int primary key, customer_id int references sales.customers (id));
insert into sales.customers values (1, 'a@x'), (2, 'b@x');
insert into sales.orders values (10, 1, 5), (11, 2, 7);
insert into audit values (100, 1);
alter schema sales rename to crm;
select * from crm.customers order by id;
select * from crm.orders order by id;
select * from sales.orders;
select nspname from pg_namespace where nspname in ('sales', 'crm');
select n.nspname, c.relname, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname in ('sales', 'crm') order by 2;
insert into crm.orders values (12, 99, 1);
insert into crm.orders values (12, 1, -1);
insert into crm.customers values (3, 'a@x');
delete from crm.customers where id = 2;
insert into crm.orders values (12, 1, 3);
select o.id, c.email from crm.orders o join crm.customers c on c.id = o.customer_id order by o.id;
select conname, conrelid::regclass::text, confrelid::regclass::text from pg_constraint where contype = 'f' order by 1;
set search_path = crm, public;
select count(*) from orders;
reset search_path;
alter schema crm rename to audit;
alter schema crm rename to pg_crm;
alter schema nosuch rename to other;
create schema other;
alter schema crm rename to other;
begin;
alter schema crm rename to sales;
select count(*) from sales.customers;
rollback;
select count(*) from crm.customers;
drop schema crm cascade;
select * from audit;
