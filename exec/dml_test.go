package exec

import (
	"context"
	"testing"

	"github.com/pggraph/pggraph/internal/sqlparse"
)

// exprTree parses one SQL expression (the trees MatchAddresses and
// CheckViolation take).
func exprTree(t *testing.T, sql string) *sqlparse.Node {
	t.Helper()
	tree, err := sqlparse.Parse("SELECT " + sql)
	if err != nil {
		t.Fatal(err)
	}
	return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
}

func TestMatchAddressesAndCheck(t *testing.T) {
	cat, src := peopleTable(t, 100)
	eng := &Engine{Catalog: cat}
	td := cat.Table("", "people")
	ctx := context.Background()
	addrs, err := eng.MatchAddresses(ctx, nil, td, exprTree(t, "grp = 3 AND id < 50"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{3, 13, 23, 33, 43} // record 0, row = id
	if len(addrs) != len(want) {
		t.Fatalf("got %v want %v", addrs, want)
	}
	for i := range want {
		if addrs[i] != want[i] {
			t.Fatalf("got %v want %v", addrs, want)
		}
	}
	// the overlay is honoured: deleted rows never match
	td.Source = WithOverlay(src.MemTable, src.Cols, &Overlay{Deleted: func(a uint64) bool { return a == 13 }})
	addrs, err = eng.MatchAddresses(ctx, nil, td, exprTree(t, "grp = 3 AND id < 50"), nil)
	if err != nil || len(addrs) != 4 {
		t.Fatalf("with overlay: %v %v", addrs, err)
	}
	if _, err := eng.MatchAddresses(ctx, nil, td, exprTree(t, "id / 0 = 1"), nil); !IsDivisionByZero(err) {
		t.Fatalf("want 22012, got %v", err)
	}
	if _, err := eng.MatchAddresses(ctx, nil, td, exprTree(t, "nosuch = 1"), nil); Code(err) != CodeUndefinedColumn {
		t.Fatalf("want 42703, got %v", err)
	}
	bad, err := NewMemTable(src.Cols, [][]any{{int64(1), "ok", int64(5)}, {int64(2), nil, int64(-1)}, {int64(3), "x", nil}})
	if err != nil {
		t.Fatal(err)
	}
	i, err := eng.CheckViolation(ctx, nil, td, exprTree(t, "grp >= 0 AND length(name) > 0"), bad.Records[0])
	if err != nil || i != 1 {
		t.Fatalf("check: row %d err %v; want row 1", i, err)
	}
}
