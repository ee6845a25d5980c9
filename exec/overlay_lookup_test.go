package exec

import (
	"context"
	"strings"
	"testing"
)

// TestOverlayKeyLookup: a key lookup through pending writes uses the base
// table's key index (no scan), leaves out rows the transaction deleted
// or updated away, finds its pending inserts, and answers exactly what a
// scan of the same overlay answers (rows and row addresses).
func TestOverlayKeyLookup(t *testing.T) {
	cat, src := peopleTable(t, 5000)
	// pending: rows 3 and 4 deleted, row 7 updated (its old version
	// deleted, the new one inserted), rows 9000 and 9001 inserted
	deleted := map[uint64]bool{3: true, 4: true, 7: true}
	ins1, err := NewMemTable(src.Cols, [][]any{{int64(9000), "new9000", int64(1)}, {int64(7), "p7 updated", int64(2)}})
	if err != nil {
		t.Fatal(err)
	}
	ins2, err := NewMemTable(src.Cols, [][]any{{int64(9001), "new9001", nil}})
	if err != nil {
		t.Fatal(err)
	}
	ov := &Overlay{Deleted: func(a uint64) bool { return deleted[a] }, Inserts: append(ins1.Records, ins2.Records...)}
	td := cat.Table("", "people")
	td.Source = WithOverlay(src, src.Cols, ov)
	eng := &Engine{Catalog: cat}
	ctx := context.Background()
	cases := []struct {
		where string
		want  string
	}{
		{"id = 42", "42,p42"},
		{"id = 3", ""},
		{"id = 7", "7,p7 updated"},
		{"id = 9000", "9000,new9000"},
		{"id = 9001", "9001,new9001"},
		{"id IN (2, 3, 4, 7, 9001, 123456)", "2,p2,7,p7 updated,9001,new9001"},
		{"id = 9001 AND grp IS NULL", "9001,new9001"},
		{"id = 9000 AND grp = 5", ""},
		{"id = NULL", ""},
	}
	for _, c := range cases {
		src.scans.Store(0)
		src.lookups.Store(0)
		r, err := eng.Query(ctx, nil, "SELECT id, name FROM people WHERE "+c.where+" ORDER BY id")
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		if got := oneText(t, r); got != c.want {
			t.Errorf("%s: got %q, want %q", c.where, got, c.want)
		}
		if s, l := src.scans.Load(), src.lookups.Load(); s != 0 || l != 1 {
			t.Errorf("%s: %d scans and %d lookups of the base, want a lookup only", c.where, s, l)
		}
		// the same rows and addresses as a scan that cannot use the index
		// (id + 0 is no key column)
		scanned, err := eng.Query(ctx, nil, "SELECT _rowaddr, id, name FROM people WHERE "+plusZero(c.where)+" ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		looked, err := eng.Query(ctx, nil, "SELECT _rowaddr, id, name FROM people WHERE "+c.where+" ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		if a, b := oneText(t, scanned), oneText(t, looked); a != b {
			t.Errorf("%s: lookup gives %q, scan %q", c.where, b, a)
		}
	}
}

// plusZero turns the key column into an expression, so the scan cannot
// use the key index.
func plusZero(where string) string {
	if len(where) > 3 && where[:3] == "id " {
		return "id + 0 " + where[3:]
	}
	return where
}

// TestOverlayTextRange: text range lookups, LIKE prefixes and the
// ordered walk through a transaction's pending writes list the base's
// keys and the pending inserts' in byte order, leave out deleted rows,
// and answer what a scan answers (name concatenated with the empty
// string is no key column).
func TestOverlayTextRange(t *testing.T) {
	cat, src := peopleTable(t, 3000)
	src.Keys = []int{0, 1}
	deleted := map[uint64]bool{100: true, 1001: true}
	ins, err := NewMemTable(src.Cols, [][]any{{int64(9000), "p1000a", int64(1)}, {int64(9001), "p0", nil}, {int64(100), "p100 updated", int64(2)}, {int64(9002), "p999", int64(3)}})
	if err != nil {
		t.Fatal(err)
	}
	td := cat.Table("", "people")
	td.Source = WithOverlay(src, src.Cols, &Overlay{Deleted: func(a uint64) bool { return deleted[a] }, Inserts: ins.Records})
	eng := &Engine{Catalog: cat}
	ctx := context.Background()
	for _, c := range []struct{ where, order string }{
		{"name BETWEEN 'p100' AND 'p1002'", "id"},
		{"name > 'p998'", "id"},
		{"name >= 'p0' AND name < 'p1'", "id"},
		{"name LIKE 'p100%'", "id"},
		{"name LIKE 'p99%'", "name DESC LIMIT 3"},
		{"true", "name LIMIT 4"},
		{"true", "name DESC NULLS LAST LIMIT 2"},
	} {
		src.scans.Store(0)
		looked, err := eng.Query(ctx, nil, "SELECT _rowaddr, id, name FROM people WHERE "+c.where+" ORDER BY "+c.order)
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		if s := src.scans.Load(); s != 0 {
			t.Errorf("%s ORDER BY %s: %d scans of the base, want lookups only", c.where, c.order, s)
		}
		scanned, err := eng.Query(ctx, nil, "SELECT _rowaddr, id, name FROM people WHERE "+strings.ReplaceAll(c.where, "name", "(name || '')")+" ORDER BY "+strings.ReplaceAll(c.order, "name", "name || ''"))
		if err != nil {
			t.Fatal(err)
		}
		if a, b := oneText(t, scanned), oneText(t, looked); a != b || a == "" {
			t.Errorf("%s ORDER BY %s: lookups give %q, scan %q", c.where, c.order, b, a)
		}
	}
}
