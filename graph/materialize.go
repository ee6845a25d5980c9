package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/pggraph/pggraph/lance"
)

// ErrMaterializeConflict: the Lance version a published pin names holds
// a transaction other than the one the pin records. The commit path
// never lets that happen (docs/architecture.md, "Commit path v2", slot
// exclusivity); it is reported as drift, never adopted.
var ErrMaterializeConflict = errors.New("graph: a pinned table version holds another transaction")

// Materialize makes the Lance version a table entry pins exist, and
// returns it. A pin published by commit path v2 (e.Txn set) names a
// version whose transaction was staged against Version-1 before the
// graph commit; the version itself is committed afterwards, by whoever
// opens it first: the committer right after its manifest CAS, or any
// reader or writer in any process. It is idempotent: the version is one
// PutIfAbsent of the manifest built from Version-1 and the recorded
// transaction; a concurrent materializer's identical commit (same UUID)
// is adopted. Version-1 exists because every writer materializes its
// base pins before staging on them (prefix obligation).
//
// Concurrent materializations of one pin in this process share one run
// (the committer's after its acknowledgement and the next writer's
// before its CAS race for it): the put-if-absent would make them agree
// anyway, this only saves the loser's writes.
func (r *Root) Materialize(ctx context.Context, e TableEntry) (*lance.Dataset, error) {
	if ds := r.committed(e.Location, e.Branch, e.Version); ds != nil {
		return ds, nil
	}
	if e.Txn == "" {
		return r.OpenDataset(ctx, e.Location, e.Branch, e.Version)
	}
	k := materializeKey{location: e.Location, branch: e.Branch, version: e.Version, txn: e.Txn}
	c := &r.tables
	c.mu.Lock()
	if call := c.inflight[k]; call != nil {
		c.mu.Unlock()
		select {
		case <-call.done:
			return call.ds, call.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if c.inflight == nil {
		c.inflight = map[materializeKey]*materializeCall{}
	}
	call := &materializeCall{done: make(chan struct{})}
	c.inflight[k] = call
	c.mu.Unlock()
	// the shared run must not end with one caller's cancellation
	call.ds, call.err = r.materialize(context.WithoutCancel(ctx), e)
	c.mu.Lock()
	delete(c.inflight, k)
	c.mu.Unlock()
	close(call.done)
	return call.ds, call.err
}

// materializeKey names one pin's materialization.
type materializeKey struct {
	location, branch string
	version          uint64
	txn              string
}

// materializeCall is one materialization in flight; done is closed when
// ds and err are set.
type materializeCall struct {
	done chan struct{}
	ds   *lance.Dataset
	err  error
}

func (r *Root) materialize(ctx context.Context, e TableEntry) (*lance.Dataset, error) {
	ds, err := r.OpenDataset(ctx, e.Location, e.Branch, e.Version)
	if err == nil || !lance.IsNotFound(err) {
		if err == nil {
			r.RememberTable(e.Location, ds)
		}
		return ds, err
	}
	opts := r.DatasetOptions(e.Location, e.Branch, e.Version-1)
	var base *lance.Dataset
	if e.Version == 1 {
		base = lance.New(r.store, e.Location, opts)
	} else if base, err = r.OpenDataset(ctx, e.Location, e.Branch, e.Version-1); err != nil {
		return nil, fmt.Errorf("materializing table %s version %d: its base version: %w", e.Name, e.Version, err)
	}
	st, err := base.LoadStaged(ctx, e.Txn)
	if err != nil {
		return nil, fmt.Errorf("materializing table %s version %d: %w", e.Name, e.Version, err)
	}
	nd, err := st.Commit(ctx, lance.CommitOptions{Mode: lance.CommitExact})
	if err != nil {
		var ce *lance.ConflictError
		if errors.As(err, &ce) && ce.Winner != nil {
			return nil, fmt.Errorf("%w: table %s version %d holds transaction %s, the pin records %s", ErrMaterializeConflict, e.Name, e.Version, ce.Winner.UUID, e.Txn)
		}
		return nil, fmt.Errorf("materializing table %s version %d: %w", e.Name, e.Version, err)
	}
	if nd.Version() != e.Version {
		return nil, fmt.Errorf("%w: table %s materialized at %d, pinned %d", ErrMaterializeConflict, e.Name, nd.Version(), e.Version)
	}
	r.RememberTable(e.Location, nd)
	return nd, nil
}

// MaterializeState materializes every pinned version of st that does not
// exist yet (serve start, cleanup, a clean shutdown): afterwards every
// live table's Lance HEAD is at least its pin.
func (r *Root) MaterializeState(ctx context.Context, st State) error {
	for _, e := range st.Tables {
		if e.Txn == "" {
			continue
		}
		if _, err := r.Materialize(ctx, e); err != nil {
			return err
		}
	}
	return nil
}
