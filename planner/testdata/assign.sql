-- INSERT, UPDATE and MERGE store values with assignment casts, not explicit
-- ones: boolean into integer is 42804, 2.5 rounds, varchar(n) overflow is 22001.
create table v(s varchar(3), n numeric(4,1), i int, b bool, t text, j jsonb, d date);
insert into v(i) values (true);
insert into v(i) values (2.5);
insert into v(i) values ('2.5');
insert into v(s) values (12345);
insert into v(s) values ('abcd');
insert into v(s) values ('ab  ');
insert into v(i) values (now());
insert into v(n) values (12345);
insert into v(b) values (1);
insert into v(t) values (12);
insert into v(t) values (true);
insert into v(j) values ('{"a":1}'::json);
insert into v(d) values (now());
insert into v(i) values (3000000000::bigint);
insert into v(i) select 7.7;
insert into v(i) values (1),(2.5);
update v set i = true;
update v set i = 4.5 where i = 3;
update v set s = 'toolong';
update v set t = 1.5 where i = 4;
merge into v using (select 1 as x) s on false when not matched then insert (i) values (true);
merge into v using (select 1 as x) s on false when not matched then insert (i) values (9.9);
select s, n, i, b, t, j::text, d is not null from v order by i, t, j::text, s;
