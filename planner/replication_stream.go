package planner

import (
	"context"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/replication"
	"github.com/pggraph/pggraph/wire"
)

// replStream is a slot's pgoutput stream: the branch's commits after
// the slot's position, each one transaction (Begin, a Relation message
// before a table's first change and after its columns change, Insert/
// Update/Delete per changed row of a published table, Commit), built
// from the committed change feed (graph_changes.go: only the fragments
// a commit changed are read). Positions are replication.CommitLSN's:
// commit v's messages at v<<32 + i, its end at (v+1)<<32 - 1. A commit
// with no published change sends nothing but moves the stream's end.
type replStream struct {
	s       *session
	slot    string
	branch  string
	pubs    []string
	release func()
	start   replication.LSN // commits ending at or before it are not sent
	walEnd  replication.LSN // the end of the last commit handled
	last    *graph.Snapshot // the last commit handled (nil: none yet)
	pending []*graph.Snapshot
	rels    map[uint32]string // relation → signature of the Relation message sent
}

// commitEnd is the end LSN of the commit at manifest version v.
func commitEnd(v uint64) replication.LSN { return replication.CommitLSN(v+1) - 1 }

// Next implements wire.ReplicationStream: one commit's messages.
func (r *replStream) Next(ctx context.Context) ([]wire.WALMessage, uint64, error) {
	for {
		if len(r.pending) < 2 {
			if err := r.refill(ctx); err != nil {
				return nil, uint64(r.walEnd), err
			}
			if len(r.pending) < 2 {
				return nil, uint64(r.walEnd), nil
			}
		}
		prev, cur := r.pending[0], r.pending[1]
		r.pending = r.pending[1:]
		end := commitEnd(cur.Version)
		r.last = cur
		if end <= r.start {
			continue // confirmed before
		}
		msgs, err := r.commitMessages(ctx, prev, cur)
		if err != nil {
			return nil, uint64(r.walEnd), err
		}
		r.walEnd = end
		if len(msgs) == 0 {
			continue
		}
		return msgs, uint64(r.walEnd), nil
	}
}

// refill lists the commits after the last one handled (after the
// slot's start the first time), with the commit before them.
func (r *replStream) refill(ctx context.Context) error {
	head, err := r.s.root.Head(ctx, r.branch)
	if err != nil {
		return storageFailed(err, "could not read the head of branch %q", r.branch)
	}
	if r.last != nil && head.Version == r.last.Version {
		return nil
	}
	floor := r.start.Version()
	if r.last != nil {
		floor = r.last.Version + 1
	}
	if head.Version < floor {
		return nil
	}
	sns, _, err := graphsql.CommitsFrom(ctx, r.s.root, r.branch, head, floor)
	if err != nil {
		return storageFailed(err, "could not read the history of branch %q", r.branch)
	}
	r.pending = sns
	return nil
}

// commitMessages encodes one commit's changes of published tables.
func (r *replStream) commitMessages(ctx context.Context, prev, cur *graph.Snapshot) ([]wire.WALMessage, error) {
	pubs, err := r.s.publications(ctx, r.pubs)
	if err != nil {
		return nil, err
	}
	pairs, err := r.s.changedTables(ctx, nil, prev, cur, nil)
	if err != nil {
		return nil, err
	}
	base := replication.CommitLSN(cur.Version)
	var msgs []wire.WALMessage
	pos := base
	add := func(start replication.LSN, data []byte) {
		msgs = append(msgs, wire.WALMessage{Start: uint64(start), Data: data})
	}
	for _, p := range pairs {
		// a dropped table is not streamed (no DDL is), nor one no
		// publication names
		if p.to == nil || !published(pubs, p.name, p.from, p.to) {
			continue
		}
		d, err := r.s.diffTable(ctx, p.from, p.to, true)
		if err != nil {
			return nil, err
		}
		if len(d.rows) == 0 {
			continue
		}
		rel, idx := relationOf(d)
		if sig := relationSignature(rel); r.rels[rel.OID] != sig {
			add(0, replication.RelationMessage(rel))
			r.rels[rel.OID] = sig
		}
		keyed := rel.ReplicaIdentity == 'd'
		for _, row := range d.rows {
			newT := tupleOf(d, rel, idx, row.to, false)
			oldT := tupleOf(d, rel, idx, row.from, keyed)
			pos++
			switch row.kind {
			case diffAdded:
				add(pos, replication.InsertMessage(rel.OID, newT))
			case diffDeleted:
				kind := byte('O')
				if keyed {
					kind = 'K'
				}
				add(pos, replication.DeleteMessage(rel.OID, kind, oldT))
			default:
				// rows pair by key (a table without one by all its
				// columns), so an update never changes the key: a
				// changed key is a Delete and an Insert
				var kind byte
				if !keyed {
					kind = 'O'
				}
				add(pos, replication.UpdateMessage(rel.OID, kind, oldT, newT))
			}
		}
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	end := commitEnd(cur.Version)
	out := make([]wire.WALMessage, 0, len(msgs)+2)
	out = append(out, wire.WALMessage{Start: uint64(base), Data: replication.BeginMessage(end, cur.Commit.Time, uint32(cur.Version))})
	out = append(out, msgs...)
	return append(out, wire.WALMessage{Start: uint64(end), Data: replication.CommitMessage(end, end, cur.Commit.Time)}), nil
}

// published reports whether some publication includes the table (by
// its name before or after the commit).
func published(pubs []replication.Publication, name string, from, to *graph.TableEntry) bool {
	for _, p := range pubs {
		if p.Includes(name) || from != nil && p.Includes(from.Name) || to != nil && p.Includes(to.Name) {
			return true
		}
	}
	return false
}

// relationOf is the Relation of the table after the commit, and for
// each of its columns the index in the diff's columns.
func relationOf(d *tableDiff) (replication.Relation, []int) {
	def := d.to.def
	rel := replication.Relation{OID: def.OID, Namespace: def.Schema, Name: def.Name, ReplicaIdentity: 'd'}
	if len(def.PrimaryKey) == 0 {
		rel.ReplicaIdentity = 'f'
	}
	key := map[int]bool{}
	for _, k := range def.PrimaryKey {
		key[k] = true
	}
	idx := make([]int, len(def.Columns))
	for i, c := range def.Columns {
		rel.Columns = append(rel.Columns, replication.RelColumn{Name: c.Name, TypeOID: c.Type.OID, TypeMod: c.Type.Mod, Key: key[i]})
		idx[i] = -1
		for j, n := range d.cols {
			if n == c.Name {
				idx[i] = j
				break
			}
		}
	}
	return rel, idx
}

func relationSignature(rel replication.Relation) string {
	var b strings.Builder
	b.WriteString(rel.Name)
	for _, c := range rel.Columns {
		b.WriteByte(0)
		b.WriteString(c.Name)
		b.WriteString(exec.Type{OID: c.TypeOID, Mod: c.TypeMod}.String())
		if c.Key {
			b.WriteByte('k')
		}
	}
	return b.String()
}

// tupleOf is one side's row as text values in the relation's column
// order; keyOnly leaves non-key columns NULL (an old key tuple).
func tupleOf(d *tableDiff, rel replication.Relation, idx []int, vals []any, keyOnly bool) replication.Tuple {
	if vals == nil {
		return nil
	}
	t := make(replication.Tuple, len(rel.Columns))
	for i, c := range rel.Columns {
		if idx[i] < 0 || vals[idx[i]] == nil || keyOnly && !c.Key {
			t[i] = replication.Value{Null: true}
			continue
		}
		v := exec.NewVec(exec.Type{OID: c.TypeOID, Mod: c.TypeMod}, 1)
		v.SetDatum(0, vals[idx[i]])
		s, _ := exec.FormatText(v, 0, nil)
		t[i] = replication.Value{Text: s}
	}
	return t
}

// Confirm implements wire.ReplicationStream: the slot's confirmed
// position moves to flush (never past what was sent).
func (r *replStream) Confirm(ctx context.Context, flush uint64) error {
	lsn := min(replication.LSN(flush), r.walEnd)
	if _, err := r.s.replicationStore().Confirm(ctx, r.slot, lsn); err != nil {
		return storageFailed(err, "could not store the position of replication slot %q", r.slot)
	}
	return nil
}

// Close implements wire.ReplicationStream.
func (r *replStream) Close() error {
	r.release()
	return nil
}
