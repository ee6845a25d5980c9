package adapters

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// insertFn stages in-memory rows (as the SQL layer's INSERT does).
func insertFn(rows map[string][]int64) StageFunc {
	return func(ctx context.Context, s *Stage) error {
		for _, tbl := range sortedKeys(rows) {
			if err := s.InsertBatches(tbl, testSchema, batchOf(rows[tbl]...)); err != nil {
				return err
			}
		}
		return nil
	}
}

// newMember is a grouped write, for driving commitGroup directly (a
// deterministic group).
func newMember(ctx context.Context, fn StageFunc) *groupMember {
	return &groupMember{ctx: ctx, o: WriteOptions{Group: true}, fn: fn, done: make(chan struct{})}
}

// groupOf commits the inserts as one group commit and returns the first
// member error.
func groupOf(ctx context.Context, g *Graph, members ...map[string][]int64) error {
	var batch []*groupMember
	for _, rows := range members {
		batch = append(batch, newMember(ctx, insertFn(rows)))
	}
	if again := g.commitGroup(batch); len(again) > 0 {
		return fmt.Errorf("%d members deferred", len(again))
	}
	for _, m := range batch {
		if m.err != nil {
			return m.err
		}
	}
	return nil
}

// TestGroupCommitMembers drives one group directly: members that insert
// disjoint keys share one commit and one receipt; a member whose own
// stage function fails gets its error alone; a member inserting a key an
// earlier member inserts, or deleting a row an earlier member deletes,
// is deferred to the next group, where it recomputes against a base
// holding that key or lacking that row; a member that deletes rows no
// other member deletes shares the group; a member that truncates runs
// alone.
func TestGroupCommitMembers(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b", "c")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"b": {7}}); err != nil {
		t.Fatal(err)
	}
	before, err := g.Commits(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	bad := protocol.Errorf(protocol.KindCheck, nil, "new row violates check constraint")
	// dup fails when its key is already in the base (what the SQL layer's
	// uniqueness check does), else inserts it
	dupRuns := 0
	dup := func(ctx context.Context, s *Stage) error {
		dupRuns++
		if ids, _ := readIDs(t, g, s.Base(), "a"); slices.Contains(ids, 1) {
			return protocol.Errorf(protocol.KindKeyConflict, nil, "duplicate key value violates unique constraint \"a_pkey\"")
		}
		return insertFn(map[string][]int64{"a": {1}})(ctx, s)
	}
	// del deletes row 7 of b when the base still has it (else fails as
	// the SQL layer's row-level arbitration does)
	gone := protocol.Errorf(protocol.KindReadSetChanged, nil, "row deleted by a concurrent transaction")
	delRuns := 0
	del := func(ctx context.Context, s *Stage) error {
		delRuns++
		_, addrs := readIDs(t, g, s.Base(), "b")
		a, ok := addrs[7]
		if !ok {
			return gone
		}
		return s.Delete("b", []uint64{a})
	}
	solo := func(ctx context.Context, s *Stage) error { return s.Truncate("c") }
	m1 := newMember(ctx, insertFn(map[string][]int64{"a": {1}}))
	m2 := newMember(ctx, func(context.Context, *Stage) error { return bad })
	m3 := newMember(ctx, dup)
	m4 := newMember(ctx, insertFn(map[string][]int64{"a": {2}, "b": {9}}))
	m5 := newMember(ctx, del)
	m6 := newMember(ctx, del)
	m7 := newMember(ctx, solo)
	again := g.commitGroup([]*groupMember{m1, m2, m3, m4, m5, m6, m7})
	if len(again) != 2 || again[0] != m3 || again[1] != m6 {
		t.Fatalf("deferred %d members, want the duplicate key and the second delete of row 7", len(again))
	}
	if m1.err != nil || m4.err != nil || m5.err != nil || m1.rc == nil || m4.rc == nil || m5.rc == nil ||
		m1.rc.Snapshot.Version != m4.rc.Snapshot.Version || m1.rc.Snapshot.Version != m5.rc.Snapshot.Version {
		t.Fatalf("admitted members: %v %v %v, receipts %+v %+v %+v", m1.err, m4.err, m5.err, m1.rc, m4.rc, m5.rc)
	}
	// one manifest version; each member named by its own commit id
	groupCommit := m1.rc.Snapshot.Commit
	if m1.rc.CommitID == m4.rc.CommitID || groupCommit.ID != m1.rc.CommitID || len(groupCommit.Members) != 3 ||
		groupCommit.Members[0].ID != m1.rc.CommitID || groupCommit.Members[1].ID != m4.rc.CommitID || groupCommit.Members[2].ID != m5.rc.CommitID {
		t.Fatalf("member receipts %s %s %s, group commit %+v", m1.rc.CommitID, m4.rc.CommitID, m5.rc.CommitID, groupCommit)
	}
	if !errors.Is(m2.err, bad) {
		t.Fatalf("failing member got %v", m2.err)
	}
	if m7.err != nil || m7.rc == nil || m7.rc.CommitID == m1.rc.CommitID {
		t.Fatalf("the truncating member must run alone after the group: %v %+v", m7.err, m7.rc)
	}
	if again := g.commitGroup(again); len(again) != 0 {
		t.Fatal("deferred again")
	}
	if m3.err == nil || protocol.SQLState(m3.err) != "23505" || dupRuns != 2 {
		t.Fatalf("the deferred duplicate got %v after %d runs, want its own 23505 from a recomputation", m3.err, dupRuns)
	}
	if !errors.Is(m6.err, gone) || delRuns != 3 {
		t.Fatalf("the deferred second delete got %v after %d runs of del, want its own conflict from a recomputation", m6.err, delRuns)
	}
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := readIDs(t, g, sn, "a")
	b, _ := readIDs(t, g, sn, "b")
	if !slices.Equal(a, []int64{1, 2}) || !slices.Equal(b, []int64{9}) {
		t.Fatalf("a %v b %v, want [1 2] and [9] (9 inserted and 7 deleted by the group)", a, b)
	}
	after, err := g.Commits(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(after)-len(before) != 2 {
		t.Fatalf("%d commits for one group and one solo write, want 2", len(after)-len(before))
	}
	for _, m := range []*groupMember{m1, m4} {
		sn, err := g.Root.SnapshotByCommit(ctx, "", m.rc.CommitID)
		if err != nil || sn.Version != m1.rc.Snapshot.Version {
			t.Fatalf("member commit %s resolves to %v, %v; want the group's version %d", m.rc.CommitID, sn, err, m1.rc.Snapshot.Version)
		}
	}
	if rows := groupCommit.Rows(); len(rows) != 3 || rows[1].ID != m4.rc.CommitID || rows[1].Parent != groupCommit.Parent {
		t.Fatalf("graph.commits rows of the group commit: %+v", rows)
	}
}

// TestGroupCommitConcurrentWriters: concurrent grouped inserts of
// disjoint keys into one table all commit, in fewer graph commits than
// writes (every commit waits for slow durable writes, so writers queue
// behind the one in flight).
func TestGroupCommitConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	g, err := Open(ctx, slowWrites{objstore.NewMem(), time.Millisecond}, Options{Create: true, Actor: "test", Location: "/test-root"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	createTables(t, g, "a")
	before, err := g.Commits(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := int64(w*each + i)
				if _, err := g.Write(ctx, WriteOptions{Group: true}, insertFn(map[string][]int64{"a": {id}})); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := readIDs(t, g, sn, "a")
	if len(ids) != writers*each {
		t.Fatalf("%d rows, want %d", len(ids), writers*each)
	}
	for i, id := range ids {
		if id != int64(i) {
			t.Fatalf("rows %v", ids)
		}
	}
	after, err := g.Commits(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	groups, members := g.GroupStats()
	commits := len(after) - len(before)
	if groups == 0 || commits != writers*each-int(members-groups) {
		t.Fatalf("%d commits for %d writes; %d group commits carried %d writes", commits, writers*each, groups, members)
	}
	t.Logf("%d writes in %d commits (%d group commits carried %d writes)", writers*each, commits, groups, members)
}
