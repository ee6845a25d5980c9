package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/adapters"
)

func TestCleanupReclaimsOnlyUnreachableOldFiles(t *testing.T) {
	ctx := context.Background()
	dir, store, g := rootWithTableA(t)
	if _, err := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error { return s.Insert("a", idRows(1, 2, 3)) }); err != nil {
		t.Fatal(err)
	}
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sn.Catalog().Table("a")
	g.Close()

	// an abandoned data file (a crashed writer's staging) and a young one
	dataDir := filepath.Join(dir, filepath.FromSlash(e.Location), "data")
	old := filepath.Join(dataDir, "abandoned-old.lance")
	young := filepath.Join(dataDir, "abandoned-young.lance")
	for _, f := range []string{old, young} {
		if err := os.WriteFile(f, []byte("not referenced by any version"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a crashed put's staging file (never an object; see objstore)
	staging := filepath.Join(dataDir, ".pgstage-crashed")
	if err := os.WriteFile(staging, []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-48 * time.Hour)
	for _, f := range []string{old, staging} {
		if err := os.Chtimes(f, past, past); err != nil {
			t.Fatal(err)
		}
	}

	if code, _, e := runCmd(t, nil, "cleanup", "--data", dir, "--grace", "0s"); code == 0 || !strings.Contains(e, "--grace must be positive") {
		t.Fatalf("zero grace accepted: %d %q", code, e)
	}
	code, out, errOut := runCmd(t, nil, "cleanup", "--data", dir, "--dry-run")
	if code != 0 || !strings.Contains(out, "would reclaim") || !strings.Contains(out, "abandoned-old.lance") || strings.Contains(out, "abandoned-young") {
		t.Fatalf("dry run: %d %q %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "cleanup: dataset") {
		t.Fatalf("no progress line on stderr: %q", errOut)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatal("dry run deleted a file")
	}
	code, out, errOut = runCmd(t, nil, "cleanup", "--data", dir)
	if code != 0 || !strings.Contains(out, "reclaimed") || !strings.Contains(out, "abandoned-old.lance") {
		t.Fatalf("cleanup: %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatal("old unreferenced file survived cleanup")
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatal("cleanup deleted a file younger than the grace period")
	}
	if _, err := os.Stat(staging); !os.IsNotExist(err) || !strings.Contains(out, "1 staging files") {
		t.Fatalf("crashed put's staging file not swept: %v %q", err, out)
	}
	// everything reachable is intact
	if code, out, _ := runCmd(t, nil, "verify", "--data", dir); code != 0 {
		t.Fatalf("verify after cleanup: %d %q", code, out)
	}
	g, err = adapters.Open(ctx, store, adapters.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sn, err = g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := g.Table(ctx, sn, "a")
	if err != nil {
		t.Fatal(err)
	}
	if n := ds.CountRows(); n != 3 {
		t.Fatalf("rows after cleanup: %d, want 3", n)
	}
}
