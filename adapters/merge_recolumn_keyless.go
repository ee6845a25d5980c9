package adapters

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/lance"
)

// Rows of a table without a primary key merged across a re-columning
// (one side rewrote the table, the other changed its rows). Row
// addresses do not survive a rewrite (it copies the rows into a new
// dataset), so a row has no identity across the two incarnations but its
// values. As for keyless tables of one lineage (merge_keyless.go) the
// table is a bag of rows, compared here on the columns both incarnations
// have (lined up by id, retyped values converted): per value v the
// replayed lineage's delta touched, with n its net change (copies added
// minus deleted), b the copies at the base and o the other
// incarnation's copies:
//
//   - o = b (the other side left v's copies alone): the change applies —
//     n new rows mapped into the other incarnation (columns only it has
//     take their DEFAULT), or -n of its copies of v deleted (copies equal
//     on the shared columns are interchangeable);
//   - o - b = n: both made the same change, nothing to do;
//   - otherwise a conflict on the table, for every strategy (there is no
//     key to list or resolve a row by).
//
// Counting reads the base and the other incarnation whole.

// mapDeltaKeyless merges the replayed lineage's delta d (old → cur) into
// the other incarnation ods by value (see above).
func (p *mergePlan) mapDeltaKeyless(ctx context.Context, side recolumnSide, old, cur *lance.Dataset, d rowDelta, l *colLine, ods *lance.Dataset) (*recolumned, bool, error) {
	// the shared columns: in the other incarnation's schema, and where
	// they come from in the replayed one
	var proj []int
	for j, s := range l.src {
		if s >= 0 {
			proj = append(proj, j)
		}
	}
	if len(proj) == 0 {
		p.unsupported = append(p.unsupported, MergeConflict{Table: side.table, Reason: fmt.Sprintf(
			"re-columned on %s while %s changed its rows, and no column of the table is on both branches: merging rows into a re-columned table", side.rewriter, side.changer)})
		return nil, false, nil
	}
	bad := ""
	// key maps a replayed row into the other incarnation (nil when a
	// value does not convert)
	mapped := func(rec arrow.RecordBatch, i int) (arrow.RecordBatch, string, error) {
		one := rec.NewSlice(int64(i), int64(i+1))
		defer one.Release()
		m, b, err := l.mapRow(ctx, one)
		if err != nil || b != "" {
			return nil, b, err
		}
		return m, rowKey(m, 0, proj), nil
	}
	net := map[string]int{}
	added := map[string][]arrow.RecordBatch{}
	if len(d.deleted) > 0 {
		if err := forEachRow(ctx, old, lanceScan(d.deleted), func(rec arrow.RecordBatch, i int, _ uint64) error {
			m, k, err := mapped(rec, i)
			if err != nil {
				return err
			}
			if m == nil {
				bad = k
				return nil
			}
			m.Release()
			net[k]--
			return nil
		}); err != nil {
			return nil, false, err
		}
	}
	if len(d.added) > 0 {
		if err := forEachRow(ctx, cur, lanceScan(d.added), func(rec arrow.RecordBatch, i int, _ uint64) error {
			m, k, err := mapped(rec, i)
			if err != nil {
				return err
			}
			if m == nil {
				bad = k
				return nil
			}
			net[k]++
			added[k] = append(added[k], m)
			return nil
		}); err != nil {
			return nil, false, err
		}
	}
	if bad != "" {
		p.conflict(side.table, "re-columned on %s while %s changed its rows: a value of column %q on %s does not convert to its type on %s",
			side.rewriter, side.changer, bad, side.replayed, side.other)
		return nil, false, nil
	}
	for k, n := range net {
		if n == 0 {
			delete(net, k)
		}
	}
	out := &recolumned{delVals: map[string]int{}, proj: proj}
	if len(net) == 0 {
		return out, true, nil
	}
	base := map[string]int{}
	if err := forEachRow(ctx, old, lance.ScanOptions{}, func(rec arrow.RecordBatch, i int, _ uint64) error {
		m, k, err := mapped(rec, i)
		if err != nil || m == nil {
			return err // an unconvertible base value counts as no copy
		}
		m.Release()
		if net[k] != 0 {
			base[k]++
		}
		return nil
	}); err != nil {
		return nil, false, err
	}
	have := map[string]int{}
	if err := forEachRow(ctx, ods, lance.ScanOptions{}, func(rec arrow.RecordBatch, i int, _ uint64) error {
		if k := rowKey(rec, i, proj); net[k] != 0 {
			have[k]++
		}
		return nil
	}); err != nil {
		return nil, false, err
	}
	keys := make([]string, 0, len(net))
	for k := range net {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var rows []arrow.RecordBatch
	for _, k := range keys {
		n := net[k]
		switch dt := have[k] - base[k]; {
		case dt == n: // the same change on both
		case dt != 0:
			p.conflict(side.table, "re-columned on %s while rows changed on both branches in different ways (the table has no primary key: rows are compared by value on the columns both branches have)", side.rewriter)
			return nil, false, nil
		case n > 0:
			rows = append(rows, added[k][:n]...)
		default:
			out.delVals[k] = -n
		}
	}
	if len(rows) > 0 {
		rec, err := concatRecords(l.to, rows)
		if err != nil {
			return nil, false, err
		}
		out.added = rec
	}
	return out, true, nil
}

// valueDeletes finds, in tds, the copies rc deletes by value (rc.delVals
// over rc.proj), skipping the addresses in taken.
func valueDeletes(ctx context.Context, tds *lance.Dataset, rc *recolumned, taken []uint64) ([]uint64, error) {
	if rc == nil || len(rc.delVals) == 0 {
		return nil, nil
	}
	left := make(map[string]int, len(rc.delVals))
	for k, n := range rc.delVals {
		left[k] = n
	}
	skip := make(map[uint64]bool, len(taken))
	for _, a := range taken {
		skip[a] = true
	}
	var dels []uint64
	err := forEachRow(ctx, tds, lance.ScanOptions{}, func(rec arrow.RecordBatch, i int, addr uint64) error {
		if skip[addr] {
			return nil
		}
		if k := rowKey(rec, i, rc.proj); left[k] > 0 {
			left[k]--
			dels = append(dels, addr)
		}
		return nil
	})
	return dels, err
}
