package planner

import (
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// checkCopyRows validates one batch of a streamed (autocommit) COPY: the
// same constraints, order and errors as checkRows, set-based. A single
// integer unique key is checked against the keys the COPY has already
// written (one bitmap insert per row) and, only when the table had rows
// before the COPY, probed in one index lookup per batch; a single integer
// foreign key probes its parent's shared key index once per batch with
// the batch's distinct keys. Other shapes take checkRows' general
// paths. The stream has no pending state besides its own rows, which
// copySeen covers.
//
// fill gives lazily built text vectors their strings (before an error
// message formats a whole row).
func (w *writer) checkCopyRows(ti *tableInfo, rows []*exec.Vec, fill func()) error {
	if len(rows) == 0 || rows[0].N == 0 || w.describe {
		return nil
	}
	td := ti.def
	n := rows[0].N
	if err := checkLengths(td, rows); err != nil {
		return err
	}
	if err := w.checkRowValues(ti, rows, fill); err != nil {
		return err
	}
	for _, uk := range uniqueKeys(td) {
		probe := pick(rows, uk.cols)
		if len(uk.cols) != 1 || probe[0].T.Kind() != exec.KInt {
			if err := w.checkUniqueGeneral(td, uk, probe); err != nil {
				return err
			}
			continue
		}
		if err := w.checkUniqueInt(td, uk, probe[0]); err != nil {
			return err
		}
	}
	if err := w.checkMaxOut(ti, rows); err != nil {
		return err
	}
	return w.checkCopyParents(ti, rows, n)
}

// checkUniqueInt checks a single integer key: against the COPY's earlier
// rows (bitmap) and the table's existing rows (index probe, skipped for a
// table that was empty).
func (w *writer) checkUniqueInt(td *exec.TableDef, uk uniqueKey, v *exec.Vec) error {
	b := w.copySeen.intSet(uk.name)
	for i := 0; i < v.N; i++ {
		if v.IsNull(i) {
			continue
		}
		if !b.CheckedAdd(uint64(v.I[i])) {
			return w.dupKeyAt(td, uk, w.keyText(td, uk.cols, []*exec.Vec{v}, i), i)
		}
	}
	found, err := w.existingInts(td.Name, uk.cols[0], v)
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return nil
	}
	for i := 0; i < v.N; i++ {
		if !v.IsNull(i) && found.has(v.I[i]) {
			return w.dupKeyAt(td, uk, w.keyText(td, uk.cols, []*exec.Vec{v}, i), i)
		}
	}
	return nil
}

// checkUniqueGeneral is checkRows' unique check for other key shapes.
func (w *writer) checkUniqueGeneral(td *exec.TableDef, uk uniqueKey, probe []*exec.Vec) error {
	n := probe[0].N
	seen := map[string]bool{}
	var kb []byte
	for i := 0; i < n; i++ {
		k, ok := keyOf(kb[:0], probe, i)
		kb = k
		if !ok {
			continue
		}
		if seen[string(k)] || w.copySeen.seen(uk.name, probe, i, k) {
			return w.dupKeyAt(td, uk, w.keyText(td, uk.cols, probe, i), i)
		}
		seen[string(k)] = true
	}
	if ti := w.v.base.tables[td.Name]; ti != nil && w.v.pend.tables[td.Name] == nil && ti.def.Source.RowCount() == 0 {
		w.v.pend.markRead(td.Name)
		return nil // nothing stored to collide with
	}
	found, err := w.findKeys(td.Name, uk.cols, probe)
	if err != nil {
		return err
	}
	if len(found) > 0 {
		for i := 0; i < n; i++ {
			k, ok := keyOf(kb[:0], probe, i)
			kb = k
			if ok && len(found[string(k)]) > 0 {
				return w.dupKeyAt(td, uk, w.keyText(td, uk.cols, probe, i), i)
			}
		}
	}
	return nil
}

// keyPresence is an index that answers whether keys exist without
// reading their rows (exec/lancesrc may offer it; see existingInts).
type keyPresence interface {
	HasKeys(ctx context.Context, column int, keys *exec.Vec) ([]bool, error)
}

// sortedInts is a sorted set of integers.
type sortedInts []int64

func (s sortedInts) has(v int64) bool {
	_, ok := slices.BinarySearch(s, v)
	return ok
}

// existingInts returns which of v's integer values table's column col
// already holds (as the view's snapshot sees it): nothing to look up
// in an empty table; one key-index probe with the distinct values when
// the source has an index on col; else findKeys' scan.
func (w *writer) existingInts(table string, col int, v *exec.Vec) (sortedInts, error) {
	w.v.pend.markRead(table)
	ti := w.v.base.tables[table]
	if ti == nil || w.describe {
		return nil, nil
	}
	if p := w.v.pend.tables[table]; p == nil && ti.def.Source.RowCount() == 0 {
		return nil, nil
	}
	kl, ok := ti.def.Source.(exec.KeyLookupSource)
	if !ok || w.v.pend.tables[table] != nil || !slices.Contains(kl.KeyColumns(), col) {
		found, err := w.findKeys(table, []int{col}, []*exec.Vec{v})
		if err != nil {
			return nil, err
		}
		var out sortedInts
		for i := 0; i < v.N; i++ {
			if v.IsNull(i) {
				continue
			}
			k, _ := keyOf(nil, []*exec.Vec{v}, i)
			if len(found[string(k)]) > 0 {
				out = append(out, v.I[i])
			}
		}
		slices.Sort(out)
		return out, nil
	}
	keys := distinctInts(v)
	if keys.N == 0 {
		return nil, nil
	}
	if kp, ok := kl.(keyPresence); ok {
		has, err := kp.HasKeys(w.ctx, col, keys)
		if err != nil {
			return nil, err
		}
		var out sortedInts
		for i, h := range has {
			if h && i < keys.N {
				out = append(out, keys.I[i]) // keys are sorted
			}
		}
		return out, nil
	}
	keyType := ti.def.Columns[col].Type
	var out sortedInts
	err := kl.LookupKeys(w.ctx, col, keys, exec.ScanRequest{Columns: []int{col}, NeedAddrs: true}, func(rec arrow.RecordBatch, _ []uint64) error {
		got, err := exec.VecFromArrow(rec.Column(0), keyType)
		if err != nil {
			return err
		}
		for r := 0; r < got.N; r++ {
			if !got.IsNull(r) {
				out = append(out, got.I[r])
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// distinctInts is v's distinct non-NULL values, sorted (a typed int8
// vector, as key lookups take them).
func distinctInts(v *exec.Vec) *exec.Vec {
	vals := make([]int64, 0, v.N)
	for i := 0; i < v.N; i++ {
		if !v.IsNull(i) {
			vals = append(vals, v.I[i])
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	return &exec.Vec{T: v.T, N: len(vals), I: vals}
}

// checkCopyParents is checkParents with single integer foreign keys
// probed set-based: the batch's distinct keys in one lookup of the
// parent's key index. Self references and other shapes take
// checkParents' path for that key.
func (w *writer) checkCopyParents(ti *tableInfo, rows []*exec.Vec, n int) error {
	td := ti.def
	for _, fk := range td.ForeignKeys {
		parent, ok := w.v.base.tables[fk.RefTable]
		if !ok {
			return wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" referenced by constraint \"%s\" does not exist", fk.RefTable, fkName(td, fk))
		}
		ref := refColumns(parent.def, fk)
		if len(ref) != len(fk.Columns) {
			continue
		}
		probe := pick(rows, fk.Columns)
		if len(ref) != 1 || fk.RefTable == td.Name || probe[0].T.Kind() != exec.KInt || parent.def.Columns[ref[0]].Type.Kind() != exec.KInt {
			one := *td
			one.ForeignKeys = []exec.ForeignKey{fk}
			if err := w.checkParents(&tableInfo{def: &one, entry: ti.entry, schema: ti.schema, meta: ti.meta}, rows); err != nil {
				return err
			}
			continue
		}
		found, err := w.existingInts(fk.RefTable, ref[0], probe[0])
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if probe[0].IsNull(i) || found.has(probe[0].I[i]) {
				continue
			}
			return wire.Errorf(pgerr.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", td.Name, fkName(td, fk)).
				WithConstraint(schemaOf(td), td.Name, fkName(td, fk)).WithDetail(fmt.Sprintf("Key %s is not present in table \"%s\".", w.keyText(td, fk.Columns, probe, i), fk.RefTable))
		}
	}
	return nil
}

// intSet is the bitmap of single integer keys a streamed COPY has
// written so far under constraint name.
func (ks *keySets) intSet(name string) *roaring64.Bitmap {
	b := ks.ints[name]
	if b == nil {
		b = roaring64.New()
		ks.ints[name] = b
	}
	return b
}
