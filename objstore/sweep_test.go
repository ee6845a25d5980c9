package objstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSweepStagingRemovesOnlyOldStagingFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l, err := NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Put(ctx, "a/b/object", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "a", "b", stagingMarker+"old")
	young := filepath.Join(dir, "a", stagingMarker+"young")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("crashed put"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	n, err := l.SweepStaging(ctx, time.Now().Add(-time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatal("old staging file survived")
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatal("a staging file younger than the bound was removed (a running put)")
	}
	if b, err := l.Get(ctx, "a/b/object"); err != nil || string(b) != "kept" {
		t.Fatalf("object after sweep: %q, %v", b, err)
	}
	ctxDone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.SweepStaging(ctxDone, time.Now()); err == nil {
		t.Fatal("sweep ignored a cancelled context")
	}
}
