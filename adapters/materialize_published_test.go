package adapters

import (
	"context"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
)

// TestMaterializePublishedSkipsTheProbe: the committer's own
// materialization right after its CAS (Root.MaterializePublished) puts
// the pinned version without first reading whether it exists — the only
// access to the version's manifest key is the put-if-absent — and a
// second materializer (another process) that finds the version already
// there with the same transaction adopts it.
func TestMaterializePublishedSkipsTheProbe(t *testing.T) {
	ctx := context.Background()
	tr := objstore.NewTracing(objstore.NewMem())
	g, err := Open(ctx, tr, Options{Create: true, Actor: "test", Location: "/test-root"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	g.coord.LeaveMaterialization = true
	createTables(t, g, "a")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1}}); err != nil {
		t.Fatal(err)
	}
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sn.State.TableByName("a")
	if e.Txn == "" {
		t.Fatal("the insert's pin carries no transaction (not commit path v2)")
	}
	tr.Reset()
	ds, err := g.Root.MaterializePublished(ctx, e)
	if err != nil || ds.Version() != e.Version {
		t.Fatalf("MaterializePublished: %v, %v; want version %d", ds, err, e.Version)
	}
	lines := tr.Lines()
	var key string
	for _, l := range lines {
		if strings.HasPrefix(l, "putifabsent ") && strings.Contains(l, "tables/") && strings.Contains(l, "_versions/") {
			key = strings.Fields(l)[1]
		}
	}
	if key == "" {
		t.Fatalf("no table version was put:\n%s", tr.String())
	}
	for _, l := range lines {
		if strings.Contains(l, key) && !strings.HasPrefix(l, "putifabsent ") {
			t.Fatalf("the pinned version %s was read before it was put (%q):\n%s", key, l, tr.String())
		}
	}
	// another process materializing the same pin adopts the version
	other, err := graph.OpenWith(ctx, tr, graph.Options{Location: "/test-root"})
	if err != nil {
		t.Fatal(err)
	}
	ds, err = other.MaterializePublished(ctx, e)
	if err != nil || ds.Version() != e.Version {
		t.Fatalf("a second materialization of the pin: %v, %v; want version %d adopted", ds, err, e.Version)
	}
}
