package planner

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/graph"
)

// SERIALIZABLE read sets (docs/architecture.md, "Isolation and
// row-level concurrency"). Each statement of a SERIALIZABLE transaction
// runs with a lancesrc.ReadLog in its context: every read of a table
// version is recorded at the granularity the source served it (keys
// looked up or probed, a key range, row addresses, a scan's filter
// hints). A table the statement marked read (markRead) is tied to the
// statement's log; at COMMIT a table read only through logged, bounded
// reads is arbitrated per row: the transaction fails only when a row
// inserted or deleted since its snapshot (an UPDATE is both) satisfies
// one of those reads. That is an exact test of whether any read would
// now return something else, so validating it at the commit point
// serializes the transaction there (backward validation). Everything
// else — a table marked read by a step that ran outside a statement's
// log, a log without records for it, an unfiltered scan, too many keys,
// a rewritten table — falls back to table granularity: any change of
// the table since the snapshot is a conflict.

// tableReads is what the read set knows about one table.
type tableReads struct {
	logs  []*lancesrc.ReadLog
	whole bool // read outside a logged statement
	ident lancesrc.ReadIdent
	// identOK: the snapshot's source of the table is a Lance source
	identOK bool
}

// noteRead ties a table marked read to the running statement's log.
func (s *pendingState) noteRead(name string) {
	if s.readLog == nil {
		s.readLog = map[string]*tableReads{}
	}
	tr := s.readLog[name]
	if tr == nil {
		tr = &tableReads{}
		if s.at != nil {
			if ti, ok := s.at.tables[name]; ok {
				if src, ok := ti.def.Source.(*lancesrc.Source); ok {
					tr.ident, tr.identOK = src.Ident(), true
				}
			}
		}
		s.readLog[name] = tr
	}
	if s.stmtLog == nil {
		tr.whole = true
		return
	}
	if !slices.Contains(tr.logs, s.stmtLog) {
		tr.logs = append(tr.logs, s.stmtLog)
	}
}

// cloneReadLog copies the per-table read records (the logs themselves
// are shared: a statement's log only grows).
func cloneReadLog(m map[string]*tableReads) map[string]*tableReads {
	if m == nil {
		return nil
	}
	out := make(map[string]*tableReads, len(m))
	for k, v := range m {
		c := *v
		c.logs = slices.Clone(v.logs)
		out[k] = &c
	}
	return out
}

// rowReads returns every logged read of a table, ok false when the
// table must be arbitrated whole.
func (s *pendingState) rowReads(name string) ([]lancesrc.Read, bool) {
	tr := s.readLog[name]
	if tr == nil || tr.whole || !tr.identOK || len(tr.logs) == 0 {
		return nil, false
	}
	var out []lancesrc.Read
	for _, l := range tr.logs {
		rs, ok := l.Reads(tr.ident)
		if !ok {
			return nil, false
		}
		out = append(out, rs...)
	}
	return out, true
}

// arbitrateReads fails a SERIALIZABLE transaction when something it
// read of table name changed between pin e0 and the head's ti.
func (s *session) arbitrateReads(ctx context.Context, pend *pendingState, name string, e0 graph.TableEntry, ti *tableInfo) error {
	changed := serializationFailure(fmt.Sprintf("table %q read by the transaction was changed by a concurrent transaction", name))
	tc, err := s.committedSince(ctx, e0, ti.entry)
	if err != nil {
		return err
	}
	if tc.onlyMoved() {
		return nil // compactions: no row changed
	}
	reads, ok := pend.rowReads(name)
	if !ok || tc.coarse {
		return changed
	}
	rowChanged := serializationFailure(fmt.Sprintf("a row of table %q read by the transaction was changed by a concurrent transaction", name))
	for _, r := range reads {
		if r.Kind != lancesrc.ReadAddrs {
			continue
		}
		for _, a := range r.Addrs {
			if tc.deleted(a) { // (followed through compactions)
				return rowChanged
			}
		}
	}
	// a key-only read (existence, count: Read.KeysOnly) changed only
	// if, over every version since the snapshot, the rows holding one of
	// its keys were not all replaced by rows holding the same key (an
	// UPDATE of other columns replaces a row by one with the same key)
	net := make([]map[string]int, len(reads))
	for _, vc := range tc.versions {
		if vc.remap != nil {
			continue // a compaction: no row changed
		}
		_, ins, err := vc.insertedRows(ctx, ti.def, ti.schema)
		if err != nil {
			return err
		}
		del, err := vc.deletedRows(ctx, ti.def, ti.schema)
		if err != nil {
			return err
		}
		for sign, rows := range map[int][]*exec.Vec{1: ins, -1: del} {
			if len(rows) == 0 || rows[0].N == 0 {
				continue
			}
			for i, r := range reads {
				if r.Kind == lancesrc.ReadKeys && r.KeysOnly {
					if net[i] == nil {
						net[i] = map[string]int{}
					}
					if !countKeys(r, ti.def, rows, sign, net[i]) {
						return rowChanged
					}
					continue
				}
				if readHits(r, ti.def, rows) {
					return rowChanged
				}
			}
		}
	}
	for _, m := range net {
		for _, n := range m {
			if n != 0 {
				return rowChanged
			}
		}
	}
	return nil
}

// countKeys adds sign to counts[key] for each of rows (every column, in
// td's order) holding one of key read r's keys; false when it cannot
// judge (the column is gone or changed kind).
func countKeys(r lancesrc.Read, td *exec.TableDef, rows []*exec.Vec, sign int, counts map[string]int) bool {
	i := slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == r.Column })
	if i < 0 || i >= len(rows) || rows[i].T.Kind() != r.Keys.T.Kind() {
		return false
	}
	v := rows[i]
	// the key index's equality: integers by value, the rest by exec's
	// canonical key encoding (as readHits)
	enc := func(x *exec.Vec, j int, kb []byte) []byte {
		if x.T.Kind() == exec.KInt {
			return strconv.AppendInt(kb, x.I[j], 10)
		}
		return exec.AppendKey(kb, x, j)
	}
	want := make(map[string]bool, r.Keys.N)
	var kb []byte
	for j := 0; j < r.Keys.N; j++ {
		if !r.Keys.IsNull(j) {
			kb = enc(r.Keys, j, kb[:0])
			want[string(kb)] = true
		}
	}
	for j := 0; j < v.N; j++ {
		if v.IsNull(j) {
			continue
		}
		kb = enc(v, j, kb[:0])
		if want[string(kb)] {
			counts[string(kb)] += sign
		}
	}
	return true
}

// readHits reports whether one of rows (every column, in td's order)
// satisfies read r; what it cannot judge counts as a hit.
func readHits(r lancesrc.Read, td *exec.TableDef, rows []*exec.Vec) bool {
	col := func(name string) *exec.Vec {
		i := slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == name })
		if i < 0 || i >= len(rows) {
			return nil
		}
		return rows[i]
	}
	n := rows[0].N
	switch r.Kind {
	case lancesrc.ReadAddrs:
		return false // judged by address (inserted rows have new ones)
	case lancesrc.ReadScan:
		vs := make([]*exec.Vec, len(r.Filters))
		for f := range r.Filters {
			if vs[f] = col(r.Filters[f].Column); vs[f] == nil {
				return true
			}
		}
		for i := 0; i < n; i++ {
			all := true
			for f := range r.Filters {
				if !r.Filters[f].Matches(vs[f], i) {
					all = false
					break
				}
			}
			if all {
				return true
			}
		}
		return false
	case lancesrc.ReadRange:
		v := col(r.Column)
		if v == nil || v.T.Kind() != exec.KInt {
			return true
		}
		for i := 0; i < n; i++ {
			if !v.IsNull(i) && v.I[i] >= r.Lo && v.I[i] <= r.Hi {
				return true
			}
		}
		return false
	case lancesrc.ReadKeys:
		v := col(r.Column)
		if v == nil || v.T.Kind() != r.Keys.T.Kind() {
			return true
		}
		// the key index's equality: integers by value, the rest by
		// exec's canonical key encoding
		if v.T.Kind() == exec.KInt {
			set := make(map[int64]bool, r.Keys.N)
			for j := 0; j < r.Keys.N; j++ {
				if !r.Keys.IsNull(j) {
					set[r.Keys.I[j]] = true
				}
			}
			for i := 0; i < n; i++ {
				if !v.IsNull(i) && set[v.I[i]] {
					return true
				}
			}
			return false
		}
		set := make(map[string]bool, r.Keys.N)
		var kb []byte
		for j := 0; j < r.Keys.N; j++ {
			if !r.Keys.IsNull(j) {
				kb = exec.AppendKey(kb[:0], r.Keys, j)
				set[string(kb)] = true
			}
		}
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				continue
			}
			kb = exec.AppendKey(kb[:0], v, i)
			if set[string(kb)] {
				return true
			}
		}
		return false
	}
	return true
}
