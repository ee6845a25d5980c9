package recovery_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

var errCrash = errors.New("simulated crash")

// keyCrash crashes (fails the op and every later op) at the first write
// whose key satisfies pred, after skip earlier matches.
type keyCrash struct {
	objstore.Store
	mu      sync.Mutex
	pred    func(op, key string) bool
	skip    int
	crashed bool
}

func (k *keyCrash) check(op, key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.crashed {
		return errCrash
	}
	if k.pred != nil && k.pred(op, key) {
		if k.skip == 0 {
			k.crashed = true
			return errCrash
		}
		k.skip--
	}
	return nil
}

func (k *keyCrash) dead() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.crashed {
		return errCrash
	}
	return nil
}

func (k *keyCrash) Get(ctx context.Context, key string) ([]byte, error) {
	if err := k.dead(); err != nil {
		return nil, err
	}
	return k.Store.Get(ctx, key)
}
func (k *keyCrash) Put(ctx context.Context, key string, b []byte) error {
	if err := k.check("put", key); err != nil {
		return err
	}
	return k.Store.Put(ctx, key, b)
}
func (k *keyCrash) PutIfAbsent(ctx context.Context, key string, b []byte) error {
	if err := k.check("putifabsent", key); err != nil {
		return err
	}
	return k.Store.PutIfAbsent(ctx, key, b)
}
func (k *keyCrash) Delete(ctx context.Context, key string) error {
	if err := k.check("delete", key); err != nil {
		return err
	}
	return k.Store.Delete(ctx, key)
}

var schema = arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)

func rows(ids ...int64) adapters.Source {
	return func(ctx context.Context) (array.RecordReader, error) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
		r := b.NewRecordBatch()
		defer r.Release()
		return array.NewRecordReader(schema, []arrow.RecordBatch{r})
	}
}

// open opens a graph whose writes commit their table effects before the
// manifest CAS under a sidecar (adapters.Options.LegacyCommitPath): the
// intents these tests recover. Commit path v2 arms a sidecar only for a
// branch's first touch (docs/architecture.md), and sidecars of earlier
// builds are resolved the same way.
func open(t *testing.T, store objstore.Store, create bool, opts recovery.Options) *adapters.Graph {
	t.Helper()
	g, err := adapters.Open(context.Background(), store, adapters.Options{Create: create, Actor: "t", Recovery: opts, LegacyCommitPath: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func setup(t *testing.T) *objstore.Mem {
	mem := objstore.NewMem()
	g := open(t, mem, true, recovery.Options{})
	defer g.Close()
	_, err := g.Write(context.Background(), adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		for _, n := range []string{"a", "b"} {
			if err := s.CreateTable(adapters.TableSpec{Name: n, Columns: []graph.ColumnSpec{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

func writeAB(ctx context.Context, g *adapters.Graph, id int64) error {
	_, err := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		if err := s.Insert("a", rows(id)); err != nil {
			return err
		}
		return s.Insert("b", rows(id))
	})
	return err
}

// crashBeforeConfirm leaves an Armed sidecar with every effect landed.
func crashBeforeConfirm(t *testing.T, mem *objstore.Mem) string {
	kc := &keyCrash{Store: mem, pred: func(op, key string) bool { return op == "put" && strings.HasPrefix(key, "__recovery/") }}
	g := open(t, kc, false, recovery.Options{})
	err := writeAB(context.Background(), g, 1)
	g.Close()
	if !protocol.IsRecoveryRequired(err) {
		t.Fatalf("want recovery required, got %v", err)
	}
	objs, _ := mem.List(context.Background(), "__recovery/")
	if len(objs) != 1 {
		t.Fatalf("sidecars: %v", objs)
	}
	return objs[0].Key
}

func rewriteOwner(t *testing.T, mem objstore.Store, key string, f func(o *recovery.Owner)) *recovery.Sidecar {
	ctx := context.Background()
	b, err := mem.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := recovery.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	f(&sc.Owner)
	nb, _ := sc.Encode()
	if err := mem.Put(ctx, key, nb); err != nil {
		t.Fatal(err)
	}
	return sc
}

func ids(t *testing.T, g *adapters.Graph, table string) []int64 {
	ctx := context.Background()
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := g.Table(ctx, sn, table)
	if err != nil {
		t.Fatal(err)
	}
	addrs := allAddrs(t, ds)
	if len(addrs) == 0 {
		return nil
	}
	rec, err := ds.Take(ctx, addrs, []string{"id"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	var out []int64
	c := rec.Column(0).(*array.Int64)
	for i := 0; i < c.Len(); i++ {
		out = append(out, c.Value(i))
	}
	slices.Sort(out)
	return out
}

func allAddrs(t *testing.T, ds *lance.Dataset) []uint64 {
	var out []uint64
	for _, fr := range ds.Fragments() {
		for i := uint64(0); i < fr.PhysicalRows; i++ {
			out = append(out, lance.RowAddress(fr.ID, uint32(i)))
		}
	}
	return out
}

func TestUnknownSidecarVersionBlocksWrites(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	body := []byte(`{"format_version": 7, "operation_id": "01FUTURE"}`)
	if err := mem.Put(ctx, "__recovery/01FUTURE.json", body); err != nil {
		t.Fatal(err)
	}
	g := open(t, mem, false, recovery.Options{})
	defer g.Close()
	err := writeAB(ctx, g, 1)
	if !protocol.IsRecoveryRequired(err) || protocol.SQLState(err) != "55000" || !recovery.IsUnknownVersion(err) {
		t.Fatalf("want 55000 naming the unknown version, got %v", err)
	}
	if b, err := mem.Get(ctx, "__recovery/01FUTURE.json"); err != nil || string(b) != string(body) {
		t.Fatalf("unknown sidecar touched: %v", err)
	}
}

func TestArmedIntentRolledBackWithAudit(t *testing.T) {
	mem := setup(t)
	key := crashBeforeConfirm(t, mem)
	g := open(t, mem, false, recovery.Options{})
	defer g.Close()
	reps, err := g.Recovery.Recover(context.Background())
	if err != nil || len(reps) != 1 || reps[0].Decision != recovery.RolledBackDec {
		t.Fatalf("recover: %+v %v", reps, err)
	}
	for _, c := range reps[0].Classes {
		if c != recovery.Landed {
			t.Fatalf("classes %v", reps[0].Classes)
		}
	}
	if a, b := ids(t, g, "a"), ids(t, g, "b"); len(a)+len(b) != 0 {
		t.Fatalf("rolled back write visible: %v %v", a, b)
	}
	if _, err := mem.Get(context.Background(), key); !objstore.IsNotFound(err) {
		t.Fatalf("sidecar remains: %v", err)
	}
	audit, err := recovery.ReadAudit(context.Background(), g.Root)
	if err != nil || len(audit) != 1 || audit[0].Decision != recovery.RolledBackDec || audit[0].CommitID == "" {
		t.Fatalf("audit %+v %v", audit, err)
	}
	sn, _ := g.Head(context.Background(), "")
	if sn.Commit.ID != audit[0].CommitID || sn.Commit.Actor != "pggraph:recovery" {
		t.Fatalf("rollback commit %+v", sn.Commit)
	}
	if err := writeAB(context.Background(), g, 2); err != nil {
		t.Fatal(err)
	}
	if a := ids(t, g, "a"); !slices.Equal(a, []int64{2}) {
		t.Fatalf("a = %v", a)
	}
}

func TestLiveForeignOwnerIsNeverTouched(t *testing.T) {
	mem := setup(t)
	key := crashBeforeConfirm(t, mem)
	rewriteOwner(t, mem, key, func(o *recovery.Owner) {
		o.Host, o.BootID, o.LeaseExpiry = "another-machine", "b", time.Now().Add(time.Hour)
	})
	g := open(t, mem, false, recovery.Options{})
	defer g.Close()
	reps, err := g.Recovery.Recover(context.Background())
	if err != nil || reps[0].Decision != recovery.SkippedLive {
		t.Fatalf("recover: %+v %v", reps, err)
	}
	err = writeAB(context.Background(), g, 2)
	if !protocol.IsContention(err) || protocol.SQLState(err) != "55P03" {
		t.Fatalf("want 55P03, got %v", err)
	}
	if _, err := mem.Get(context.Background(), key); err != nil {
		t.Fatalf("live owner's sidecar destroyed: %v", err)
	}
}

func TestExpiredForeignOwnerIsFencedThenRolledBack(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	key := crashBeforeConfirm(t, mem)
	sc := rewriteOwner(t, mem, key, func(o *recovery.Owner) {
		o.Host, o.BootID, o.LeaseExpiry = "another-machine", "b", time.Now().Add(-time.Minute)
	})
	g := open(t, mem, false, recovery.Options{})
	defer g.Close()
	reps, err := g.Recovery.Recover(ctx)
	if err != nil || reps[0].Decision != recovery.RolledBackDec || !reps[0].Fenced {
		t.Fatalf("recover: %+v %v", reps, err)
	}
	// the old owner wakes up and tries to publish its confirmed delta:
	// the fence (epoch bump) makes its arbitration fail
	pw := sc.Write
	for i := range pw.Effects {
		pw.Effects[i].Confirmed = &protocol.Confirmed{Version: pw.Effects[i].ExpectedVersion + 1, RowCount: 1}
	}
	if _, err := protocol.PublishDelta(ctx, g.Root, pw, 8, ""); !protocol.IsReadSetChanged(err) {
		t.Fatalf("fenced owner could publish: %v", err)
	}
	if a := ids(t, g, "a"); len(a) != 0 {
		t.Fatalf("a = %v", a)
	}
	if err := writeAB(ctx, g, 3); err != nil {
		t.Fatal(err)
	}
}

func TestFailedSidecarDeleteIsNotAUserError(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	f := objstore.NewFaulty(mem)
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskOf(objstore.OpDelete), N: 1, Mode: objstore.FailOnce})
	g := open(t, f, false, recovery.Options{})
	defer g.Close()
	if err := writeAB(ctx, g, 1); err != nil {
		t.Fatalf("a committed write reported %v", err)
	}
	// the sidecar delete runs after the acknowledgement; Pending waits
	// for it
	if _, err := g.Pending(ctx); err != nil {
		t.Fatal(err)
	}
	if g.Recovery.Stats().FinalizeFailures != 1 {
		t.Fatalf("stats %+v", g.Recovery.Stats())
	}
	if objs, _ := mem.List(ctx, "__recovery/"); len(objs) != 1 {
		t.Fatalf("expected the leftover sidecar, got %v", objs)
	}
	if err := writeAB(ctx, g, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Pending(ctx); err != nil {
		t.Fatal(err)
	}
	if objs, _ := mem.List(ctx, "__recovery/"); len(objs) != 0 {
		t.Fatalf("sidecar not removed by the next barrier: %v", objs)
	}
	if g.Recovery.Stats().Decisions[recovery.Converged] != 1 {
		t.Fatalf("stats %+v", g.Recovery.Stats())
	}
	if a := ids(t, g, "a"); !slices.Equal(a, []int64{1, 2}) {
		t.Fatalf("a = %v", a)
	}
}

func TestUncoveredDriftIsRefused(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	g := open(t, mem, false, recovery.Options{})
	defer g.Close()
	sn, _ := g.Head(ctx, "")
	ds, _, err := g.Table(ctx, sn, "a")
	if err != nil {
		t.Fatal(err)
	}
	// a commit that bypasses the protocol
	rdr, _ := rows(99)(context.Background())
	st, err := ds.StageAppend(ctx, rdr, lance.StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(ctx, lance.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error { return s.Insert("a", rows(1)) })
	if !protocol.IsUncoveredDrift(err) {
		t.Fatalf("want uncovered drift, got %v", err)
	}
	if _, err := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error { return s.Insert("b", rows(1)) }); err != nil {
		t.Fatalf("a write to another table must proceed: %v", err)
	}
}

// An expired owner that armed but had not committed yet: recovery's
// fence occupies each table's next slot, so the owner's pending exact
// commit can never land, and a later publish of its delta is refused.
func TestFenceStopsAnExpiredOwnersPendingCommit(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	// crash at the first table HEAD move: armed, nothing landed
	kc := &keyCrash{Store: mem, pred: func(op, key string) bool {
		return op == "putifabsent" && strings.HasPrefix(key, "tables/") && strings.Contains(key, "/_versions/")
	}}
	g := open(t, kc, false, recovery.Options{})
	_ = writeAB(ctx, g, 1)
	g.Close()
	objs, _ := mem.List(ctx, "__recovery/")
	if len(objs) != 1 {
		t.Fatalf("sidecars %v", objs)
	}
	sc := rewriteOwner(t, mem, objs[0].Key, func(o *recovery.Owner) {
		o.Host, o.BootID, o.LeaseExpiry = "another-machine", "b", time.Now().Add(-time.Second)
	})
	// a transaction staged against the pin, as the old owner holds one
	// (its own staged file carries the planned UUID; any exact commit on
	// the pin is equally blocked)
	g = open(t, mem, false, recovery.Options{})
	defer g.Close()
	sn, _ := g.Head(ctx, "")
	ds, _, err := g.Table(ctx, sn, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Write.Effects) != 2 || sc.Write.Effects[0].ExpectedVersion != ds.Version() && sc.Write.Effects[1].ExpectedVersion != ds.Version() {
		t.Fatalf("sidecar effects %+v", sc.Write.Effects)
	}
	rdr, _ := rows(1)(context.Background())
	pending, err := ds.StageAppend(ctx, rdr, lance.StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reps, err := g.Recovery.Recover(ctx)
	if err != nil || !reps[0].Fenced {
		t.Fatalf("recover: %+v %v", reps, err)
	}
	if _, err := pending.Commit(ctx, lance.CommitOptions{Mode: lance.CommitExact}); !lance.IsConflict(err) {
		t.Fatalf("the fenced owner's commit landed: %v", err)
	}
	if a := ids(t, g, "a"); len(a) != 0 {
		t.Fatalf("a = %v", a)
	}
	if err := writeAB(ctx, g, 2); err != nil {
		t.Fatal(err)
	}
	if a := ids(t, g, "a"); !slices.Equal(a, []int64{2}) {
		t.Fatalf("a = %v", a)
	}
}

// An intent recovery must refuse (its effect is buried under foreign
// movement) blocks the writes it overlaps — its branch — with 55000,
// while writes on other branches proceed.
func TestRefusedIntentBlocksOnlyItsBranch(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	g := open(t, mem, false, recovery.Options{})
	if _, err := g.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	g.Close()
	kc := &keyCrash{Store: mem, pred: func(op, key string) bool { return op == "put" && strings.HasPrefix(key, "__recovery/") }}
	g = open(t, kc, false, recovery.Options{})
	_, err := g.Write(ctx, adapters.WriteOptions{Branch: "dev"}, func(ctx context.Context, s *adapters.Stage) error { return s.Insert("a", rows(1)) })
	g.Close()
	if !protocol.IsRecoveryRequired(err) {
		t.Fatalf("want a crash, got %v", err)
	}
	// someone commits on the fork outside the protocol
	g = open(t, mem, false, recovery.Options{})
	defer g.Close()
	sn, _ := g.Head(ctx, "")
	e, _ := sn.State.TableByName("a")
	fork, err := lance.Open(ctx, mem, e.Location, g.Root.DatasetOptions(e.Location, "dev", 0))
	if err != nil {
		t.Fatal(err)
	}
	rdr, _ := rows(9)(context.Background())
	st, err := fork.StageAppend(ctx, rdr, lance.StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(ctx, lance.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = g.Write(ctx, adapters.WriteOptions{Branch: "dev"}, func(ctx context.Context, s *adapters.Stage) error { return s.Insert("b", rows(1)) })
	if !protocol.IsRecoveryRequired(err) || protocol.SQLState(err) != "55000" {
		t.Fatalf("dev write: want 55000, got %v", err)
	}
	if err := writeAB(ctx, g, 5); err != nil {
		t.Fatalf("main write blocked by a dev intent: %v", err)
	}
	audit, _ := g.Audit(ctx)
	if len(audit) == 0 || audit[len(audit)-1].Decision != recovery.Refused {
		t.Fatalf("refusal not audited: %+v", audit)
	}
}
