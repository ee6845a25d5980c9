package adapters

import (
	"context"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// TestEffectOrder pins the durable order of one graph write.
// Commit path v2 (docs/architecture.md): staged files (unreferenced) →
// exactly one __manifest version (the only visibility point, the first
// durable effect anything references) → each table's Lance version
// (materialized after the CAS); no sidecar. The commit path before v2
// (Options.LegacyCommitPath): staged files → sidecar → table HEADs →
// confirmation → the __manifest version → sidecar delete.
func TestEffectOrder(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(map[bool]string{false: "v2", true: "legacy"}[legacy], func(t *testing.T) {
			ctx := context.Background()
			tr := objstore.NewTracing(objstore.NewMem())
			g, err := Open(ctx, tr, Options{Create: true, Actor: "test", Location: "/test-root", SyncFinalize: true, LegacyCommitPath: legacy})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			createTables(t, g, "a", "b")
			tr.Reset()
			if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1}, "b": {2}}); err != nil {
				t.Fatal(err)
			}
			checkEffectOrder(t, tr, legacy)
		})
	}
}

func checkEffectOrder(t *testing.T, tr *objstore.Tracing, legacy bool) {
	first := func(pred func(l string) bool) int {
		for i, l := range tr.Lines() {
			if pred(l) {
				return i
			}
		}
		return -1
	}
	count := func(pred func(l string) bool) int {
		n := 0
		for _, l := range tr.Lines() {
			if pred(l) {
				n++
			}
		}
		return n
	}
	isWrite := func(l string) bool {
		return strings.HasPrefix(l, "put") || strings.HasPrefix(l, "putifabsent") || strings.HasPrefix(l, "delete")
	}
	sidecarArm := first(func(l string) bool { return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "__recovery/") })
	tableHead := first(func(l string) bool {
		return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "tables/") && strings.Contains(l, "_versions/")
	})
	confirm := first(func(l string) bool { return strings.HasPrefix(l, "put ") && strings.Contains(l, "__recovery/") })
	manifest := first(func(l string) bool {
		return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "__manifest.lance/_versions/")
	})
	del := first(func(l string) bool { return strings.HasPrefix(l, "delete") && strings.Contains(l, "__recovery/") })
	if legacy {
		if !(sidecarArm >= 0 && sidecarArm < tableHead && tableHead < confirm && confirm < manifest && manifest < del) {
			t.Fatalf("durable order wrong: arm %d, first table HEAD %d, confirm %d, manifest %d, delete %d\n%s",
				sidecarArm, tableHead, confirm, manifest, del, tr.String())
		}
		// before the sidecar only reclaimable staged files were written
		for _, l := range tr.Lines()[:sidecarArm] {
			if isWrite(l) && strings.Contains(l, "_versions/") {
				t.Fatalf("a HEAD moved before the sidecar: %s", l)
			}
		}
	} else {
		if !(sidecarArm == -1 && confirm == -1 && del == -1 && manifest >= 0 && manifest < tableHead) {
			t.Fatalf("durable order wrong: arm %d, confirm %d, delete %d, manifest %d, first table HEAD %d\n%s",
				sidecarArm, confirm, del, manifest, tableHead, tr.String())
		}
		// before the CAS only unreferenced staged files were written
		for _, l := range tr.Lines()[:manifest] {
			if isWrite(l) && strings.Contains(l, "_versions/") {
				t.Fatalf("a HEAD moved before the graph commit: %s", l)
			}
		}
	}
	if n := count(func(l string) bool {
		return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "__manifest.lance/_versions/")
	}); n != 1 {
		t.Fatalf("%d __manifest versions for one graph write", n)
	}
	if n := count(func(l string) bool {
		return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "tables/") && strings.Contains(l, "_versions/")
	}); n != 2 {
		t.Fatalf("%d table HEAD moves for a two-table write", n)
	}
	if n := count(func(l string) bool { return strings.HasPrefix(l, "list") && strings.Contains(l, "_versions") }); n != 0 {
		t.Fatalf("the hot path listed a _versions directory %d times", n)
	}
}

// TestFirstTouchOrder: on a branch, the table's fork ref is created only
// after the sidecar is durable, and its first commit after the ref.
func TestFirstTouchOrder(t *testing.T) {
	ctx := context.Background()
	tr := objstore.NewTracing(objstore.NewMem())
	g := openGraph(t, tr, true)
	defer g.Close()
	createTables(t, g, "a")
	if _, err := g.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	tr.Reset()
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {1}}); err != nil {
		t.Fatal(err)
	}
	idx := func(pred func(string) bool) int {
		for i, l := range tr.Lines() {
			if pred(l) {
				return i
			}
		}
		return -1
	}
	arm := idx(func(l string) bool { return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "__recovery/") })
	ref := idx(func(l string) bool {
		return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "tables/") && strings.Contains(l, "_refs/branches/dev")
	})
	head := idx(func(l string) bool {
		return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "tables/") && strings.Contains(l, "tree/dev/_versions/")
	})
	firstTableWrite := idx(func(l string) bool {
		return (strings.HasPrefix(l, "put") || strings.HasPrefix(l, "putifabsent")) && strings.Contains(l, "tables/")
	})
	if !(arm >= 0 && arm < ref && ref < head && arm < firstTableWrite) {
		t.Fatalf("first-touch order: arm %d, ref %d, first HEAD %d, first table write %d\n%s", arm, ref, head, firstTableWrite, tr.String())
	}
}

// TestWrongPredictionIsNeverPublished: a commit whose row counts were
// predicted (protocol.Predictor) writes its __manifest files while its
// table files are still being written, and its CAS is held until Apply
// has compared the staged result with the prediction. A prediction that
// does not match fails the write before the CAS is issued: nothing is
// published, no table version is written. With the right count the same
// write commits.
func TestWrongPredictionIsNeverPublished(t *testing.T) {
	ctx := context.Background()
	tr := objstore.NewTracing(objstore.NewMem())
	g := openGraph(t, tr, true)
	defer g.Close()
	createTables(t, g, "a")
	before := head(t, g)
	tr.Reset()
	_, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		return s.insert("a", rowsOf(1, 2), 5) // claims 5 rows, stages 2
	})
	if err == nil || !strings.Contains(err.Error(), "predicted post-state") {
		t.Fatalf("a wrong prediction: %v", err)
	}
	if after := head(t, g); after.Version != before.Version {
		t.Fatalf("a write with a wrong prediction was published (manifest %d -> %d)", before.Version, after.Version)
	}
	for _, l := range tr.Lines() {
		if strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "_versions/") {
			t.Fatalf("a version was written: %s", l)
		}
	}
	if !strings.Contains(tr.String(), "__manifest.lance/data/") {
		t.Fatalf("the __manifest files were not written ahead of the CAS (no predicted path?):\n%s", tr.String())
	}
	if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		return s.insert("a", rowsOf(1, 2), 2)
	}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := readIDs(t, g, head(t, g), "a"); len(ids) != 2 {
		t.Fatalf("a = %v", ids)
	}
}
