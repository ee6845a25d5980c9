-- Differential script: the text pg_get_viewdef prints (pretty and not,
-- as pg_views.definition) for views of many shapes must be PostgreSQL
-- 15's, character for character (exec/viewdef.go).
create table t (a int, b text, c varchar(10), d numeric(5,2));
create table u (a int, x int, y text);
create view v01 as select a, b from t where a > 1;
create view v02 as select * from t where b = 'x' and c = 'y' order by a limit 3;
create view v03 as select count(*), a+1, max(d) as m, length(b) from t group by a, b having count(*) > 1;
create view v04 as select a from t union all select a from t order by 1;
create view v05 (x, y) as select a, b from t;
create recursive view v06 (n) as select 1 union all select n+1 from v06 where n < 5;
create view v07 as with q as (select a from t) select * from q;
create view v08 as select * from t natural join t as t2;
create view v09 as select t.a, u.x from t join u on t.a = u.a left join u u2 on u2.a = t.a and u2.x > 0 where exists (select 1 from u z where z.a = t.a) and t.a in (select a from u);
create view v10 as select s.a, s.n from (select a, count(*) as n from t group by a) s, u where s.a = u.a;
create view v11 as with q as (select a, b, c from t), r as (select 1 as one) select distinct q.a, case when q.a > 1 then 'big' else 'small' end as size, q.b::varchar(5), cast(q.c as text) from q, r;
create view v12 as select a, row_number() over (partition by b order by a desc) as rn, sum(a) over w from t window w as (order by a);
create view v13 as values (1, 'a'), (2, 'b');
create view v14 as select * from (values (1, 'a'), (2, 'b')) as v(n, s);
create view v15 as select a, (select max(x) from u where u.a = t.a) as mx, coalesce(b, 'none') from t where a between 1 and 5 and b like 'x%' and b is not null order by a desc nulls last offset 2 limit 10;
create view v16 as select distinct on (a) a, b from t order by a, b;
create view v17 as select t.a, u.x from t cross join u full join t t3 on true right join u u4 on u4.a = t3.a;
create view v18 as select 1 + 2 * 3 as e, (1 + 2) * 3 as f, - t.a as g, not (t.a > 1) as h, t.a is null as i, t.b || 'x' as j, now() as k, current_date as l, 1.5 as m, 10000000000 as n, true as o, array[1,2] as p, t.d::int as q from t;
create view v19 as select a from t intersect select a from u except select x from u;
create view v20 as select a from t where a = any(array[1,2]) and b in ('a','b') and not exists (select from u);
create view v21 as select a + 1 as p, (a > 1 and d < 2) or a is null as q, case when a = 1 then 'x' end as r from t where a > 1 and (d = 2 or d = 3);
create view v22 as select a, sum(d) filter (where a > 0) as s, string_agg(b, ',' order by b) as g, count(distinct a) as n from t group by a;
create view v23 as select t.a from t where t.a = (select max(u.a) from u) and t.b is distinct from 'q';
create view v24 as select a - 1 - 2 as x, a - (1 - 2) as y, a * (2 + 3) as z, (a + 1) / 2 as w, a % 3 as m from t;
create view v25 as select b from t where b not like 'a%' and b ilike 'B%' and a not in (1, 2) and a not between 3 and 4;
create view v26 as select nullif(a, 0) as n, greatest(a, 1) as g, least(a, 2) as l, a::text as s, (a + 1)::text as s2 from t;
create view v27 as select a from t group by a order by a + 1, count(*) desc;
select c.relname, pg_get_viewdef(c.oid, true), pg_get_viewdef(c.oid) from pg_class c where c.relkind = 'v' and c.relnamespace = 'public'::regnamespace order by 1;
