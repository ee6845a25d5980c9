-- Differential script: the text pg_get_viewdef prints (pretty and not,
-- as pg_views.definition) for views of many shapes must be PostgreSQL
-- 15's, character for character (exec/viewdef.go).
create table t (a int, b text, c varchar(10), d numeric(5,2), ts timestamptz, arr int[], j jsonb, f float8, bi bigint, ch char(3));
create table u (a int, x int, y text);
create view w01 as select extract(year from ts) as y, date_trunc('day', ts) as d, ts + interval '1 day' as t2, ts::date as dd from t;
create view w03 as select upper(b), substring(b from 1 for 2) as s, trim(b) as tr, position('x' in b) as p from t;
create view w04 as select arr[1] as first, array_length(arr, 1) as n, 1 = any(arr) as has1 from t;
create view w05 as select j->>'k' as k, j->'x' as x, j @> '{"a":1}' as c from t;
create view w06 as select t.a, s.n from t, lateral (select count(*) as n from u where u.a = t.a) s;
create view w07 as select g from generate_series(1, 3) g;
create view w08 as select a, sum(a) over (order by a rows between 1 preceding and current row) as s from t;
create view w09 as select f * 2 as f2, bi + 1 as b1, f > 1 as g, bi > 10 as h, a / 2 as q from t;
create view w10 as select ch = 'ab' as e, c || 'x' as cc, b = c as bc from t;
create view w11 as select a, exists(select 1 from u) as e, a > all(select x from u) as g from t;
create view w12 as select * from t t1 join u using (a) where t1.a > 0;
create view w13 as select a, count(*) from t group by a having count(*) > 1 order by 2 desc;
create view w14 as select coalesce(a, 0) + 1 as x, -a as n, abs(-1) as m from t;
create view w15 as select a from t where a between 1 and 10 or b not like '%z';
create view w16 as select a, b from t where (a, b) = (1, 'x');
create view w17 as select cast(a as text) || '-' || b as label from t;
create view w18 as select a from t order by a nulls first, b desc nulls first limit all;
create view w19 as select 'it''s' as q, E'a\\b' as e, '' as empty from t;
create view w20 as select count(distinct a) filter (where a > 1) as n, array_agg(b order by b desc) as bs from t;
create view w21 as select a from t union select x from u;
create view w22 as select a from (select a from t union all select x from u) s where a > 1;
create view w23 as select t.*, u.y from t left join u on u.a = t.a;
create view w24 as select * from t where a in (select a from u where x > 0) and not a in (1, 2);
create view w25 as select current_timestamp as now1, current_user as who, localtimestamp(2) as l from t;
create view w26 as select nullif(b, '') as b, greatest(1, a, 3) as g from t;
create view w27 as select a from t where b is distinct from c;
create view w28 as select a::bigint + bi as s, a = bi as e from t;
select c.relname, pg_get_viewdef(c.oid, true), pg_get_viewdef(c.oid) from pg_class c where c.relkind = 'v' and c.relnamespace = 'public'::regnamespace order by 1;
