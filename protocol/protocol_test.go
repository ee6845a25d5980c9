package protocol

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pggraph/pggraph/graph"
)

func TestSQLStates(t *testing.T) {
	cases := []struct {
		err   error
		state string
		pred  func(error) bool
	}{
		{&Error{Kind: KindReadSetChanged}, "40001", IsReadSetChanged},
		{&Error{Kind: KindRecoveryRequired}, "55000", IsRecoveryRequired},
		{&Error{Kind: KindContention}, "55P03", IsContention},
		{&Error{Kind: KindUncoveredDrift}, "55000", IsUncoveredDrift},
		{&Error{Kind: KindKeyConflict}, "23505", IsKeyConflict},
		{&Error{Kind: KindForeignKey}, "23503", nil},
		{&Error{Kind: KindCheck}, "23514", nil},
		{&Error{Kind: KindNotNull}, "23502", nil},
		{&Error{Kind: KindResourceLimit}, "54000", IsResourceLimit},
		{&Error{Kind: KindReadOnly}, "25006", nil},
		{&Error{Kind: KindUnknownBranch}, "3D000", IsUnknownBranch},
		{&Error{Kind: KindUnsupported}, "0A000", nil},
		{&Error{Kind: KindInvalid}, "22023", nil},
		{&Error{Kind: KindUndefinedTable}, "42P01", IsUndefinedTable},
		{&Error{Kind: KindDuplicateTable}, "42P07", IsDuplicateTable},
		{&Error{Kind: KindInvalidDefinition}, "42P16", IsInvalidDefinition},
		{&Error{Kind: KindResolutionUnknown}, "08007", nil},
		{errors.New("raw"), "XX000", nil},
	}
	for _, c := range cases {
		wrapped := errors.Join(errors.New("context"), c.err)
		if got := SQLState(wrapped); got != c.state {
			t.Errorf("%v: SQLSTATE %s, want %s", c.err, got, c.state)
		}
		if c.pred != nil && !c.pred(wrapped) {
			t.Errorf("%v: predicate false", c.err)
		}
	}
	if !Retryable(&Error{Kind: KindReadSetChanged}) || Retryable(&Error{Kind: KindRecoveryRequired}) {
		t.Fatal("Retryable")
	}
}

func snap(tables ...graph.TableEntry) *graph.Snapshot {
	st := graph.State{Schema: graph.SchemaRow{NextID: 100, Counter: 1, Hash: "h"}}
	for _, e := range tables {
		st.Put(e)
	}
	return &graph.Snapshot{Branch: "main", Version: 5, Commit: graph.Commit{ID: "c5"}, State: st}
}

func entry(id, v uint64) graph.TableEntry {
	return graph.TableEntry{ID: id, Incarnation: id + 50, Name: string(rune('a' + id)), State: graph.Live, Version: v}
}

func TestReadSetCheckPerMember(t *testing.T) {
	base := snap(entry(1, 3), entry(2, 7))
	var rs ReadSet
	rs.Schema = base.State.Schema.Identity()
	rs.AddTable(base.State, entry(1, 0).Key(), true)
	rs.AddTable(base.State, entry(2, 0).Key(), false)
	rs.AddTable(base.State, graph.TableKey{ID: 9, Incarnation: 9}, false) // must stay absent
	cases := []struct {
		name   string
		fresh  *graph.Snapshot
		member string
	}{
		{"unchanged", snap(entry(1, 3), entry(2, 7)), ""},
		{"disjoint table added", snap(entry(1, 3), entry(2, 7), entry(3, 1)), ""},
		{"written table moved", snap(entry(1, 4), entry(2, 7)), "table"},
		{"probed table moved", snap(entry(1, 3), entry(2, 8)), "table"},
		{"absent table appeared", snap(entry(1, 3), entry(2, 7), graph.TableEntry{ID: 9, Incarnation: 9, Name: "z", State: graph.Live}), "table"},
	}
	for _, c := range cases {
		err := rs.Check(c.fresh)
		var pe *Error
		switch {
		case c.member == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.member != "" && (!errors.As(err, &pe) || pe.Kind != KindReadSetChanged):
			t.Errorf("%s: want read-set change, got %v", c.name, err)
		}
	}
	changed := snap(entry(1, 3), entry(2, 7))
	changed.State.Schema.Counter = 2
	if err := rs.Check(changed); !IsReadSetChanged(err) {
		t.Fatalf("schema change not detected: %v", err)
	}
	dropped := snap(entry(1, 3), entry(2, 7))
	e := entry(2, 7)
	e.State = graph.Dropped
	dropped.State.Put(e)
	if err := rs.Check(dropped); !IsReadSetChanged(err) {
		t.Fatal("tombstone of a probed table not detected")
	}
	fenced := snap(entry(1, 3), entry(2, 7))
	f := entry(1, 3)
	f.Epoch = 1
	fenced.State.Put(f)
	if err := rs.Check(fenced); !IsReadSetChanged(err) {
		t.Fatal("epoch fence not detected")
	}
}

func TestDeltaApplyBindsOnlyConfirmedSlots(t *testing.T) {
	head := snap(entry(1, 3), entry(2, 7), entry(3, 1))
	d := ManifestDelta{Updates: []TableUpdate{{Table: entry(1, 0).Key()}}}
	eff := []Effect{{Table: entry(1, 0).Key(), Confirmed: &Confirmed{Version: 4, RowCount: 10}}}
	st, err := d.Apply(head.State, eff)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := st.Table(entry(1, 0).Key()); e.Version != 4 || e.RowCount != 10 {
		t.Fatalf("slot not bound: %+v", e)
	}
	if e, _ := st.Table(entry(3, 0).Key()); e.Version != 1 {
		t.Fatalf("disjoint entry changed: %+v", e)
	}
	if st.Schema != head.State.Schema {
		t.Fatal("data-only delta changed the schema identity")
	}
	if _, err := d.Apply(head.State, []Effect{{Table: entry(1, 0).Key()}}); err == nil {
		t.Fatal("unconfirmed slot was published")
	}
	reg := ManifestDelta{Registrations: []graph.TableEntry{{ID: 60, Incarnation: 61, Name: "new", State: graph.Live}}, NextID: 62}
	st, err = reg.Apply(head.State, nil)
	if err != nil || st.Schema.Counter != 2 || st.Schema.Hash == head.State.Schema.Hash || st.Schema.NextID != 100 {
		t.Fatalf("registration: %+v %v", st.Schema, err)
	}
}

func TestGatesOrderAndCancel(t *testing.T) {
	g := GatesFor(t.Name())
	k := []GateKey{TableGate("main", graph.TableKey{ID: 2}), SchemaGate(), TableGate("main", graph.TableKey{ID: 1}), SchemaGate()}
	s := SortGates(append([]GateKey(nil), k...))
	if len(s) != 3 || s[0] != SchemaGate() || s[1].Key > s[2].Key {
		t.Fatalf("order %v", s)
	}
	rel, err := g.Acquire(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Acquire(ctx, []GateKey{TableGate("main", graph.TableKey{ID: 9}), TableGate("main", graph.TableKey{ID: 1})}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want deadline, got %v", err)
	}
	// the cancelled attempt released what it held (ID 9)
	rel9, err := g.Acquire(context.Background(), []GateKey{TableGate("main", graph.TableKey{ID: 9})})
	if err != nil {
		t.Fatal(err)
	}
	rel9()
	rel()
	rel2, err := g.Acquire(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	rel2()
}

func TestSharedBranchGateExcludesOnlyControl(t *testing.T) {
	g := GatesFor(t.Name())
	w1, err := g.Acquire(context.Background(), []GateKey{BranchUseGate("b")})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := g.Acquire(context.Background(), []GateKey{BranchUseGate("b")})
	if err != nil {
		t.Fatal("two writers on one branch must both hold the shared gate")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Acquire(ctx, []GateKey{BranchGate("b")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("branch control ran under writers: %v", err)
	}
	w1()
	w2()
	ctl, err := g.Acquire(context.Background(), []GateKey{BranchGate("b"), BranchUseGate("b")})
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if _, err := g.Acquire(ctx2, []GateKey{BranchUseGate("b")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("writer ran under branch control: %v", err)
	}
	ctl()
}

func TestNoEffectFinal(t *testing.T) {
	cause := &Error{Kind: KindNotNull, Message: "null"}
	err := NoEffectFinal(cause)
	if !errors.Is(err, ErrNoEffect) || !errors.Is(err, cause) || finalCause(err) != cause || SQLState(err) != "23502" {
		t.Fatalf("NoEffectFinal: %v", err)
	}
	if finalCause(ErrNoEffect) != nil || finalCause(errors.New("x")) != nil {
		t.Fatal("finalCause of a non-final error")
	}
}
