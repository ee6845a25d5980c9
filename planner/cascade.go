package planner

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Referential actions, set-based: removing rows from a referenced table
// (DELETE, or an UPDATE that changes a referenced key) collects the keys
// that disappear, then probes each referencing table once per foreign
// key with that whole key set (the table's key index when it has one on
// the foreign key column, else one scan of the key columns) and applies
// the key's action to every match at once: NO ACTION/RESTRICT fail with
// 23503, CASCADE deletes the matched rows (recursing one level per
// table) or, ON UPDATE, sets their keys to the new values, SET NULL and
// SET DEFAULT rewrite the matched rows. Only the columns an action needs
// are read (the referenced key columns of a cascading delete, whole
// rows only for rows rewritten), by address, so memory follows the rows
// affected, never the table size.

// removeRows removes rows (addresses; old values given in table order
// when known, else nil — only the referenced columns are used) from ti
// with their referential consequences. kept are the table's replacement
// rows of an UPDATE, aligned with addrs: a referenced key still present
// among them is not removed, a changed one takes the ON UPDATE action.
//
// check runs after the rows are removed and before the referential
// actions (PostgreSQL checks the new rows' constraints first, its
// foreign-key actions at the end of the statement).
func (w *writer) removeRows(ti *tableInfo, addrs []uint64, old []*exec.Vec, kept []*exec.Vec, depth int, check func() error) error {
	if depth > 64 {
		return wire.Errorf(pgerr.StatementTooComplex, "foreign key cascade nested too deeply")
	}
	if kept != nil && w.keepsReferenced(ti) {
		// an UPDATE that leaves every referenced key alone has no
		// referential consequence
		if err := w.apply(ti, addrs, nil); err != nil {
			return err
		}
		if check != nil {
			return check()
		}
		return nil
	}
	refCols := w.referencedCols(ti.def.Name)
	var gone *rows
	if len(refCols) > 0 && len(addrs) > 0 && !w.describe {
		if old != nil && hasCols(old, refCols) {
			gone = &rows{addrs: addrs, cols: old}
		} else {
			var err error
			if gone, err = w.fetchRows(ti, addrs, refCols); err != nil {
				return err
			}
		}
	}
	if err := w.apply(ti, addrs, nil); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if w.describe || gone == nil || gone.n() == 0 {
		return nil
	}
	var upd *rowUpdate
	if kept != nil {
		upd = newRowUpdate(addrs, kept)
	}
	return w.referentialActions(ti, gone, upd, depth)
}

// rowUpdate pairs an UPDATE's old rows (by address) with their new
// values.
type rowUpdate struct {
	at   map[uint64]int32 // address → row of kept
	kept []*exec.Vec
}

func newRowUpdate(addrs []uint64, kept []*exec.Vec) *rowUpdate {
	at := make(map[uint64]int32, len(addrs))
	for i, a := range addrs {
		at[a] = int32(i)
	}
	return &rowUpdate{at: at, kept: kept}
}

// hasCols reports that vecs (full width) carry every column of cols.
func hasCols(vecs []*exec.Vec, cols []int) bool {
	for _, c := range cols {
		if c >= len(vecs) || vecs[c] == nil {
			return false
		}
	}
	return true
}

// referentialActions applies the foreign keys referencing ti to the
// removed rows (gone: their referenced columns).
func (w *writer) referentialActions(ti *tableInfo, gone *rows, upd *rowUpdate, depth int) error {
	names := make([]string, 0, len(w.v.base.tables))
	for name := range w.v.base.tables {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, cname := range names {
		child := w.v.base.tables[cname]
		for _, fk := range child.def.ForeignKeys {
			if fk.RefTable != ti.def.Name {
				continue
			}
			ref := refColumns(ti.def, fk)
			if len(ref) != len(fk.Columns) {
				continue
			}
			action := fk.OnDelete
			if upd != nil {
				action = fk.OnUpdate
			}
			keys, newKeys := w.removedKeys(gone, ref, upd, action == exec.RefRestrict)
			if keys == nil {
				continue
			}
			need := slices.Clone(fk.Columns)
			switch action {
			case exec.RefCascade:
				if upd == nil {
					need = append(need, w.referencedCols(cname)...)
				} else {
					need = allColumns(child.def)
				}
			case exec.RefSetNull, exec.RefSetDefault:
				need = allColumns(child.def)
			}
			found, err := w.probeRows(child, fk.Columns, keys, need)
			if err != nil {
				return err
			}
			if found.n() == 0 {
				continue
			}
			switch {
			case action == exec.RefCascade && upd == nil:
				if err := w.removeRows(child, found.addrs, found.cols, nil, depth+1, nil); err != nil {
					return err
				}
				w.cascaded += found.n()
			case action == exec.RefCascade, action == exec.RefSetNull, action == exec.RefSetDefault:
				if err := w.rewriteChildren(ti, child, fk, found, keys, newKeys, action, depth); err != nil {
					return err
				}
			default:
				return w.stillReferenced(ti, child, fk, keys, pick(found.cols, fk.Columns))
			}
		}
	}
	return nil
}

// stillReferenced is NO ACTION/RESTRICT's 23503 for the first removed
// key (in statement order) that a row of child references (refs: the
// referencing rows' key columns).
func (w *writer) stillReferenced(ti, child *tableInfo, fk exec.ForeignKey, keys, refs []*exec.Vec) error {
	have := keySetOf(refs)
	first := 0
	for i := 0; i < keys[0].N; i++ {
		if _, ok := have.find(keys, i); ok {
			first = i
			break
		}
	}
	return wire.Errorf(pgerr.ForeignKeyViolation, "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", ti.def.Name, fkName(child.def, fk), child.def.Name).
		WithConstraint(schemaOf(child.def), child.def.Name, fkName(child.def, fk)).WithDetail(fmt.Sprintf("Key %s is still referenced from table \"%s\".", w.keyText(ti.def, refColumns(ti.def, fk), keys, first), child.def.Name))
}

// removedKeys returns the distinct keys (columns ref) of the removed rows
// that no longer exist: for a DELETE all of them; for an UPDATE those
// absent from the new rows (NO ACTION and the other actions: a key the
// statement moves to another row still exists) or, for RESTRICT, every
// key its own row changed (PostgreSQL's RESTRICT does not look for the
// key elsewhere). newKeys are, for an UPDATE, each key's new value
// (aligned with keys), for ON UPDATE CASCADE. nil when none.
func (w *writer) removedKeys(gone *rows, ref []int, upd *rowUpdate, perRow bool) (keys, newKeys []*exec.Vec) {
	oldv := pick(gone.cols, ref)
	var still *keySet
	var newv []*exec.Vec
	if upd != nil {
		newv = pick(upd.kept, ref)
		if !perRow {
			still = keySetOf(newv) // same table, same key types as oldv
		}
	}
	seen := newKeySet(vecTypes(oldv), gone.n())
	var idx, newIdx []int32
	for i := 0; i < gone.n(); i++ {
		if !seen.add(oldv, i) {
			continue // NULL or a duplicate
		}
		var j int32 = -1
		if upd != nil {
			var ok bool
			if j, ok = upd.at[gone.addrs[i]]; !ok {
				continue
			}
			if perRow && sameKey(oldv, i, newv, int(j)) {
				continue
			}
			if still != nil {
				if _, ok := still.find(oldv, i); ok {
					continue
				}
			}
		}
		idx = append(idx, int32(i))
		newIdx = append(newIdx, j)
	}
	if len(idx) == 0 {
		return nil, nil
	}
	keys = gatherVecs(oldv, idx)
	if upd != nil {
		newKeys = gatherVecs(newv, newIdx)
	}
	return keys, newKeys
}

// sameKey reports equal non-NULL keys at a[i] and b[j].
func sameKey(a []*exec.Vec, i int, b []*exec.Vec, j int) bool {
	ka, ok1 := keyOf(nil, a, i)
	kb, ok2 := keyOf(nil, b, j)
	return ok1 && ok2 && string(ka) == string(kb)
}

func allColumns(td *exec.TableDef) []int {
	out := make([]int, len(td.Columns))
	for i := range out {
		out[i] = i
	}
	return out
}

// rewriteChildren applies ON DELETE/UPDATE SET NULL, SET DEFAULT and ON
// UPDATE CASCADE to the matched referencing rows (found: whole rows):
// their foreign key columns get NULL, their defaults or the referenced
// key's new value; the rewritten rows replace them (validated like an
// UPDATE's, with their own referential consequences).
func (w *writer) rewriteChildren(parent, child *tableInfo, fk exec.ForeignKey, found *rows, keys, newKeys []*exec.Vec, action exec.RefAction, depth int) error {
	n := found.n()
	crow := make([]*exec.Vec, len(found.cols))
	copy(crow, found.cols)
	switch action {
	case exec.RefCascade:
		// each row's key becomes the new value of the key it matched
		ks := keySetOf(keys)
		fkv := pick(found.cols, fk.Columns)
		idx := make([]int32, n)
		for i := 0; i < n; i++ {
			r, ok := ks.find(fkv, i)
			if !ok {
				return wire.Errorf(pgerr.InternalError, "foreign key cascade lost a key of table \"%s\"", child.def.Name)
			}
			idx[i] = r
		}
		for k, c := range fk.Columns {
			crow[c] = retype(newKeys[k].Gather(idx), child.def.Columns[c].Type)
		}
	default:
		for _, c := range fk.Columns {
			v := exec.NewVec(crow[c].T, n)
			for i := 0; i < n; i++ {
				v.SetNull(i)
			}
			if action == exec.RefSetDefault && child.def.Columns[c].Default != "" {
				def, err := castNode(defaultFor(child.def.Columns[c]), child.def.Columns[c].Type)
				if err != nil {
					return err
				}
				d, _, err := w.queryTree(perRow([]*sqlparse.Node{resTarget(def)}, n))
				if err != nil {
					return err
				}
				v = retype(d[0], child.def.Columns[c].Type)
			}
			crow[c] = v
		}
		if action == exec.RefSetDefault {
			// a default equal to a removed key would keep referencing
			// it: PostgreSQL reports the removal, as NO ACTION does
			if err := w.defaultStillReferences(parent, child, fk, keys, pick(crow, fk.Columns)); err != nil {
				return err
			}
		}
	}
	saved, savedTable, savedCascading := w.assigned, w.assignedTable, w.cascading
	w.assigned, w.assignedTable = map[int]bool{}, child.def.Name
	for _, c := range fk.Columns {
		w.assigned[c] = true
	}
	if action == exec.RefCascade {
		w.cascading = child.def.Name + "\x00" + fkName(child.def, fk)
	}
	err := w.removeRows(child, found.addrs, found.cols, crow, depth+1, func() error { return w.checkRows(child, crow) })
	w.assigned, w.assignedTable, w.cascading = saved, savedTable, savedCascading
	if err != nil {
		return err
	}
	return w.apply(child, nil, crow)
}

// defaultStillReferences fails when a SET DEFAULT value (newRefs) is
// one of the removed keys.
func (w *writer) defaultStillReferences(parent, child *tableInfo, fk exec.ForeignKey, keys, newRefs []*exec.Vec) error {
	if len(keys) != len(newRefs) {
		return nil
	}
	removed := newKeySet(vecTypes(keys), keys[0].N)
	if removed.ints != nil && newRefs[0].T.Kind() != exec.KInt {
		return nil
	}
	for i := 0; i < keys[0].N; i++ {
		removed.add(keys, i)
	}
	for i := 0; i < newRefs[0].N; i++ {
		if _, ok := removed.find(newRefs, i); ok {
			return w.stillReferenced(parent, child, fk, keys, newRefs)
		}
	}
	return nil
}

// referencedCols lists the columns of table any foreign key references
// (sorted), nil when none does.
func (w *writer) referencedCols(table string) []int {
	parent := w.v.base.tables[table]
	if parent == nil {
		return nil
	}
	var out []int
	for _, ti := range w.v.base.tables {
		for _, fk := range ti.def.ForeignKeys {
			if fk.RefTable != table {
				continue
			}
			for _, c := range refColumns(parent.def, fk) {
				if !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// probeRows returns the rows of table (as the view sees it) whose
// keyCols equal one of keys (distinct keys, the referenced side's
// types), with columns need read. One batched probe: the key index of
// the snapshot source when it has one on the first key column (then
// filtered by the whole key), pending inserts searched in memory; else
// one scan of the needed columns. The table joins the read set.
func (w *writer) probeRows(ti *tableInfo, keyCols []int, keys []*exec.Vec, need []int) (*rows, error) {
	table := ti.def.Name
	w.v.pend.markRead(table)
	out := &rows{cols: make([]*exec.Vec, len(ti.def.Columns))}
	if w.describe || keys[0].N == 0 {
		for _, c := range need {
			out.cols[c] = exec.NewVec(ti.def.Columns[c].Type, 0)
		}
		return out, nil
	}
	cols := slices.Clone(keyCols)
	for _, c := range need {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	keyTypes := make([]exec.Type, len(keyCols))
	for k, c := range keyCols {
		keyTypes[k] = ti.def.Columns[c].Type
	}
	want := newKeySet(vecTypes(keys), keys[0].N)
	if want.ints != nil && keyTypes[0].Kind() != exec.KInt {
		want = &keySet{strs: map[string]int32{}}
	}
	for i := 0; i < keys[0].N; i++ {
		want.add(keys, i)
	}
	var parts [][]*exec.Vec
	p := w.v.pend.tables[table]
	collect := func(rec arrow.RecordBatch, addrs []uint64, skipDeleted bool) error {
		vecs := make([]*exec.Vec, len(cols))
		for k, c := range cols {
			v, err := exec.VecFromArrow(rec.Column(k), ti.def.Columns[c].Type)
			if err != nil {
				return err
			}
			vecs[k] = v
		}
		kv := vecs[:len(keyCols)]
		var sel []int32
		for r := 0; r < int(rec.NumRows()); r++ {
			if skipDeleted && p != nil && p.deleted.has(addrs[r]) {
				continue
			}
			if _, ok := want.find(kv, r); ok {
				sel = append(sel, int32(r))
				out.addrs = append(out.addrs, addrs[r])
			}
		}
		if len(sel) == 0 {
			return nil
		}
		if len(sel) < int(rec.NumRows()) {
			vecs = gatherVecs(vecs, sel)
		}
		for _, v := range vecs {
			detachStrings(v, v.N)
		}
		parts = append(parts, vecs)
		return nil
	}
	kl, ok := ti.def.Source.(exec.KeyLookupSource)
	indexed := ok && (p == nil || p.mode == modeRows) && slices.Contains(kl.KeyColumns(), keyCols[0]) &&
		keys[0].T.Kind() == keyTypes[0].Kind() && w.useIndex(want.len(), ti, keyCols[0])
	if indexed {
		first := keys[0]
		if len(keyCols) > 1 {
			first = distinctVec(first)
		}
		err := kl.LookupKeys(w.ctx, keyCols[0], first, exec.ScanRequest{Columns: cols, NeedAddrs: true}, func(rec arrow.RecordBatch, addrs []uint64) error {
			return collect(rec, addrs, true)
		})
		if err != nil {
			return nil, err
		}
		if p != nil {
			var seq uint64
			for _, rec := range p.inserts {
				addrs := make([]uint64, rec.NumRows())
				for i := range addrs {
					addrs[i] = pendingAddrBit | seq
					seq++
				}
				xr := execRecord(rec)
				arrs := make([]arrow.Array, len(cols))
				for k, c := range cols {
					arrs[k] = xr.Column(c)
				}
				if err := collect(projectRecord(arrs, rec.NumRows()), addrs, false); err != nil {
					return nil, err
				}
			}
		}
	} else {
		src, _ := w.v.source(table)
		err := src.Source.Scan(w.ctx, exec.ScanRequest{Columns: cols, NeedAddrs: true}, func(rec arrow.RecordBatch, addrs []uint64) error {
			return collect(rec, addrs, false)
		})
		if err != nil {
			return nil, err
		}
	}
	for k, c := range cols {
		col := make([]*exec.Vec, len(parts))
		for i, pv := range parts {
			col[i] = pv[k]
		}
		if len(col) == 0 {
			out.cols[c] = exec.NewVec(ti.def.Columns[c].Type, 0)
			continue
		}
		out.cols[c] = catVecs(ti.def.Columns[c].Type, col)
	}
	return out, nil
}

// distinctVec drops repeated values (and NULLs) of v.
func distinctVec(v *exec.Vec) *exec.Vec {
	ks := newKeySet([]exec.Type{v.T}, v.N)
	var idx []int32
	for i := 0; i < v.N; i++ {
		if ks.add([]*exec.Vec{v}, i) {
			idx = append(idx, int32(i))
		}
	}
	return v.Gather(idx)
}

// rowsAt reads full rows of a table by address (as the view sees it),
// in address order of the snapshot rows, then pending rows.
func (w *writer) rowsAt(ti *tableInfo, addrs []uint64) ([]*exec.Vec, error) {
	r, err := w.fetchRows(ti, addrs, allColumns(ti.def))
	if err != nil {
		return nil, err
	}
	return r.cols, nil
}
