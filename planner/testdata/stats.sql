-- ANALYZE statistics in pg_stats: the same null fractions, widths,
-- distinct counts, most common values and frequencies, histograms and
-- correlations as PostgreSQL 15 for tables ANALYZE reads whole.
create table st (id int primary key, grp int, t text, f float8, b bool, d date, u int, sk int, n numeric, e int);
insert into st select i, i % 10, case when i % 5 = 0 then null else 'v' || (i % 7) end, (i % 13) / 4.0, i % 3 = 0, date '2024-01-01' + (i % 40), case when i % 50 = 0 then 1 else i end, case when i % 4 = 0 then 0 when i % 9 = 0 then 1 else i end, (i % 11) * 1.5, null from generate_series(1, 1000) i;
select attname from pg_stats where tablename = 'st';
analyze st;
select attname, null_frac, avg_width, n_distinct, most_common_vals, most_common_freqs, histogram_bounds, correlation from pg_stats where tablename = 'st' order by attname;
select schemaname, tablename, inherited, most_common_elems, most_common_elem_freqs, elem_count_histogram from pg_stats where tablename = 'st' and attname = 'id';
create table st2 (a int, s text);
insert into st2 select 1000 - i, repeat('x', i % 5) from generate_series(1, 300) i;
analyze st2 (a);
select attname, null_frac, n_distinct, most_common_vals, histogram_bounds, correlation from pg_stats where tablename = 'st2' order by attname;
analyze st2;
select attname, null_frac, avg_width, n_distinct, most_common_vals, most_common_freqs, histogram_bounds, correlation from pg_stats where tablename = 'st2' order by attname;
insert into st2 values (5, 'new');
select count(*) from pg_stats where tablename = 'st2';
create table empty_t (a int);
analyze empty_t;
select count(*) from pg_stats where tablename = 'empty_t';
select staattnum, stainherit, stanullfrac, stawidth, stadistinct, stakind1, stakind2, stakind3, stakind4, stakind5, staop1, staop2, staop3, staop4, staop5, stacoll1, stacoll2, stacoll3, stacoll4, stacoll5, stanumbers1, stanumbers2, stanumbers3, stanumbers4, stanumbers5, stavalues1, stavalues2, stavalues3, stavalues4, stavalues5 from pg_statistic where starelid = 'st'::regclass order by staattnum;
select count(*) from pg_statistic s join pg_class c on c.oid = s.starelid where c.relname = 'st2';
