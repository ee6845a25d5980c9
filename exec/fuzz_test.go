package exec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/internal/sqlparse"
)

// FuzzQuery feeds arbitrary SQL text (untrusted client input) to the
// engine: it may fail with any SQLSTATE but must never panic (a recovered
// panic surfaces as XX000) or hang. Seeds are every statement of the
// differential scripts.
func FuzzQuery(f *testing.F) {
	files, _ := filepath.Glob("../testdata/sql/*.sql")
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		stmts, err := sqlparse.Split(string(src))
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range stmts {
			f.Add(s)
		}
	}
	f.Add("SELECT ((((1))))")
	f.Add("SELECT $1 + $2")
	cat, _ := fuzzCatalog()
	eng := &Engine{Catalog: cat, MemoryLimit: 64 << 20, RecursionLimit: 100}
	f.Fuzz(func(t *testing.T, sql string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := eng.Query(ctx, nil, sql, "1", "2")
		if Code(err) == CodeInternalError {
			t.Fatalf("%q: internal error: %v", sql, err)
		}
		if err != nil && Code(err) == "" && !strings.Contains(err.Error(), "context") {
			t.Fatalf("%q: error without SQLSTATE: %v", sql, err)
		}
	})
}

// fuzzCatalog has tables named like the scripts' so seeds get past binding.
func fuzzCatalog() (*MemCatalog, error) {
	cat := NewMemCatalog()
	mk := func(name string, cols []ColumnDef, rows [][]any, pk []int) error {
		mt, err := NewMemTable(cols, rows)
		if err != nil {
			return err
		}
		if len(pk) == 1 {
			mt.Keys = pk
		}
		cat.Add(&TableDef{Name: name, Columns: cols, PrimaryKey: pk, Source: mt})
		return nil
	}
	err := mk("emp", []ColumnDef{{Name: "id", Type: TInt4}, {Name: "name", Type: TText}, {Name: "dept", Type: TText}, {Name: "salary", Type: Type{OIDNumeric, TypeModNumeric(10, 2)}}, {Name: "hired", Type: TDate}, {Name: "mgr", Type: TInt4}, {Name: "active", Type: TBool}},
		[][]any{{int64(1), "alice", "eng", "120000.00", "2020-01-15", nil, true}, {int64(2), "bob", nil, nil, nil, int64(1), nil}}, []int{0})
	if err != nil {
		return nil, err
	}
	err = mk("dept", []ColumnDef{{Name: "name", Type: TText}, {Name: "budget", Type: TInt8}, {Name: "floor", Type: TInt2}},
		[][]any{{"eng", int64(10), int64(1)}}, []int{0})
	return cat, err
}
