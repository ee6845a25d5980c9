package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Validators run at the statement that causes a violation, against the
// view (snapshot + pending, the statement's removals already applied),
// and register every table they probe in the read set, so a concurrent
// change to a probed table fails (or re-prepares) the commit: what was
// verified at the statement is re-verified at COMMIT by the write
// protocol's read-set arbitration.

// uniqueKey is a PRIMARY KEY or UNIQUE constraint.
type uniqueKey struct {
	name string
	cols []int
}

func uniqueKeys(td *exec.TableDef) []uniqueKey {
	var out []uniqueKey
	if len(td.PrimaryKey) > 0 {
		name := td.PrimaryKeyName
		if name == "" {
			name = td.Name + "_pkey"
		}
		out = append(out, uniqueKey{name: name, cols: td.PrimaryKey})
	}
	for i, u := range td.Unique {
		name := ""
		if i < len(td.UniqueNames) {
			name = td.UniqueNames[i]
		}
		if name == "" {
			parts := []string{td.Name}
			for _, c := range u {
				parts = append(parts, td.Columns[c].Name)
			}
			name = strings.Join(parts, "_") + "_key"
		}
		out = append(out, uniqueKey{name: name, cols: u})
	}
	for _, ix := range td.Indexes {
		if ix.Unique && !ix.Computed() && len(ix.Columns) > 0 {
			out = append(out, uniqueKey{name: ix.Name, cols: ix.Columns})
		}
	}
	return out
}

// keyOf encodes the key columns of row i; ok is false when a part is NULL
// (NULLs never conflict).
func keyOf(buf []byte, vecs []*exec.Vec, i int) ([]byte, bool) {
	for _, v := range vecs {
		if v.IsNull(i) {
			return buf, false
		}
		buf = exec.AppendKey(buf, v, i)
	}
	return buf, true
}

// keyText renders "(a, b)=(1, 2)" for messages.
func (w *writer) keyText(td *exec.TableDef, cols []int, vecs []*exec.Vec, i int) string {
	names := make([]string, len(cols))
	vals := make([]string, len(cols))
	for k, c := range cols {
		names[k] = td.Columns[c].Name
		if t, ok := exec.FormatText(vecs[k], i, w.s.location()); ok {
			vals[k] = t
		} else {
			vals[k] = "null"
		}
	}
	return "(" + strings.Join(names, ", ") + ")=(" + strings.Join(vals, ", ") + ")"
}

func pick(vecs []*exec.Vec, cols []int) []*exec.Vec {
	out := make([]*exec.Vec, len(cols))
	for i, c := range cols {
		out[i] = vecs[c]
	}
	return out
}

// findKeys returns the addresses of the rows of table (as the view sees
// it) whose keyCols equal the key of one of the probe rows, by encoded
// key. One batched probe for all the probe rows' distinct keys
// (probeRows): the snapshot source's key index on the key's leading
// column when it has one (multi-column keys then filtered by the whole
// key), pending inserts searched in memory; else one scan of the key
// columns.
func (w *writer) findKeys(table string, keyCols []int, probe []*exec.Vec) (map[string][]uint64, error) {
	ti := w.v.base.tables[table]
	w.v.pend.markRead(table)
	out := map[string][]uint64{}
	if len(probe) == 0 || probe[0].N == 0 || w.describe {
		return out, nil
	}
	ks := newKeySet(vecTypes(probe), probe[0].N)
	var rowsIdx []int32
	for i := 0; i < probe[0].N; i++ {
		if ks.add(probe, i) {
			rowsIdx = append(rowsIdx, int32(i))
		}
	}
	if len(rowsIdx) == 0 {
		return out, nil
	}
	keys := probe
	if len(rowsIdx) != probe[0].N {
		keys = gatherVecs(probe, rowsIdx)
	}
	found, err := w.probeRows(ti, keyCols, keys, keyCols)
	if err != nil {
		return nil, err
	}
	// encode with the probe's types, as callers look keys up
	fk := sameKindRetype(pick(found.cols, keyCols), probe)
	var kb []byte
	for i := 0; i < found.n(); i++ {
		k, ok := keyOf(kb[:0], fk, i)
		kb = k
		if ok {
			out[string(k)] = append(out[string(k)], found.addrs[i])
		}
	}
	return out, nil
}

// existingKeys returns the set of the probe rows' keys that rows of
// table (as the view sees it) hold in keyCols (one batched probe,
// probeRows), usable with find on the probe rows; nil when none.
func (w *writer) existingKeys(table string, keyCols []int, probe []*exec.Vec) (*keySet, error) {
	ti := w.v.base.tables[table]
	w.v.pend.markRead(table)
	if len(probe) == 0 || probe[0].N == 0 || w.describe {
		return nil, nil
	}
	ks := newKeySet(vecTypes(probe), probe[0].N)
	var idx []int32
	for i := 0; i < probe[0].N; i++ {
		if ks.add(probe, i) {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	keys := probe
	if len(idx) != probe[0].N {
		keys = gatherVecs(probe, idx)
	}
	found, err := w.probeRows(ti, keyCols, keys, keyCols)
	if err != nil {
		return nil, err
	}
	if found.n() == 0 {
		return nil, nil
	}
	// in the probe's types, so the probe rows find them
	return keySetOf(sameKindRetype(pick(found.cols, keyCols), probe)), nil
}

// nullKey reports a NULL part in row i's key (it matches nothing).
func nullKey(vecs []*exec.Vec, i int) bool {
	for _, v := range vecs {
		if v.IsNull(i) {
			return true
		}
	}
	return false
}

// checkRows validates new rows of ti (table column order) before they
// are added: NOT NULL, CHECK, PRIMARY KEY/UNIQUE (against the table and
// among themselves), and foreign keys to their parents.
func (w *writer) checkRows(ti *tableInfo, rows []*exec.Vec) error {
	if len(rows) == 0 || rows[0].N == 0 || w.describe {
		return nil
	}
	td := ti.def
	n := rows[0].N
	if err := checkLengths(td, rows); err != nil {
		return err
	}
	if err := w.checkRowValues(ti, rows, func() {}); err != nil {
		return err
	}
	for _, uk := range uniqueKeys(td) {
		if w.keepsAll(td, uk.cols) {
			continue // an UPDATE that leaves the key alone cannot duplicate it
		}
		probe := pick(rows, uk.cols)
		// one batched probe for all the rows' keys, then the rows in
		// statement order: the first that repeats an earlier row's key
		// or an existing one is reported, as PostgreSQL's row-by-row
		// insertion would
		existing, err := w.existingKeys(td.Name, uk.cols, probe)
		if err != nil {
			return err
		}
		seen := newKeySet(vecTypes(probe), n)
		var kb []byte
		for i := 0; i < n; i++ {
			if !seen.add(probe, i) {
				if _, dup := seen.find(probe, i); dup {
					return w.dupKeyAt(td, uk, w.keyText(td, uk.cols, probe, i), i)
				}
				continue // NULL
			}
			if existing != nil {
				if _, ok := existing.find(probe, i); ok {
					return w.heldDup(ti, uk, probe, i, w.dupKeyAt(td, uk, w.keyText(td, uk.cols, probe, i), i))
				}
			}
			if w.copySeen != nil {
				k, _ := keyOf(kb[:0], probe, i)
				kb = k
				if w.copySeen.seen(uk.name, probe, i, k) {
					return w.dupKeyAt(td, uk, w.keyText(td, uk.cols, probe, i), i)
				}
			}
		}
	}
	if err := w.checkMaxOut(ti, rows); err != nil {
		return err
	}
	return w.checkParents(ti, rows)
}

// checkRowValues checks the constraints that look at one row at a time:
// NOT NULL (the first NULL of the first such column, in column order,
// as PostgreSQL reports) and then each CHECK. fill gives lazily built
// text vectors their strings before an error message formats a row.
func (w *writer) checkRowValues(ti *tableInfo, rows []*exec.Vec, fill func()) error {
	if err := w.checkDomains(ti, rows, fill); err != nil { // domain_checks.go
		return err
	}
	td := ti.def
	for c, cd := range td.Columns {
		if !cd.NotNull || rows[c].Nulls == nil {
			continue
		}
		nulls := rows[c].Nulls
		if len(nulls) > rows[c].N {
			nulls = nulls[:rows[c].N] // a reused buffer may be longer
		}
		if i := slices.Index(nulls, true); i >= 0 {
			fill()
			e := wire.Errorf(pgerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", cd.Name, td.Name).
				WithColumn(schemaOf(td), td.Name, cd.Name).WithDetail(failingRow(rows, i, w.s))
			e.Where = w.copyAt.context(rows, i, true, w.s)
			return e
		}
	}
	if len(td.Checks) == 0 {
		return nil
	}
	rec, err := recordFromVecs(ti.schema, td.Columns, rows)
	if err != nil {
		return err
	}
	rec = execRecord(rec)
	eng := &exec.Engine{Catalog: w.v, MemoryLimit: w.s.memLimit}
	for _, ck := range td.Checks {
		// the stored definition, parsed once (nodeCache)
		expr, err := cachedExpr(ck.Expr)
		if err != nil {
			return err
		}
		i, err := eng.CheckViolation(w.ctx, w.s.execSession(), td, expr, rec)
		if err != nil {
			return err
		}
		if i >= 0 {
			fill()
			e := wire.Errorf(pgerr.CheckViolation, "new row for relation \"%s\" violates check constraint \"%s\"", td.Name, ck.Name).
				WithConstraint(schemaOf(td), td.Name, ck.Name).WithDetail(failingRow(rows, i, w.s))
			e.Where = w.copyAt.context(rows, i, true, w.s)
			return e
		}
	}
	return nil
}

// checkMaxOut enforces graph.max_out on an edge table: no source may end
// up with more outgoing edges than the bound (existing edges, as the
// view sees them after the statement's removals, plus the new ones).
func (w *writer) checkMaxOut(ti *tableInfo, rows []*exec.Vec) error {
	if ti.meta == nil || ti.meta.Graph.MaxOut == nil || ti.meta.Graph.Source == "" {
		return nil
	}
	limit := *ti.meta.Graph.MaxOut
	src := slices.IndexFunc(ti.def.Columns, func(c exec.ColumnDef) bool { return c.Name == ti.meta.Graph.Source })
	if src < 0 {
		return nil
	}
	probe := []*exec.Vec{rows[src]}
	found, err := w.findKeys(ti.def.Name, []int{src}, probe)
	if err != nil {
		return err
	}
	added := map[string]int64{}
	var kb []byte
	for i := 0; i < rows[src].N; i++ {
		k, ok := keyOf(kb[:0], probe, i)
		kb = k
		if !ok {
			continue
		}
		added[string(k)]++
		if int64(len(found[string(k)]))+added[string(k)] > limit {
			return wire.Errorf(pgerr.CheckViolation, "edge table \"%s\" violates graph.max_out = %d", ti.def.Name, limit).
				WithDetail(fmt.Sprintf("Source %s would have %d outgoing edges.", w.keyText(ti.def, []int{src}, probe, i), int64(len(found[string(k)]))+added[string(k)]))
		}
	}
	return nil
}

func dupKey(td *exec.TableDef, uk uniqueKey, key string) *wire.Error {
	return wire.Errorf(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", uk.name).
		WithConstraint(schemaOf(td), td.Name, uk.name).WithDetail(fmt.Sprintf("Key %s already exists.", key))
}

// dupKeyAt is dupKey for row i of the checked rows: under COPY, the
// CONTEXT names the row's line (not its text: PostgreSQL checks unique
// keys when it flushes buffered rows, when the line is gone).
func (w *writer) dupKeyAt(td *exec.TableDef, uk uniqueKey, key string, i int) error {
	e := dupKey(td, uk, key)
	e.Where = w.copyAt.context(nil, i, false, w.s)
	return e
}

// refColumns resolves a foreign key's referenced columns in its parent
// (the parent's primary key when none are named).
func refColumns(parent *exec.TableDef, fk exec.ForeignKey) []int {
	if len(fk.RefColumns) == 0 {
		return parent.PrimaryKey
	}
	out := make([]int, 0, len(fk.RefColumns))
	for _, name := range fk.RefColumns {
		if i := slices.IndexFunc(parent.Columns, func(c exec.ColumnDef) bool { return c.Name == name }); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// fkName is a foreign key's constraint name (PostgreSQL's default when
// unnamed).
// schemaOf is the schema an error names for td (every user table lives
// in public; see docs/sql.md).
func schemaOf(td *exec.TableDef) string {
	if td.Schema == "" {
		return "public"
	}
	return td.Schema
}

func fkName(td *exec.TableDef, fk exec.ForeignKey) string {
	if fk.Name != "" {
		return fk.Name
	}
	parts := []string{td.Name}
	for _, c := range fk.Columns {
		parts = append(parts, td.Columns[c].Name)
	}
	return strings.Join(parts, "_") + "_fkey"
}

// checkParents verifies each new row's foreign keys (and edge endpoints)
// reference existing parent rows; rows referencing other new rows of the
// same table (self references) count.
func (w *writer) checkParents(ti *tableInfo, rows []*exec.Vec) error {
	td := ti.def
	n := rows[0].N
	for _, fk := range td.ForeignKeys {
		if w.keepsAll(td, fk.Columns) {
			continue // the references are the ones already verified
		}
		if w.cascading != "" && w.cascading == td.Name+"\x00"+fkName(td, fk) {
			continue // ON UPDATE CASCADE: the new keys are the parent's new keys
		}
		parent, ok := w.v.base.tables[fk.RefTable]
		if !ok {
			return wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" referenced by constraint \"%s\" does not exist", fk.RefTable, fkName(td, fk))
		}
		ref := refColumns(parent.def, fk)
		if len(ref) != len(fk.Columns) {
			continue
		}
		probe := pick(rows, fk.Columns)
		found, err := w.existingKeys(fk.RefTable, ref, probe)
		if err != nil {
			return err
		}
		var self *keySet
		if fk.RefTable == td.Name {
			self = keySetOf(pick(rows, ref))
		}
		for i := 0; i < n; i++ {
			if nullKey(probe, i) {
				continue
			}
			if found != nil {
				if _, ok := found.find(probe, i); ok {
					continue
				}
			}
			if self != nil {
				if _, ok := self.find(probe, i); ok {
					continue
				}
			}
			return wire.Errorf(pgerr.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", td.Name, fkName(td, fk)).
				WithConstraint(schemaOf(td), td.Name, fkName(td, fk)).WithDetail(fmt.Sprintf("Key %s is not present in table \"%s\".", w.keyText(td, fk.Columns, probe, i), fk.RefTable))
		}
	}
	return nil
}

// keySets are the unique keys a streamed COPY has written so far, by
// constraint: single integer keys in a compressed bitmap (a 10M-row COPY
// of dense ids costs kilobytes), others as encoded strings.
type keySets struct {
	ints map[string]*roaring64.Bitmap
	strs map[string]map[string]struct{}
}

func newKeySets() *keySets {
	return &keySets{ints: map[string]*roaring64.Bitmap{}, strs: map[string]map[string]struct{}{}}
}

// seen records row i's key (encoded as k) under constraint name and
// reports whether it was already there.
func (ks *keySets) seen(name string, probe []*exec.Vec, i int, k []byte) bool {
	if len(probe) == 1 && probe[0].T.Kind() == exec.KInt {
		b := ks.ints[name]
		if b == nil {
			b = roaring64.New()
			ks.ints[name] = b
		}
		return !b.CheckedAdd(uint64(probe[0].I[i]))
	}
	m := ks.strs[name]
	if m == nil {
		m = map[string]struct{}{}
		ks.strs[name] = m
	}
	if _, ok := m[string(k)]; ok {
		return true
	}
	m[string(k)] = struct{}{}
	return false
}

// useIndex decides between the snapshot source's key index on column
// and a plain scan of the key columns. A Lance table's index is shared
// across versions and derived incrementally (exec/lancesrc: a commit's
// index reads only the fragments it added), so it pays off whenever it
// fits the shared cache or is already held (a large table's index kept
// in a spare slot after an earlier statement built it); another source
// builds its index per version with a full key-column scan, so a few
// keys are cheaper by scan, while a streamed COPY probes batch after
// batch and amortizes the index.
func (w *writer) useIndex(keys int, ti *tableInfo, column int) bool {
	if src, ok := ti.def.Source.(*lancesrc.Source); ok && (lancesrc.SharedIndexesFor(ti.def.Source.RowCount(), ti.def.Columns[column].Type) || src.IndexHeld(column)) {
		return true
	}
	return w.copySeen != nil || int64(keys)*64 >= ti.def.Source.RowCount()
}

// checkMinOut enforces graph.min_out when a transaction (or autocommit
// statement) is about to publish: every row of the node table an edge
// table's source column references must have at least min_out outgoing
// edges. It is deferred to the commit because a node is inserted before
// its edges. Only edge tables whose edges or source nodes changed are
// checked; both tables join the read set.
func (w *writer) checkMinOut() error {
	if w.describe {
		return nil
	}
	names := make([]string, 0, len(w.v.base.tables))
	for n := range w.v.base.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, en := range names {
		e := w.v.base.tables[en]
		if e.meta == nil || e.meta.Graph.MinOut == nil || *e.meta.Graph.MinOut <= 0 || e.meta.Graph.Source == "" {
			continue
		}
		src := slices.IndexFunc(e.def.Columns, func(c exec.ColumnDef) bool { return c.Name == e.meta.Graph.Source })
		var fk *exec.ForeignKey
		for i := range e.def.ForeignKeys {
			if len(e.def.ForeignKeys[i].Columns) == 1 && e.def.ForeignKeys[i].Columns[0] == src {
				fk = &e.def.ForeignKeys[i]
			}
		}
		if src < 0 || fk == nil {
			continue
		}
		node, ok := w.v.base.tables[fk.RefTable]
		if !ok {
			continue
		}
		if !w.v.pend.changed(en) && !w.v.pend.changed(fk.RefTable) {
			continue
		}
		ref := refColumns(node.def, *fk)
		if len(ref) != 1 {
			continue
		}
		w.v.pend.markRead(en)
		w.v.pend.markRead(fk.RefTable)
		rc, sc := quoteIdent(node.def.Columns[ref[0]].Name), quoteIdent(e.meta.Graph.Source)
		limit := *e.meta.Graph.MinOut
		rows, _, err := w.query(fmt.Sprintf("SELECT _n.%s, coalesce(_e.c, 0) FROM %s AS _n LEFT JOIN (SELECT %s AS s, count(*) AS c FROM %s GROUP BY %s) AS _e ON _e.s = _n.%s WHERE coalesce(_e.c, 0) < %d LIMIT 1",
			rc, quoteIdent(node.def.Name), sc, quoteIdent(en), sc, rc, limit))
		if err != nil {
			return err
		}
		if len(rows) < 2 || rows[0].N == 0 {
			continue
		}
		key, _ := exec.FormatText(rows[0], 0, w.s.location())
		cnt, _ := exec.FormatText(rows[1], 0, w.s.location())
		return wire.Errorf(pgerr.CheckViolation, "edge table \"%s\" violates graph.min_out = %d", en, limit).
			WithDetail(fmt.Sprintf("Source (%s)=(%s) has %s outgoing edges.", e.meta.Graph.Source, key, cnt))
	}
	return nil
}

// keepsAll reports that the running UPDATE assigns none of cols of td
// (its new rows carry the old values there).
func (w *writer) keepsAll(td *exec.TableDef, cols []int) bool {
	if w.assigned == nil || w.assignedTable != td.Name {
		return false
	}
	for _, c := range cols {
		if w.assigned[c] {
			return false
		}
	}
	return true
}

// keepsReferenced reports that the running UPDATE of ti assigns no column
// another table's foreign key references.
func (w *writer) keepsReferenced(ti *tableInfo) bool {
	if w.assigned == nil || w.assignedTable != ti.def.Name {
		return false
	}
	for _, child := range w.v.base.tables {
		for _, fk := range child.def.ForeignKeys {
			if fk.RefTable == ti.def.Name && !w.keepsAll(ti.def, refColumns(ti.def, fk)) {
				return false
			}
		}
	}
	return true
}
