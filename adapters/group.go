package adapters

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
)

// Group commit. Autocommit writes that ask for it (WriteOptions.Group)
// on one branch of one process share one protocol run and one __manifest
// put-if-absent: a per-branch runner takes every write queued while the
// previous group was committing (no timer: a lone writer commits at
// once), and commits them as one graph write whose stage function runs
// each member's own stage function, in arrival order, on a stage of its
// own against the group's base, then absorbs it into the group's stage:
//
//   - a member whose stage function fails gets its own error and stages
//     nothing (the others are unaffected);
//   - a member that inserts a primary key an earlier member of the group
//     inserts, or deletes a row (by address in the group's base) an
//     earlier member deletes, is deferred to the next group, whose base
//     includes the earlier member, so its stage function recomputes
//     against it and reports the duplicate, or finds the row gone,
//     itself (recompute, never patch);
//   - a member that stages anything but in-memory inserts and deletes of
//     rows by address (catalog changes, COPY streams, compaction) runs
//     alone after the group.
//
// Why members validated against the base alone are valid against the
// base plus the members before them: inserting rows never removes a row
// another member's foreign-key or uniqueness probe found, and the one
// thing an earlier insert can break — a unique key — is checked across
// the group here for primary keys; two members never delete one row (an
// UPDATE is a delete and an insert of the row's key, so a row is changed
// by one member of a group). The caller asks for grouping only where
// that is the whole story: no other unique or cardinality constraint on
// the written tables, and a statement that deletes rows only from tables
// no foreign key or edge references and that bound no out-degree, so a
// row one member removes is one no other member's row depends on
// (planner/group.go). A member's reads see the base without the other
// members' rows, as concurrent statements do under READ COMMITTED.
//
// Every admitted member is acknowledged after the one CAS. The one
// manifest version records each admitted member as a member transaction
// of its commit (graph.Commit.Members: the member's own commit id,
// actor, application, client and message, in the order applied; the
// commit's own id and attribution are the first member's), so
// graph.commits lists one row per member and each member's receipt names
// its own commit id, which graph.as_of and SnapshotByCommit resolve to
// the group's version. The group's read set is the union of the
// members' and is arbitrated as one; a change re-runs every member's
// stage function from the new base. A member's cancellation only
// removes it from attempts not yet staged; the group runs on.

// groupQueue holds the grouped writes waiting per branch.
type groupQueue struct {
	mu      sync.Mutex
	queue   map[string][]*groupMember
	running map[string]bool
	// arrived signals the runner gathering a group (group_gather.go);
	// last is each branch's previous group; gatherMax bounds the
	// gather wait (Options.GroupGatherMax)
	arrived   map[string]chan struct{}
	last      map[string]lastGroup
	gatherMax time.Duration
	// groups counts graph commits that carried more than one member,
	// members the members they carried
	groups, members atomic.Int64
}

type memberOutcome int

const (
	memberFailed memberOutcome = iota
	memberAdmitted
	memberDeferred
	memberSolo
)

// groupMember is one grouped write waiting for its outcome.
type groupMember struct {
	ctx     context.Context
	o       WriteOptions
	fn      StageFunc
	done    chan struct{}
	id      string // the member's own commit id (graph.CommitMember)
	rc      *protocol.Receipt
	err     error
	outcome memberOutcome // of the group's latest attempt
	ownErr  error
}

// errEmptyGroup ends a group attempt none of whose members staged.
var errEmptyGroup = errors.New("adapters: no member of the group commit was admitted")

// GroupStats reports the graph commits that carried more than one
// grouped write, and how many writes they carried.
func (g *Graph) GroupStats() (commits, members int64) {
	return g.groups.groups.Load(), g.groups.members.Load()
}

// init makes the maps (q.mu held).
func (q *groupQueue) init() {
	if q.queue == nil {
		q.queue, q.running = map[string][]*groupMember{}, map[string]bool{}
		q.arrived, q.last = map[string]chan struct{}{}, map[string]lastGroup{}
	}
}

// writeGrouped queues the write for its branch's runner and waits for
// its outcome. It waits even when ctx ends: the write may already be
// part of a commit in flight, and answering before knowing would let a
// client retry a write that landed.
func (g *Graph) writeGrouped(ctx context.Context, o WriteOptions, fn StageFunc) (*protocol.Receipt, error) {
	m := &groupMember{ctx: ctx, o: o, fn: fn, done: make(chan struct{})}
	key := o.Branch
	if key == "" {
		key = graph.MainBranch
	}
	q := &g.groups
	q.mu.Lock()
	q.init()
	if lg, ok := q.last[key]; ok && !lg.backSeen {
		// the first write since the previous group ended: how soon
		// writers come back (gatherWait)
		lg.back, lg.backSeen = time.Since(lg.ended), true
		q.last[key] = lg
	}
	q.queue[key] = append(q.queue[key], m)
	select {
	case q.arrivals(key) <- struct{}{}:
	default: // a wake-up is pending already
	}
	start := !q.running[key]
	q.running[key] = true
	q.mu.Unlock()
	if start {
		go g.runGroups(key)
	}
	<-m.done
	return m.rc, m.err
}

// runGroups commits the branch's queued writes, group after group,
// until none is waiting.
func (g *Graph) runGroups(key string) {
	q := &g.groups
	for {
		q.mu.Lock()
		if last := q.last[key]; len(q.queue[key]) > 0 {
			if d := gatherWait(len(q.queue[key]), last, q.gatherMax, time.Since(last.ended)); d > 0 {
				q.mu.Unlock()
				g.gather(key, last.writers, d)
				q.mu.Lock()
			}
		}
		batch := q.queue[key]
		delete(q.queue, key)
		if len(batch) == 0 {
			q.running[key] = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		t0 := time.Now()
		again := g.commitGroup(batch)
		q.mu.Lock()
		// the writers active: the group's, which come back with their
		// next statements, and those that queued meanwhile
		end := time.Now()
		q.last[key] = lastGroup{writers: len(batch) + len(q.queue[key]), took: end.Sub(t0), ended: end, back: q.last[key].back}
		q.mu.Unlock()
		if len(again) > 0 {
			// deferred members go first: nothing before them can
			// defer them again
			q.mu.Lock()
			q.queue[key] = append(again, q.queue[key]...)
			q.mu.Unlock()
		}
	}
}

// commitGroup commits one batch and answers its members; it returns the
// members deferred to the next group.
func (g *Graph) commitGroup(batch []*groupMember) (again []*groupMember) {
	if len(batch) == 1 {
		m := batch[0]
		m.rc, m.err = g.write(m.ctx, m.o, m.fn)
		close(m.done)
		return nil
	}
	for _, m := range batch {
		if m.id == "" { // kept when deferred: one id per member
			m.id = graph.NewID()
		}
	}
	first := batch[0]
	o := first.o
	admitted := 0
	// the group must not end with its first member's cancellation
	rc, err := g.write(context.WithoutCancel(first.ctx), o, func(ctx context.Context, s *Stage) error {
		claims := map[string]bool{}
		admitted = 0
		s.members = s.members[:0]
		for _, m := range batch {
			m.outcome, m.ownErr = memberFailed, nil
			if err := m.ctx.Err(); err != nil {
				m.ownErr = err
				continue
			}
			ms := newStage(s.Base())
			if err := m.fn(m.ctx, ms); err != nil {
				m.ownErr = err
				continue
			}
			keys, ok := ms.claims()
			if !ok {
				m.outcome = memberSolo
				continue
			}
			if claimed(claims, keys) {
				m.outcome = memberDeferred
				continue
			}
			for _, k := range keys {
				claims[k] = true
			}
			s.absorb(ms)
			m.outcome = memberAdmitted
			admitted++
			s.members = append(s.members, g.member(m))
		}
		if admitted == 0 {
			return errEmptyGroup
		}
		return nil
	})
	if err == nil && admitted > 1 {
		g.groups.groups.Add(1)
		g.groups.members.Add(int64(admitted))
	}
	var solo []*groupMember
	for _, m := range batch {
		switch m.outcome {
		case memberAdmitted:
			m.rc, m.err = rc, err
			if rc != nil {
				own := *rc
				own.CommitID = m.id
				m.rc = &own
			}
			close(m.done)
		case memberFailed:
			m.err = m.ownErr
			close(m.done)
		case memberDeferred:
			again = append(again, m)
		case memberSolo:
			solo = append(solo, m)
		}
	}
	for _, m := range solo {
		m.rc, m.err = g.write(m.ctx, m.o, m.fn)
		close(m.done)
	}
	return again
}

// member is m's entry in the group commit's record, attributed as its
// own write would be.
func (g *Graph) member(m *groupMember) graph.CommitMember {
	a := g.attribute(protocol.CommitOptions{Message: m.o.Message}, m.o.Actor, m.o.Application, m.o.Client)
	return graph.CommitMember{ID: m.id, Actor: a.Actor, Application: a.Application, Client: a.Client, Process: a.Process, Message: a.Message}
}

func claimed(claims map[string]bool, keys []string) bool {
	for _, k := range keys {
		if claims[k] {
			return true
		}
	}
	return false
}

// claims returns what a member stage takes from the group when it
// stages nothing but in-memory inserts into, and deletes by address
// from, existing tables: the primary keys it inserts and the rows it
// deletes (table-qualified encodings, apart from each other); ok is
// false for any other stage.
func (s *Stage) claims() (keys []string, ok bool) {
	if s.changesCatalog() {
		return nil, false
	}
	for _, k := range s.order {
		o := s.ops[k]
		if o.compact != nil || o.loads > 0 || o.knownInserts != len(o.inserts) || len(o.batches) != len(o.inserts) {
			return nil, false
		}
		for _, a := range o.deletes {
			keys = append(keys, k.String()+"#"+strconv.FormatUint(a, 10))
		}
		pk := s.baseEntry(k).Def.PrimaryKey
		if len(pk) == 0 {
			continue
		}
		for _, b := range o.batches {
			cols := make([]int, len(pk))
			for i, name := range pk {
				idx := b.schema.FieldIndices(name)
				if len(idx) != 1 {
					return nil, false
				}
				cols[i] = idx[0]
			}
			for _, r := range b.recs {
				for row := 0; row < int(r.NumRows()); row++ {
					keys = append(keys, encodeKey(k, r, cols, row))
				}
			}
		}
	}
	return keys, true
}

// encodeKey is an unambiguous encoding of one row's key columns: the
// table, then each value length-prefixed (a null, which a primary key
// cannot hold, encodes apart from every value).
func encodeKey(k graph.TableKey, r arrow.RecordBatch, cols []int, row int) string {
	var b strings.Builder
	b.WriteString(k.String())
	for _, c := range cols {
		col := r.Column(c)
		if col.IsNull(row) {
			b.WriteString("|n")
			continue
		}
		v := col.ValueStr(row)
		b.WriteString("|")
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteString(":")
		b.WriteString(v)
	}
	return b.String()
}

// absorb adds a member stage's inserts, deletes and probes (same base)
// to s.
func (s *Stage) absorb(ms *Stage) {
	for k := range ms.probes {
		s.probes[k] = true
	}
	for _, k := range ms.order {
		mo := ms.ops[k]
		o := s.opsFor(k)
		o.inserts = append(o.inserts, mo.inserts...)
		o.knownRows += mo.knownRows
		o.knownInserts += mo.knownInserts
		o.batches = append(o.batches, mo.batches...)
		o.deletes = append(o.deletes, mo.deletes...)
	}
}
