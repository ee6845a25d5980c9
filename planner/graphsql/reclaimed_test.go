package graphsql

import (
	"context"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
)

// TestReclaimedHistory: when the oldest manifest versions are gone
// (reclaimed), graph.commits ends at the oldest one left and as-of
// values naming a reclaimed version are 22023, not internal errors.
func TestReclaimedHistory(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)                         // v2
	insertPeople(t, g, "main", "1-3", 1, 2, 3) // v3
	infos, err := g.Root.Store().List(ctx, graph.ManifestRoot+"/_versions/")
	if err != nil {
		t.Fatal(err)
	}
	// find version 1's manifest (its inline transaction names the root
	// commit and the init message) and remove it
	removed := 0
	for _, in := range infos {
		if !strings.HasSuffix(in.Key, ".manifest") {
			continue
		}
		b, err := g.Root.Store().Get(ctx, in.Key)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), g.Root.RootCommitID()) && strings.Contains(string(b), `"init"`) {
			if err := g.Root.Store().Delete(ctx, in.Key); err != nil {
				t.Fatal(err)
			}
			removed++
		}
	}
	if removed != 1 {
		t.Fatalf("removed %d manifests, want version 1's", removed)
	}
	views, _ := Tables(ctx, g, "main")
	got := query(t, WithViews(exec.NewMemCatalog(), views), "SELECT string_agg(manifest_version::text, ',') FROM graph.commits")
	if got[0] != "3,2" {
		t.Fatalf("commits after reclaiming v1: %q", got)
	}
	_, err = ResolveAsOf(ctx, g, "main", "1", nil)
	wantCode(t, err, CodeInvalidParameterValue)
	if !strings.Contains(asWire(err).Detail, "reclaimed") {
		t.Fatalf("detail %q", asWire(err).Detail)
	}
	_, err = ResolveAsOf(ctx, g, "main", g.Root.RootCommitID(), nil)
	wantCode(t, err, CodeInvalidParameterValue)
}
