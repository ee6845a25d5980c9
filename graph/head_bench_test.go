package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// benchRoot is a root whose head state holds n tables with realistic
// definitions (a few columns and an Extra blob each), published on main
// and on branch "dev".
func benchRoot(tb testing.TB, n int) *Root {
	tb.Helper()
	ctx := context.Background()
	r, _, err := Init(ctx, objstore.NewMem(), "bench")
	if err != nil {
		tb.Fatal(err)
	}
	base, err := r.Head(ctx, "")
	if err != nil {
		tb.Fatal(err)
	}
	st := base.State.Clone()
	extra, _ := json.Marshal(map[string]any{"pg_types": []string{"int8", "text", "timestamptz", "numeric(10,2)"}, "comment": "a table"})
	for i := 0; i < n; i++ {
		k := TableKey{ID: st.Schema.Allocate(), Incarnation: st.Schema.Allocate()}
		def := TableDef{PrimaryKey: []string{"id"}, Extra: extra}
		for _, c := range []string{"id", "name", "created", "amount"} {
			def.Columns = append(def.Columns, ColumnDef{ID: st.Schema.Allocate(), Name: c, Type: "int64", Nullable: c != "id"})
		}
		st.Put(TableEntry{ID: k.ID, Incarnation: k.Incarnation, Name: fmt.Sprintf("t%03d", i), Kind: NodeTable,
			Def: def, Location: TableLocation(k), Version: 7, RowCount: 1000, State: Live})
	}
	st.Schema.Hash = SchemaHash(st)
	if _, err := r.Publish(ctx, base, st, Commit{ID: NewID(), Parent: base.Commit.ID, Actor: "bench", Time: time.Now().UTC()}); err != nil {
		tb.Fatal(err)
	}
	if _, err := r.CreateBranch(ctx, "dev", ""); err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkHead measures Head of an unchanged branch (the per-statement
// cost of a read through pgproxy): one probe of version N+1 and, with the
// decoded-snapshot cache, no JSON decode.
func BenchmarkHead(b *testing.B) {
	for _, n := range []int{10, 100} {
		for _, branch := range []string{MainBranch, "dev"} {
			b.Run(fmt.Sprintf("tables=%d/branch=%s", n, branch), func(b *testing.B) {
				r := benchRoot(b, n)
				ctx := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					sn, err := r.Head(ctx, branch)
					if err != nil || len(sn.State.Tables) != n {
						b.Fatalf("head: %v", err)
					}
				}
			})
		}
	}
}
