package graph

import (
	"context"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// Commit times are stored at microseconds, so the time graph.commits shows
// is the time compared: published and re-read snapshots agree, and a
// manifest written with a finer time reads back truncated.
func TestCommitTimeStoredAtMicroseconds(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	r, _, err := Init(ctx, store, "tester")
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Head(ctx, MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	fine := time.Date(2026, 11, 29, 17, 30, 0, 123456789, time.UTC)
	want := time.Date(2026, 11, 29, 17, 30, 0, 123456000, time.UTC)
	sn, err := r.Publish(ctx, head, head.State.Clone(), Commit{ID: "01JDTESTCOMMIT0000000000000", Time: fine})
	if err != nil {
		t.Fatal(err)
	}
	if !sn.Commit.Time.Equal(want) {
		t.Fatalf("published snapshot time %v, want %v", sn.Commit.Time, want)
	}
	r2, err := Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	again, err := r2.Head(ctx, MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Commit.Time.Equal(want) {
		t.Fatalf("re-read time %v, want %v", again.Commit.Time, want)
	}
	// a root written before times were truncated on write
	cj := `{"id":"x","actor":"a","time":"2026-11-29T17:30:00.123456789Z"}`
	sj, _ := encodeState(head.State)
	_, c, err := decodeState(map[string]string{PropFormat: ManifestFormat, PropState: sj, PropCommit: cj})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Time.Equal(want) {
		t.Fatalf("decoded nanosecond time %v, want %v", c.Time, want)
	}
}
