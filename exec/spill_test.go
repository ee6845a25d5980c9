package exec

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// spillQueries are answered once in memory and once with spilling forced
// on tiny pieces; the rows (in order where the query orders them) must
// be the same. They cover every column kind the spill codec encodes,
// NULLs, ties (stability), DESC/NULLS FIRST and multi-key sorts.
var spillQueries = []struct {
	name    string
	sql     string
	ordered bool
}{
	{"sort_int", "SELECT g, g % 7 AS m FROM generate_series(1, 3000) g ORDER BY g % 7, g DESC", true},
	{"sort_ties_stable", "SELECT g % 5 AS k, g FROM generate_series(1, 2000) g ORDER BY g % 5", true},
	{"sort_text_nulls", "SELECT CASE WHEN g % 11 = 0 THEN NULL ELSE md5(g::text) END AS s, g FROM generate_series(1, 1500) g ORDER BY 1 NULLS FIRST, 2", true},
	{"sort_float_desc", "SELECT (g * 0.37)::float8 AS f, g FROM generate_series(1, 1500) g ORDER BY sin(g) DESC, g", true},
	{"sort_numeric", "SELECT (g / 7.0)::numeric(20,6) AS n, -g::numeric / 3 AS q, 'NaN'::numeric AS nan FROM generate_series(1, 1200) g ORDER BY (g % 13)::numeric, n DESC", true},
	{"sort_interval_bool", "SELECT make_interval(months => g % 4, days => g % 9, secs => g) AS iv, g % 3 = 0 AS b FROM generate_series(1, 1200) g ORDER BY iv, b, g", true},
	{"sort_arrays", "SELECT ARRAY[g, NULL, g % 4] AS a, ARRAY['x' || g, NULL] AS t, CASE WHEN g % 6 = 0 THEN NULL ELSE ARRAY[g::numeric / 4] END AS n, g FROM generate_series(1, 1200) g ORDER BY g % 10, g DESC", true},
	{"sort_dates_json", "SELECT DATE '2020-01-01' + g AS d, TIMESTAMPTZ '2020-01-01 00:00+00' + g * INTERVAL '1 hour' AS ts, jsonb_build_object('g', g) AS j, g::text::bytea AS by FROM generate_series(1, 1200) g ORDER BY g % 17, d DESC", true},
	{"sort_offset", "SELECT g FROM generate_series(1, 3000) g ORDER BY g % 100 DESC, g OFFSET 1000", true},
	{"sort_in_window", "SELECT g, row_number() OVER (ORDER BY g % 10, g DESC) FROM generate_series(1, 1500) g ORDER BY 2", true},
	{"sort_under_distinct_on", "SELECT DISTINCT ON (g % 10) g % 10 AS k, g FROM generate_series(1, 1500) g ORDER BY g % 10, g DESC", true},
	{"agg_int", "SELECT g % 300 AS k, count(*), sum(g), avg(g), min(g), max(g) FROM generate_series(1, 5000) g GROUP BY g % 300", false},
	{"agg_big_int_keys", "SELECT g * 100000 AS k, count(*) FROM generate_series(1, 2000) g, generate_series(1, 2) h GROUP BY 1", false},
	{"agg_text_nulls", "SELECT CASE WHEN g % 13 = 0 THEN NULL ELSE md5((g % 400)::text) END AS k, count(*), string_agg(g::text, ',' ORDER BY g), array_agg(DISTINCT g % 5 ORDER BY g % 5) FROM generate_series(1, 4000) g GROUP BY 1", false},
	{"agg_null_int_key", "SELECT CASE WHEN g % 9 = 0 THEN NULL ELSE g % 500 END AS k, count(g), bool_and(g % 2 = 0), sum(g::numeric / 3) FROM generate_series(1, 4000) g GROUP BY 1", false},
	{"agg_multi_key_having", "SELECT g % 40 AS a, (g % 7)::text AS b, count(*) FILTER (WHERE g % 3 = 0), jsonb_agg(g ORDER BY g DESC) FROM generate_series(1, 3000) g GROUP BY 1, 2 HAVING count(*) > 5", false},
	{"agg_ordered_output", "SELECT g % 250 AS k, sum(g) FROM generate_series(1, 5000) g GROUP BY 1 ORDER BY 2 DESC, 1", true},
	{"agg_interval_numeric_keys", "SELECT make_interval(days => g % 30) AS iv, (g % 17)::numeric / 4 AS n, count(*) FROM generate_series(1, 3000) g GROUP BY 1, 2", false},
	{"join_inner", "SELECT a.g, b.h FROM generate_series(1, 2000) a(g) JOIN generate_series(1, 3000) b(h) ON b.h = a.g * 2", false},
	{"join_text_keys_dup", "SELECT a.g, b.h FROM generate_series(1, 600) a(g) JOIN generate_series(1, 900) b(h) ON (b.h % 50)::text = (a.g % 70)::text", false},
	{"join_left_nulls", "SELECT a.g, b.h FROM generate_series(1, 1500) a(g) LEFT JOIN (SELECT CASE WHEN h % 5 = 0 THEN NULL ELSE h END AS h FROM generate_series(1, 2000) h) b ON b.h = a.g + 3", false},
	{"join_right_full", "SELECT a.g, b.h FROM (SELECT CASE WHEN g % 7 = 0 THEN NULL ELSE g END AS g FROM generate_series(1, 1500) g) a FULL JOIN generate_series(500, 2500) b(h) ON b.h = a.g", false},
	{"join_right", "SELECT a.g, b.h FROM generate_series(1, 1000) a(g) RIGHT JOIN generate_series(1, 1800) b(h) ON b.h = a.g * 3 AND b.h % 2 = 0", false},
	{"join_semi", "SELECT id, v FROM st1 WHERE EXISTS (SELECT 1 FROM st2 WHERE st2.id = st1.v)", false},
	{"join_anti", "SELECT id, v FROM st1 WHERE NOT EXISTS (SELECT 1 FROM st2 WHERE st2.id = st1.v AND st2.tag <> 't3')", false},
	{"join_tables", "SELECT st1.id, st2.tag FROM st1 JOIN st2 ON st2.id = st1.v", false},
	{"join_residual_multikey", "SELECT a.g, b.h FROM generate_series(1, 1500) a(g) JOIN generate_series(1, 1500) b(h) ON b.h % 40 = a.g % 40 AND (b.h % 3)::text = (a.g % 3)::text AND a.g < b.h + 20", false},
	{"sort_empty", "SELECT g FROM generate_series(1, 0) g ORDER BY g", true},
}

func runSpillQuery(t *testing.T, sql string) [][]*string {
	t.Helper()
	eng := &Engine{Catalog: spillCatalog(t), MemoryLimit: 1 << 30}
	res, err := eng.Query(context.Background(), nil, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res.Rows()
}

// spillCatalog holds st1(id, v) and st2(id, tag) without keys (so joins
// between them are hash joins); v has NULLs and repeats.
func spillCatalog(t *testing.T) *MemCatalog {
	var r1, r2 [][]any
	for i := 0; i < 2500; i++ {
		var v any = int64(i % 1700)
		if i%9 == 0 {
			v = nil
		}
		r1 = append(r1, []any{int64(i), v})
	}
	for i := 0; i < 3000; i += 2 {
		r2 = append(r2, []any{int64(i % 2000), "t" + strconv.Itoa(i%5)})
	}
	m1, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "v", Type: TInt8}}, r1)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "tag", Type: TText}}, r2)
	if err != nil {
		t.Fatal(err)
	}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "st1", Columns: m1.Cols, Source: m1})
	cat.Add(&TableDef{Name: "st2", Columns: m2.Cols, Source: m2})
	return cat
}

func rowsText(rows [][]*string, sorted bool) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = rowString(r)
	}
	if sorted {
		slices.Sort(out)
	}
	return out
}

// forceSpill makes every spilling operator spill: a work_mem of one
// byte, pieces of a few rows and a merge fan-in of three (so merges take
// several passes).
func forceSpill(t *testing.T) {
	t.Helper()
	oldW, oldC, oldF := forceWorkMem, spillChunkRows, mergeFanIn
	forceWorkMem, spillChunkRows, mergeFanIn = 1, 7, 3
	t.Cleanup(func() { forceWorkMem, spillChunkRows, mergeFanIn = oldW, oldC, oldF })
}

func TestSpillMatchesInMemory(t *testing.T) {
	for _, q := range spillQueries {
		t.Run(q.name, func(t *testing.T) {
			forceWorkMem = 1 << 40 // never spill
			want := runSpillQuery(t, q.sql)
			forceWorkMem = 0
			forceSpill(t)
			before := spillBytesTotal.Load()
			got := runSpillQuery(t, q.sql)
			a, b := rowsText(want, !q.ordered), rowsText(got, !q.ordered)
			if !slices.Equal(a, b) {
				for i := range min(len(a), len(b)) {
					if a[i] != b[i] {
						t.Fatalf("row %d: in memory %s, spilled %s (%d vs %d rows)", i, a[i], b[i], len(a), len(b))
					}
				}
				t.Fatalf("in memory %d rows, spilled %d rows", len(a), len(b))
			}
			if len(want) > 0 && spillBytesTotal.Load() == before {
				t.Fatalf("nothing was spilled")
			}
		})
	}
}

// TestSpillCodecRoundTrip encodes batches of every kind (NULLs, empty
// strings, special numerics, nested arrays) and decodes them unchanged.
func TestSpillCodecRoundTrip(t *testing.T) {
	eng := &Engine{Catalog: NewMemCatalog()}
	r, err := eng.Query(context.Background(), nil, `SELECT g, g::float8 / 3, g % 2 = 0, CASE WHEN g = 2 THEN '' ELSE repeat('ab', g) END,
		CASE g WHEN 1 THEN 'NaN'::numeric WHEN 2 THEN 'Infinity'::numeric WHEN 3 THEN '-Infinity'::numeric ELSE -g * 1000000000000000000000.5 END,
		make_interval(years => g, days => -g, secs => g * 1.5), ARRAY[g, NULL]::text[], CASE WHEN g = 4 THEN NULL ELSE g END
		FROM generate_series(1, 5) g`)
	if err != nil {
		t.Fatal(err)
	}
	f, err := newSpillFile()
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	for _, b := range r.Batches {
		if err := f.write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.rewind(); err != nil {
		t.Fatal(err)
	}
	back := &Result{Columns: r.Columns, types: r.types, loc: r.loc}
	for {
		b, err := f.read()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		back.Batches = append(back.Batches, b)
		back.rows += b.N
	}
	want, got := rowsText(r.Rows(), false), rowsText(back.Rows(), false)
	if !slices.Equal(want, got) {
		t.Fatalf("round trip:\n%s\n!=\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

func TestParseMemorySetting(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4MB", 4 << 20, true}, {"64", 64 << 10, true}, {"64kB", 64 << 10, true}, {"1GB", 1 << 30, true},
		{"100B", 100, true}, {" 2 MB ", 2 << 20, true}, {"1TB", 1 << 40, true},
		{"4mb", 0, false}, {"", 0, false}, {"MB", 0, false}, {"-1", 0, false}, {"99999999999999TB", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseMemorySetting(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: got %d %v, want %d %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
