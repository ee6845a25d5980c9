package ddl

import (
	"os"
	"path/filepath"
	"testing"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// FuzzPlan: any statement the grammar accepts plans to changes or a
// typed SQL error, never a panic, against a catalog with tables of every
// kind.
func FuzzPlan(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.sql")
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			f.Fatal(err)
		}
		stmts, err := q.Split(string(src))
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range stmts {
			f.Add(s)
		}
	}
	base := fuzzBase(f)
	f.Fuzz(func(t *testing.T, sql string) {
		tree, err := q.Parse(sql)
		if err != nil || len(tree.Stmts) == 0 {
			return
		}
		ov := NewOverlay(base)
		for _, st := range tree.Stmts {
			cs, err := Plan(st.Stmt, ov)
			if err != nil {
				if Code(err) == "" {
					t.Fatalf("%q: untyped error %v", sql, err)
				}
				continue
			}
			if len(cs) == 0 {
				t.Fatalf("%q: no changes and no error", sql)
			}
			ov.Apply(cs...)
		}
	})
}

func fuzzBase(f *testing.F) Catalog {
	ov := NewOverlay(memCatalog{})
	for _, s := range []string{
		`CREATE TABLE people (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE, age int CHECK (age > 0))`,
		`CREATE TABLE knows (src bigint REFERENCES people ON DELETE CASCADE, dst bigint REFERENCES people) WITH (graph.kind = edge, graph.max_out = 5)`,
		`CREATE TABLE notes (id int GENERATED ALWAYS AS IDENTITY, person bigint REFERENCES people (id), body text)`,
		`CREATE SEQUENCE s OWNED BY notes.id`,
		`CREATE INDEX ON notes (body)`,
	} {
		tree, err := q.Parse(s)
		if err != nil {
			f.Fatal(err)
		}
		cs, err := Plan(tree.Stmts[0].Stmt, ov)
		if err != nil {
			f.Fatal(s, err)
		}
		ov.Apply(cs...)
	}
	return ov
}
