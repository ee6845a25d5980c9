package adapters

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// TestOfficialLanceReadsEveryCommit: commit path v2 publishes a table's
// pin before its Lance version exists and materializes it afterwards
// (docs/architecture.md). Once the writes in flight have finished (what
// Close and Pending wait for) every table's Lance HEAD is its pin, and
// the official Lance reads exactly the committed rows — while the graph
// is still open and after it is closed.
func TestOfficialLanceReadsEveryCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(ctx, store, Options{Create: true, Actor: "test", Location: dir})
	if err != nil {
		t.Fatal(err)
	}
	createTables(t, g, "a", "b")
	for i := int64(0); i < 5; i++ {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {i}, "b": {100 + i, 200 + i}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		_, addrs := readIDs(t, g, s.Base(), "b")
		return s.Delete("b", []uint64{addrs[101], addrs[203]})
	}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		sn := head(t, g)
		for _, e := range sn.State.Tables {
			if e.State != graph.Live {
				continue
			}
			ds, err := lance.Open(ctx, store, e.Location, g.Root.DatasetOptions(e.Location, "", 0))
			if err != nil {
				t.Fatalf("%s: table %s: %v", when, e.Name, err)
			}
			if ds.Version() != e.Version {
				t.Fatalf("%s: table %s Lance HEAD %d, pinned %d", when, e.Name, ds.Version(), e.Version)
			}
			// the official Lance opens root/name.lance for a plain name
			loc := filepath.Join(dir, filepath.FromSlash(e.Location))
			d := oracle.Read(t, filepath.Dir(loc), strings.TrimSuffix(filepath.Base(loc), ".lance"))
			if d.Version != int(e.Version) || uint64(len(d.Rows)) != e.RowCount {
				t.Fatalf("%s: the official Lance reads table %s at version %d with %d rows; pinned %d with %d", when, e.Name, d.Version, len(d.Rows), e.Version, e.RowCount)
			}
		}
	}
	g.coord.WaitFinalized() // the materializations in flight
	check("while open")
	g.Close()
	check("after close")
}
