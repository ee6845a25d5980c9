package graphsql

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// putSidecar leaves an intent (with the given effects, none by default)
// owned by another machine whose lease ends at lease.
func putSidecar(t *testing.T, g *adapters.Graph, lease time.Time, effects ...protocol.Effect) string {
	t.Helper()
	op := graph.NewID()
	sc := &recovery.Sidecar{
		FormatVersion: recovery.SidecarVersion, OperationID: op, WriterKind: adapters.Mutation, Branch: "main",
		Owner:     recovery.Owner{Host: "elsewhere.invalid", PID: 4242, BootID: "other-boot", Instance: "gone", LeaseExpiry: lease},
		Phase:     recovery.Armed,
		CreatedAt: time.Now().UTC(),
		Write: &protocol.PreparedWrite{
			OperationID: op, WriterKind: adapters.Mutation,
			Base:     protocol.BaseView{Branch: "main", Incarnation: "main"},
			ReadSet:  protocol.ReadSet{Branch: "main", Incarnation: "main"},
			Effects:  effects,
			Lineage:  &protocol.LineageIntent{CommitID: graph.NewID(), RollbackCommitID: graph.NewID(), Actor: "elsewhere"},
			Recovery: protocol.RecoveryPlan{Strategy: protocol.RollBackArmedForwardConfirmed},
		},
	}
	b, err := sc.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Root.Store().Put(context.Background(), recovery.Key(op), b); err != nil {
		t.Fatal(err)
	}
	return op
}

func TestRecoveryViews(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	live := putSidecar(t, g, time.Now().Add(time.Hour))
	expired := putSidecar(t, g, time.Now().Add(-time.Hour))
	corrupt := "01CORRUPTSIDECAR0000000000"
	if err := g.Root.Store().Put(ctx, recovery.Key(corrupt), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	views, _ := Tables(ctx, g, "main")
	cat := WithViews(exec.NewMemCatalog(), views)
	got := query(t, cat, "SELECT operation_id, coalesce(writer_kind, '-'), coalesce(phase, '-'), coalesce(liveness, '-'), lease_expiry IS NOT NULL, error IS NOT NULL, coalesce(owner, '-') FROM graph.recovery ORDER BY operation_id")
	want := map[string]string{
		live:    live + "|mutation|armed|owner alive|t|f|elsewhere.invalid pid 4242 (instance gone)",
		expired: expired + "|mutation|armed|owner lease expired|t|f|elsewhere.invalid pid 4242 (instance gone)",
		corrupt: corrupt + "|-|-|-|f|t|-",
	}
	if len(got) != 3 {
		t.Fatalf("graph.recovery rows %q", got)
	}
	for _, row := range got {
		id := row[:strings.IndexByte(row, '|')]
		if want[id] != row {
			t.Fatalf("row %q, want %q", row, want[id])
		}
	}

	if err := g.Root.Store().Delete(ctx, recovery.Key(corrupt)); err != nil {
		t.Fatal(err)
	}
	inv, _ := Parse("SELECT graph.recover()")
	res, err := inv.Execute(ctx, g, Env{}, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Row[0] != int64(1) {
		t.Fatalf("recover resolved %v intents, want 1 (the live owner's is skipped)", res.Row[0])
	}
	got = query(t, cat, "SELECT operation_id, decision <> '', fenced IS NOT NULL, time IS NOT NULL FROM graph.audit")
	if len(got) == 0 || got[0] != expired+"|t|t|t" {
		t.Fatalf("graph.audit %q; want the expired intent's decision", got)
	}
	for _, row := range got {
		if strings.HasPrefix(row, live) {
			t.Fatalf("the live owner's intent was resolved: %q", got)
		}
	}
	got = query(t, cat, "SELECT operation_id FROM graph.recovery")
	if len(got) != 1 || got[0] != live {
		t.Fatalf("pending after recover %q; want only the live owner's", got)
	}

	// an unreadable intent makes recover fail with its SQLSTATE, naming it
	if err := g.Root.Store().Put(ctx, recovery.Key(corrupt), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	_, err = inv.Execute(ctx, g, Env{}, nil, nil, nil, nil)
	wantCode(t, err, "55000")
	if !strings.Contains(err.Error(), corrupt) {
		t.Fatalf("error %q does not name the intent", err)
	}
}

// TestRecoveryClassification: an intent naming a table effect shows the
// effect's exact-identity class in graph.recovery, and its resolution
// in graph.audit.
func TestRecoveryClassification(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)
	head, _ := g.Root.Head(ctx, "main")
	e, _ := head.State.TableByName("people")
	op := putSidecar(t, g, time.Now().Add(-time.Hour), protocol.Effect{
		Table: e.Key(), Location: e.Location, Kind: protocol.EffectStaged,
		ExpectedVersion: e.Version, TxnUUID: "00000000-0000-4000-8000-000000000001",
	})
	views, _ := Tables(ctx, g, "main")
	cat := WithViews(exec.NewMemCatalog(), views)
	want := e.Key().String() + "=" + string(recovery.NoMovement)
	got := query(t, cat, "SELECT operation_id, classification, liveness FROM graph.recovery")
	if len(got) != 1 || got[0] != op+"|"+want+"|owner lease expired" {
		t.Fatalf("graph.recovery %q; want the no-movement class of people", got)
	}
	if _, err := Call(ctx, g, Env{}, "recover", nil); err != nil {
		t.Fatal(err)
	}
	got = query(t, cat, "SELECT operation_id, classification, fenced FROM graph.audit")
	if len(got) != 1 || got[0] != op+"|"+want+"|t" {
		t.Fatalf("graph.audit %q", got)
	}
}
