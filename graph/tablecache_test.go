package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// oneRow is a reader of one int64 row.
func oneRow(v int64) array.RecordReader {
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(v)
	rec := b.NewRecordBatch()
	defer rec.Release()
	rdr, _ := array.NewRecordReader(sch, []arrow.RecordBatch{rec})
	return rdr
}

// A remembered commit handle is handed out for exactly its version of
// the main branch without touching storage; any other version, a fork
// branch, or a handle of another store goes to storage.
func TestOpenTableUsesRememberedCommit(t *testing.T) {
	ctx := context.Background()
	tr := objstore.NewTracing(objstore.NewMem())
	r, _, err := Init(ctx, tr, "t")
	if err != nil {
		t.Fatal(err)
	}
	loc := "tables/x.lance"
	v1, err := lance.Create(ctx, r.Store(), loc, oneRow(1), r.DatasetOptions(loc, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	st, err := v1.StageAppend(ctx, oneRow(2), lance.StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := st.Commit(ctx, lance.CommitOptions{Mode: lance.CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	r.RememberTable(loc, v2)
	r.RememberTable(loc, v1) // older: ignored
	other := objstore.NewMem()
	foreign, err := lance.Create(ctx, other, loc, oneRow(9), lance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for v := int64(10); v < 12; v++ { // foreign version 3
		fs, err := foreign.StageAppend(ctx, oneRow(v), lance.StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if foreign, err = fs.Commit(ctx, lance.CommitOptions{Mode: lance.CommitExact}); err != nil {
			t.Fatal(err)
		}
	}
	r.RememberTable(loc, foreign) // another store: ignored
	if ds, err := r.OpenTable(ctx, TableEntry{Location: loc, Version: 3}); err == nil {
		t.Fatalf("version 3 of another store's dataset was handed out: %v", ds.Version())
	}
	reads := func() int {
		n := 0
		for _, l := range tr.Lines() {
			if strings.HasPrefix(l, "get "+loc) {
				n++
			}
		}
		return n
	}
	cases := []struct {
		name      string
		version   uint64
		branch    string
		wantReads bool
		same      *lance.Dataset
	}{
		{"remembered version", 2, "", false, v2},
		{"older version", 1, "", true, nil},
		{"fork branch", 2, "dev", true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr.Reset()
			ds, err := r.OpenTable(ctx, TableEntry{Location: loc, Branch: c.branch, Version: c.version})
			if c.branch != "" {
				if err == nil {
					t.Fatal("a fork that does not exist opened")
				}
				if reads() == 0 && len(tr.Lines()) == 0 {
					t.Fatal("the fork was not looked up in storage")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ds.Version() != c.version || (reads() > 0) != c.wantReads {
				t.Fatalf("version %d, %d manifest reads (want reads %v)", ds.Version(), reads(), c.wantReads)
			}
			if c.same != nil && ds != c.same {
				t.Fatal("not the remembered handle")
			}
		})
	}
}
