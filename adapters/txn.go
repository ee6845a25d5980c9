package adapters

import (
	"context"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
)

// Txn is an explicit transaction (BEGIN … COMMIT): it pins one snapshot
// of a branch, collects changes and probes, and commits them as one
// strict graph write — any change to what it read or wrote since the
// pin fails COMMIT with 40001, because the client has already been
// answered for each statement.
type Txn struct {
	g      *Graph
	base   *graph.Snapshot
	opts   WriteOptions
	staged []func(*Stage) error
	done   bool
}

// Begin pins the head of branch ("" = main).
func (g *Graph) Begin(ctx context.Context, branch string) (*Txn, error) {
	sn, err := g.Head(ctx, branch)
	if err != nil {
		return nil, err
	}
	return &Txn{g: g, base: sn, opts: WriteOptions{Branch: sn.Branch, Strict: true, Base: sn}}, nil
}

// Snapshot is the pinned snapshot every read of the transaction uses.
func (t *Txn) Snapshot() *graph.Snapshot { return t.base }

// Insert stages rows (the source is read at COMMIT).
func (t *Txn) Insert(table string, src Source) {
	t.staged = append(t.staged, func(s *Stage) error { return s.Insert(table, src) })
}

// Delete stages row deletions by address in the pinned snapshot.
func (t *Txn) Delete(table string, addrs []uint64) {
	a := append([]uint64(nil), addrs...)
	t.staged = append(t.staged, func(s *Stage) error { return s.Delete(table, a) })
}

// Probe records a table the transaction read (its read set).
func (t *Txn) Probe(table string) {
	t.staged = append(t.staged, func(s *Stage) error { return s.Probe(table) })
}

// CreateTable stages a new table.
func (t *Txn) CreateTable(spec TableSpec) {
	t.staged = append(t.staged, func(s *Stage) error { return s.CreateTable(spec) })
}

// DropTable stages a tombstone.
func (t *Txn) DropTable(name string) {
	t.staged = append(t.staged, func(s *Stage) error { return s.DropTable(name) })
}

// Redefine stages a catalog-only change (see Stage.Redefine).
func (t *Txn) Redefine(name, newName string, def graph.TableDef) {
	t.staged = append(t.staged, func(s *Stage) error { return s.Redefine(name, newName, def) })
}

// SetKind stages a change of a table's graph role (see Stage.SetKind).
func (t *Txn) SetKind(name string, kind graph.TableKind) {
	t.staged = append(t.staged, func(s *Stage) error { return s.SetKind(name, kind) })
}

// ReplaceTable stages a rewrite into a new incarnation (see
// Stage.ReplaceTable); rows is read at COMMIT.
func (t *Txn) ReplaceTable(name string, def graph.TableDef, rows Source) {
	t.staged = append(t.staged, func(s *Stage) error { return s.ReplaceTable(name, def, rows) })
}

// Truncate stages TRUNCATE (see Stage.Truncate).
func (t *Txn) Truncate(name string) {
	t.staged = append(t.staged, func(s *Stage) error { return s.Truncate(name) })
}

// Commit publishes everything as one graph commit (or nothing).
func (t *Txn) Commit(ctx context.Context, message string) (*protocol.Receipt, error) {
	if t.done {
		return nil, protocol.Errorf(protocol.KindInvalid, nil, "transaction already finished")
	}
	t.done = true
	o := t.opts
	o.Message = message
	return t.g.Write(ctx, o, func(ctx context.Context, s *Stage) error {
		for _, f := range t.staged {
			if err := f(s); err != nil {
				return err
			}
		}
		return nil
	})
}

// Rollback discards the transaction (nothing was written).
func (t *Txn) Rollback() { t.done, t.staged = true, nil }
