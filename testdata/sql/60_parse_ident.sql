-- parse_ident, as Grafana's query editor calls it to split schema.table.
SELECT parse_ident('item');
SELECT parse_ident('public.item_tag');
SELECT parse_ident('"SomeSchema"."Some ""quoted"" Table"');
SELECT parse_ident('  MixedCase . other  ');
SELECT parse_ident('a.b.c.d');
SELECT parse_ident('col$1_x');
SELECT array_length(parse_ident('public.item'), 1), (parse_ident('public.item'))[2];
SELECT parse_ident('a.b junk', false);
SELECT parse_ident('a.b junk');
SELECT parse_ident('a.');
SELECT parse_ident('.a');
SELECT parse_ident('""');
SELECT parse_ident('"unclosed');
SELECT parse_ident('1abc');
SELECT parse_ident('');
SELECT parse_ident(NULL);
