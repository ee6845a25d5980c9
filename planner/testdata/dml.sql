-- Differential script: every statement runs on PostgreSQL 15 and on
-- pgproxy; command tags, rows (text format) and errors (SQLSTATE,
-- message, detail) must be identical.
create table person (id int8 primary key, name text not null, age int4 check (age >= 0), email text unique);
create table company (id int8 primary key, name text not null);
create table knows (src int8 not null references person(id) on delete cascade, dst int8 not null references person(id) on delete cascade, since int4, primary key (src, dst));
create table works_at (pid int8 references person(id) on delete set null, cid int8 not null references company(id), role text);
create table note (id int8 primary key, pid int8 references person(id) on delete restrict, body text);
insert into person values (1, 'ada', 36, 'ada@x'), (2, 'bob', 40, 'bob@x'), (3, 'cy', 20, null);
insert into person (id, name) values (4, 'di') returning id, name, age, email;
insert into company values (10, 'acme'), (11, 'initech');
insert into knows values (1, 2, 2020), (2, 3, 2021), (1, 3, 2019), (3, 1, 2018);
insert into works_at values (1, 10, 'eng'), (2, 10, 'ops'), (3, 11, 'ceo');
insert into note values (100, 4, 'hello');
select * from person order by id;
-- unique, not null, check, foreign key violations
insert into person values (1, 'dup', 1, null);
insert into person values (5, 'dup', 1, 'ada@x');
insert into person (id, age) values (5, 1);
insert into person values (5, 'neg', -1, null);
update person set age = -5 where id = 2;
insert into knows values (1, 99, 2000);
insert into knows values (1, 2, 1999);
insert into works_at values (1, 12, 'x');
update works_at set cid = 13 where pid = 1;
delete from person where id = 4;
delete from company where id = 11;
-- cascade and set null
delete from person where id = 3 returning id, name;
select * from knows order by src, dst;
select pid, cid, role from works_at order by cid, role;
-- ON CONFLICT
insert into person values (1, 'x', 1, null) on conflict do nothing;
insert into person values (1, 'ada2', 37, null), (6, 'ed', 50, null) on conflict (id) do update set name = excluded.name, age = person.age + 1 returning id, name, age;
insert into person as p values (2, 'no', 0, null) on conflict (id) do update set name = 'yes' where p.age > 100;
insert into person values (7, 'a', 1, null), (7, 'b', 2, null) on conflict (id) do update set name = excluded.name;
insert into person values (1, 'a', 1, null) on conflict (name) do nothing;
insert into person values (8, 'fa', 30, 'bob@x') on conflict (email) do update set age = excluded.age returning id, age;
select * from person order by id;
-- UPDATE forms
update person set age = age + 1 where id in (1, 2) returning id, age;
update person p set name = c.name from company c where c.id = 10 and p.id = 6 returning p.id, p.name;
update person set (name, age) = ('pair', 9) where id = 6 returning *;
update person set id = 2 where id = 1;
update person set nope = 1;
update person set age = 'x' where id = 1;
-- DELETE forms
delete from person p using company c where c.name = 'acme' and p.id = 6 returning p.*;
delete from knows where since < 2020;
select * from knows order by src, dst;
-- MERGE
merge into person t using (values (1, 'm1'), (50, 'm50')) as s(id, name) on t.id = s.id when matched then update set name = s.name when not matched then insert (id, name) values (s.id, s.name);
merge into person t using (select 50 as id) s on t.id = s.id when matched then delete;
merge into person t using (values (1), (1)) s(id) on t.id = s.id when matched then update set age = 0;
select id, name, age from person order by id;
-- transactions
begin;
insert into person values (60, 'tx', 1, null);
savepoint a;
insert into person values (61, 'tx', 1, null);
rollback to savepoint a;
select id from person where id >= 60 order by id;
commit;
begin;
insert into person values (1, 'dup', 1, null);
select 1;
rollback;
select id from person where id >= 60 order by id;
-- truncate
truncate knows;
truncate person;
truncate person, knows, works_at, note;
select count(*) from person;
-- unique indexes and ON UPDATE / ON DELETE actions
create table tag (id int8 primary key, label text);
create unique index tag_label_idx on tag (label);
insert into tag values (1, 'a'), (2, 'b');
insert into tag values (3, 'a');
update tag set label = 'b' where id = 1;
create table tagged (tid int8 references tag(id) on delete set default default 2, n int4);
insert into tagged values (1, 10), (2, 20);
delete from tag where id = 1;
select tid, n from tagged order by n;
update tag set id = 5 where id = 2;
-- DELETE … USING … RETURNING sees the USING relations
insert into tag values (7, 'seven'), (8, 'eight');
insert into tagged values (7, 70), (8, 80);
delete from tagged t using tag g where g.id = t.tid and g.label like 's%' returning t.n, g.label;
delete from tagged returning *;
-- UPDATE … FROM … RETURNING sees the FROM relations and the new values
insert into tagged values (7, 71);
update tagged t set n = t.n + g.id from tag g where g.id = t.tid returning t.n, n + 1, g.label, t.*;
