package graph

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/pggraph/pggraph/lance"
)

// A caller mutating its snapshot's State (Put, element assignment,
// appending to a definition, the allocator) must not reach the cache or
// any other snapshot.
func TestHeadSnapshotsDoNotShareMutations(t *testing.T) {
	ctx := context.Background()
	r := benchRoot(t, 3)
	want, err := r.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := encodeState(want.State)
	mutations := map[string]func(st *State){
		"put":     func(st *State) { e := st.Tables[0]; e.Version = 99; st.Put(e) },
		"element": func(st *State) { st.Tables[1].Name = "renamed"; st.Tables[1].State = Dropped },
		"schema":  func(st *State) { st.Schema.Allocate(); st.Schema.Counter++ },
		"append-column": func(st *State) {
			st.Tables[2].Def.Columns = append(st.Tables[2].Def.Columns, ColumnDef{ID: 1, Name: "x"})
		},
		"append-pk":      func(st *State) { st.Tables[0].Def.PrimaryKey = append(st.Tables[0].Def.PrimaryKey, "name") },
		"append-extra":   func(st *State) { st.Tables[0].Def.Extra = append(st.Tables[0].Def.Extra, ' ') },
		"new-table":      func(st *State) { st.Put(TableEntry{ID: 1000, Incarnation: 1001, Name: "z", State: Live}) },
		"clone-and-edit": func(st *State) { c := st.Clone(); c.Tables[0].Def.Columns[0].Name = "zz"; *st = c },
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			sn, err := r.Head(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			mutate(&sn.State)
			again, err := r.Head(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := encodeState(again.State); got != wantJSON {
				t.Fatalf("a mutated snapshot leaked into the cache:\n got %s\nwant %s", got, wantJSON)
			}
		})
	}
	// the state a caller passed to Publish stays the caller's
	base, _ := r.Head(ctx, "")
	st := base.State.Clone()
	st.Tables[0].Version = 8
	pub, err := r.Publish(ctx, base, st, Commit{ID: NewID(), Parent: base.Commit.ID, Actor: "t", Time: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	st.Tables[0].Version = 1234
	pub.State.Tables[0].RowCount = 4321
	h, _ := r.Head(ctx, "")
	if h.Version != pub.Version || h.State.Tables[0].Version != 8 || h.State.Tables[0].RowCount != 1000 {
		t.Fatalf("published state changed after publish: %+v", h.State.Tables[0])
	}
	// a cold handle decodes the same state the warm cache serves
	r2, err := Open(ctx, r.Store())
	if err != nil {
		t.Fatal(err)
	}
	cold, _ := r2.Head(ctx, "")
	cj, _ := encodeState(cold.State)
	hj, _ := encodeState(h.State)
	if cj != hj || !reflect.DeepEqual(cold.Commit, h.Commit) {
		t.Fatalf("cold decode differs from the cached head:\n%s\n%s", cj, hj)
	}
}

// A deleted and re-created branch restarts its version numbers; the
// cache must not serve the old incarnation's state for them.
func TestHeadCacheKeyedByIncarnation(t *testing.T) {
	ctx := context.Background()
	r := benchRoot(t, 2)
	dev, err := r.Head(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	st := dev.State.Clone()
	e := st.Tables[0]
	e.RowCount = 77
	st.Put(e)
	p1, err := r.Publish(ctx, dev, st, Commit{ID: NewID(), Parent: dev.Commit.ID, Actor: "t", Time: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := r.Head(ctx, "dev"); h.State.Tables[0].RowCount != 77 {
		t.Fatalf("head after publish: %+v", h.State.Tables[0])
	}
	// another handle deletes and re-creates dev; it publishes the same
	// version number with different content
	r2, err := Open(ctx, r.Store())
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.DeleteBranch(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	d2, err := r2.CreateBranch(ctx, "dev", "")
	if err != nil {
		t.Fatal(err)
	}
	st = d2.State.Clone()
	e = st.Tables[0]
	e.RowCount = 88
	st.Put(e)
	p2, err := r2.Publish(ctx, d2, st, Commit{ID: NewID(), Parent: d2.Commit.ID, Actor: "t", Time: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	if p2.Version != p1.Version {
		t.Fatalf("test setup: versions %d vs %d", p1.Version, p2.Version)
	}
	h, err := r.Head(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if h.Incarnation == dev.Incarnation || h.State.Tables[0].RowCount != 88 || h.Commit.ID != p2.Commit.ID {
		t.Fatalf("stale incarnation served: inc %s (old %s), rows %d", h.Incarnation, dev.Incarnation, h.State.Tables[0].RowCount)
	}
}

// Concurrent heads and publishes under -race: every snapshot is private.
func TestHeadCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	r := benchRoot(t, 4)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				sn, err := r.Head(ctx, "")
				if err != nil {
					t.Error(err)
					return
				}
				st := sn.State
				st.Tables[0].RowCount++
				sn.State.Tables[1].Name = "scribble"
				st2 := sn.State.Clone()
				st2.Tables[1].Name = "t001"
				if _, err := r.Publish(ctx, sn, st2, Commit{ID: NewID(), Parent: sn.Commit.ID, Actor: "t", Time: time.Now().UTC()}); err != nil && !lance.IsConflict(err) {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	h, _ := r.Head(ctx, "")
	if h.State.Tables[1].Name != "t001" {
		t.Fatalf("scribble leaked: %q", h.State.Tables[1].Name)
	}
}
