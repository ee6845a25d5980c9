package adapters

import (
	"context"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// Options open a Graph.
type Options struct {
	// Create initializes an empty location as a new root.
	Create bool
	// Actor names this process in commits.
	Actor string
	// Location is the root's absolute location (see graph.Options).
	Location string
	Recovery recovery.Options
	// AutoOptimizeFragments, when > 0, makes a write after which a table
	// it wrote has at least this many fragments start an Optimize of
	// those tables in the background, after the write was acknowledged
	// (derived work: never on the committing caller's path). 0 = off.
	AutoOptimizeFragments int
	// LegacyCommitPath turns commit path v2 off: staged effects are
	// committed to their tables before the manifest CAS, under a recovery
	// sidecar, as every build before v2 did (the A/B benchmark's
	// baseline, and tests of recovering such intents). Not for production:
	// mixing it with v2 writers of the same tables in other processes
	// breaks slot exclusivity (docs/architecture.md, "Commit path v2").
	LegacyCommitPath bool
	// SyncFinalize makes every write delete its recovery sidecar before
	// returning. By default the delete (stage H, after the manifest CAS)
	// runs after the write has returned: it is not part of the commit,
	// a crash before it is recovery's "CAS succeeded, sidecar remains"
	// case, and Pending and Close wait for deletes in flight.
	SyncFinalize bool
	// GroupGatherMax bounds how long a branch's group-commit runner waits
	// for the writers of its previous group to come back before it
	// commits the fewer writes queued (adapters/group_gather.go; the wait
	// ends at most one commit duration of the previous group after its
	// end). 0 = 100 ms on a local root and off on S3; negative = never
	// wait.
	GroupGatherMax time.Duration
}

// Graph is the write path's entry point for the SQL layer: an open root
// with its recovery manager and coordinator.
type Graph struct {
	Root     *graph.Root
	Recovery *recovery.Manager
	coord    *protocol.Coordinator
	actor    string
	auto     autoOptimizer
	groups   groupQueue
	heads    committedHeads
	baseline bool // benchmarks: no handle cache, staging inside Prepare
	legacy   bool // Options.LegacyCommitPath
}

// Open opens (or with Create, initializes) the root in store. Recovery is
// not run here: every write runs the barrier first, and `pgproxy
// recover` runs it explicitly.
func Open(ctx context.Context, store objstore.Store, o Options) (*Graph, error) {
	var root *graph.Root
	var err error
	// Fenced lets a commit confirm its effects while the manifest files
	// are staged, holding the CAS until the confirmation is durable
	// (protocol/doc.go, "Commit latency").
	store = objstore.Fenced(store)
	if o.Create {
		root, _, err = graph.InitWith(ctx, store, o.Actor, graph.Options{Location: o.Location})
	} else {
		root, err = graph.OpenWith(ctx, store, graph.Options{Location: o.Location})
	}
	if err != nil {
		return nil, err
	}
	rec := recovery.New(root, o.Recovery)
	if o.Actor == "" {
		o.Actor = "pggraph"
	}
	coord := protocol.NewCoordinator(root, rec)
	coord.AsyncFinalize = !o.SyncFinalize
	coord.ParallelConfirm = true
	if o.GroupGatherMax == 0 {
		o.GroupGatherMax = defaultGroupGatherMax
		if b, ok := objstore.Backend(store); ok {
			if _, remote := b.(*objstore.S3); remote {
				o.GroupGatherMax = -1 // group_gather.go: measured slower there
			}
		}
	}
	return &Graph{Root: root, Recovery: rec, coord: coord, actor: o.Actor, heads: committedHeads{root: root}, legacy: o.LegacyCommitPath,
		auto:   autoOptimizer{threshold: o.AutoOptimizeFragments, running: map[string]bool{}},
		groups: groupQueue{gatherMax: o.GroupGatherMax}}, nil
}

// Stats returns the coordinator's counters (commits, re-prepares,
// contention waits, writes left to recovery).
func (g *Graph) Stats() protocol.Stats { return g.coord.Stats() }

// Close ends this handle's recovery owner instance.
// Close waits for background Optimize runs, then ends this handle's
// recovery owner instance.
func (g *Graph) Close() {
	g.auto.wg.Wait()
	g.coord.WaitFinalized()
	g.Recovery.Close()
}

// Quiesce finishes this handle's own work before a clean shutdown: it
// waits for background Optimize runs and sidecar deletes, then resolves
// every intent whose owner is gone — in particular this process's own
// writes that failed into recovery (55000) — and materializes every
// published pin not written yet, so `pgproxy verify` finds nothing
// pending after a clean shutdown and every table's Lance HEAD is its pin. Intents of other live
// processes are left to them. Call it once no new writes start.
func (g *Graph) Quiesce(ctx context.Context) error {
	g.auto.wg.Wait()
	g.coord.WaitFinalized()
	_, err := g.Recovery.Recover(ctx)
	// and every table's Lance HEAD at its pin (a materialization that
	// failed after its commit is retried here)
	if merr := MaterializeHeads(ctx, g.Root); err == nil {
		err = merr
	}
	return err
}

// Head returns the latest snapshot of a branch ("" = main).
func (g *Graph) Head(ctx context.Context, branch string) (*graph.Snapshot, error) {
	sn, err := g.Root.Head(ctx, branch)
	if graph.IsUnknownBranch(err) {
		return nil, protocol.Errorf(protocol.KindUnknownBranch, err, "branch %q does not exist", branch)
	}
	return sn, err
}

// WriteOptions tune one graph write.
type WriteOptions struct {
	Branch  string
	Message string
	// Actor is who writes (the SQL role; default: this process).
	// Application and Client are the session's application_name and
	// client address (graph.Commit).
	Actor               string
	Application, Client string
	// Strict: an explicit transaction's COMMIT — any read-set change is
	// 40001; Base should be the snapshot the transaction read.
	Strict bool
	Base   *graph.Snapshot
	// Group lets an autocommit write (not Strict, no Base) share one
	// graph commit with the branch's concurrent grouped writes (group
	// commit, group.go). Set it only where validity against the base
	// implies validity against the base plus other members' inserts:
	// in-memory inserts into tables whose only unique constraint is the
	// primary key (adapters checks those across the group). A grouped
	// write that stages anything else runs alone.
	Group bool
	// MaxReprepare bounds transparent re-prepares (default 5).
	MaxReprepare int
	// MaxRowsPerFile cuts inserted rows into data files (fragments) of at
	// most this many rows (0 = lance.DefaultMaxRowsPerFile); one file is
	// the unit of write memory, so any number of rows streams in bounded
	// memory.
	MaxRowsPerFile uint64
	// MaxBytesPerFile also cuts data files, at about this many bytes of
	// Arrow data (0 = lance.DefaultMaxBytesPerFile).
	MaxBytesPerFile int64
	// CommitID is the id the commit will carry (protocol.CommitOptions);
	// not with Group.
	CommitID string
	// HeadHint is the head of Branch the caller has just read (its
	// statement's snapshot): the first attempt may take it as its base
	// (protocol.CommitOptions.HeadHint). Not with Strict or Base.
	HeadHint *graph.Snapshot
}

// Write runs one graph-visible write: fn stages the changes (rows as
// Arrow, deletes as row addresses, probes, DDL) against the attempt's
// base; the coordinator publishes them as one graph commit.
func (g *Graph) Write(ctx context.Context, o WriteOptions, fn StageFunc) (*protocol.Receipt, error) {
	if o.Group && !o.Strict && o.Base == nil && o.CommitID == "" {
		return g.writeGrouped(ctx, o, fn)
	}
	return g.write(ctx, o, fn)
}

func (g *Graph) write(ctx context.Context, o WriteOptions, fn StageFunc) (*protocol.Receipt, error) {
	w := newMutationWriter(g.Root, fn)
	w.legacy = g.legacy
	if g.baseline {
		w.stageSync = true
	} else {
		w.heads = &g.heads
	}
	w.maxRowsPerFile, w.maxBytesPerFile = o.MaxRowsPerFile, o.MaxBytesPerFile
	rc, err := g.commit(ctx, w, g.attribute(protocol.CommitOptions{Branch: o.Branch, Message: o.Message,
		Strict: o.Strict, Base: o.Base, MaxReprepare: o.MaxReprepare, CommitID: o.CommitID, HeadHint: o.HeadHint}, o.Actor, o.Application, o.Client))
	if err == nil {
		g.maybeOptimize(rc, w)
	}
	return rc, err
}

// Table opens the pinned version of a live table in a snapshot, for
// reads (scans, probes, row addresses).
func (g *Graph) Table(ctx context.Context, sn *graph.Snapshot, name string) (*lance.Dataset, graph.TableEntry, error) {
	e, ok := sn.State.TableByName(name)
	if !ok {
		return nil, e, protocol.Errorf(protocol.KindInvalid, nil, "relation %q does not exist", name)
	}
	ds, err := g.Root.OpenTable(ctx, e)
	return ds, e, err
}

// Commits returns a branch's commits, oldest first (graph.commits).
func (g *Graph) Commits(ctx context.Context, branch string) ([]graph.Commit, error) {
	h, err := g.Root.History(ctx, branch)
	if err != nil {
		return nil, err
	}
	out := make([]graph.Commit, len(h))
	for i, sn := range h {
		out[i] = sn.Commit
	}
	return out, nil
}

// Audit returns every recovery decision, oldest first (graph.audit).
func (g *Graph) Audit(ctx context.Context) ([]recovery.AuditRecord, error) {
	return recovery.ReadAudit(ctx, g.Root)
}

// Pending returns the pending recovery intents, classified read-only
// (graph.recovery).
func (g *Graph) Pending(ctx context.Context) ([]recovery.Inspection, error) {
	g.coord.WaitFinalized() // a finished write's sidecar is not pending
	return g.Recovery.Inspect(ctx)
}

// attribute fills a commit's attribution: the given actor (the SQL role)
// with the session's application and client, and this process; without
// an actor the process itself is the actor.
func (g *Graph) attribute(o protocol.CommitOptions, actor, application, client string) protocol.CommitOptions {
	o.Actor, o.Application, o.Client = actor, application, client
	if actor == "" {
		o.Actor = g.actor
	} else {
		o.Process = g.actor
	}
	return o
}
