package exec

import (
	"context"
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
