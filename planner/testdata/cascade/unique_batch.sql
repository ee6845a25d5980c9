-- PRIMARY KEY / UNIQUE checks of multi-row statements: a duplicate inside
-- one statement's batch, against existing rows, multi-column keys,
-- NULLs never conflict, and UPDATE moving keys.
create table u (id int8 primary key, email text unique, a int, b int, unique (a, b));
insert into u values (1, 'a@x', 1, 1), (2, 'b@x', 1, 2);
insert into u values (3, 'c@x', 2, 1), (4, 'd@x', 2, 2), (3, 'e@x', 2, 3);
insert into u values (5, 'a@x', 3, 1);
insert into u values (5, 'f@x', 3, 1), (6, 'f@x', 3, 2);
insert into u values (7, 'g@x', 1, 2);
insert into u values (7, 'g@x', 5, 5), (8, 'h@x', 5, 5);
insert into u values (9, null, null, 1), (10, null, null, 1), (11, 'i@x', 6, null), (12, 'j@x', 6, null);
insert into u select g, 'gen' || g, 100 + g, g from generate_series(100, 2000) g;
insert into u select g, 'gen' || g, 100 + g, g from generate_series(2000, 2001) g;
insert into u select g, 'dup', 5000 + g, g from generate_series(3000, 3002) g;
select count(*) from u;
update u set email = 'a@x' where id = 2;
update u set a = 1, b = 1 where id = 9;
update u set email = 'moved' where id = 1;
update u set email = 'a@x' where id = 2;
update u set id = 2001 where id = 100;
select id, email from u where id <= 2 order by id;
begin;
insert into u values (20000, 'tx@x', 0, 0);
insert into u values (20001, 'tx@x', 0, 1);
rollback;
begin;
insert into u values (20000, 'tx@x', 0, 0);
delete from u where id = 20000;
insert into u values (20001, 'tx@x', 0, 1);
commit;
select id, email from u where id >= 20000;
-- the first offending row in statement order is reported
insert into u values (30, 'k@x', 30, 30), (30, 'l@x', 31, 31), (1, 'm@x', 32, 32);
insert into u values (40, 'n@x', 40, 40), (1, 'o@x', 41, 41), (40, 'p@x', 42, 42);
insert into u values (50, 'q@x', 50, 50), (51, 'q@x', 51, 51), (52, 'a@x', 52, 52);
select count(*) from u where id >= 30 and id < 60;
