package planner

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Diff kinds (graph.diff's diff_type).
const (
	diffAdded   = "added"
	diffDeleted = "deleted"
	diffUpdated = "updated"
)

// tableDiff is one table's row-level difference between two snapshots.
type tableDiff struct {
	from, to *tableInfo // nil where the table does not exist
	cols     []string   // union of both sides' columns: to's order, then from-only ones
	rows     []diffRow
}

// diffRow is one changed row: values per tableDiff.cols (nil = NULL or
// no such column on that side).
type diffRow struct {
	kind     string
	from, to []any
}

// sideRows is one side's candidate rows by key.
type sideRows struct {
	keys  []string
	byKey map[string][]any
}

// graphDiff is graph.diff(table, from, to).
func (s *session) graphDiff(ctx context.Context, table, from, to *string) (*exec.TableDef, error) {
	if table == nil {
		return nil, wire.Errorf(pgerr.NullValueNotAllowed, "graph.diff: the table name must not be NULL")
	}
	fsn, err := s.resolveRef(ctx, "graph.diff", from)
	if err != nil {
		return nil, err
	}
	tsn, err := s.resolveRef(ctx, "graph.diff", to)
	if err != nil {
		return nil, err
	}
	fe, fok := fsn.State.TableByName(*table)
	te, tok := tsn.State.TableByName(*table)
	if !fok && !tok {
		return nil, wire.Errorf(pgerr.UndefinedTable, "relation %q exists neither at %s nor at %s", *table, *from, *to)
	}
	var fp, tp *graph.TableEntry
	if fok {
		fp = &fe
	}
	if tok {
		tp = &te
	}
	d, err := s.diffTable(ctx, fp, tp, true)
	if err != nil {
		return nil, err
	}
	return d.tableDef(), nil
}

// diffTable computes the difference of one table between two entries
// (nil: absent on that side). withRows false stops after deciding the
// columns (graph.diff_summary of a table whose entry did not change).
//
// Only rows that may differ are read: when both entries are versions of
// one Lance dataset (one incarnation, any branches of it), a row live at
// an address in both versions whose fragment kept its data files is the
// same row with the same values, so the candidates are the rows each
// side has that the other does not have at the same address
// (lance.Dataset.ChangesSince, from manifests and deletion vectors alone;
// unchanged fragments are never opened). Candidates are then matched by
// primary key (by whole row for tables without one): equal on both sides
// is no change (a compaction moved it), else updated, added or deleted.
func (s *session) diffTable(ctx context.Context, fe, te *graph.TableEntry, withRows bool) (*tableDiff, error) {
	d := &tableDiff{}
	var err error
	if fe != nil {
		if d.from, err = s.tableInfoOf(ctx, *fe); err != nil {
			return nil, err
		}
	}
	if te != nil {
		if d.to, err = s.tableInfoOf(ctx, *te); err != nil {
			return nil, err
		}
	}
	for _, ti := range []*tableInfo{d.from, d.to} {
		if ti != nil && (ti.def.View != nil || ti.meta != nil && ti.meta.Relkind == ddl.RelSequence) {
			return nil, wire.Errorf(pgerr.WrongObjectType, "%q is not a table", ti.entry.Name)
		}
	}
	seen := map[string]bool{}
	for _, ti := range []*tableInfo{d.to, d.from} {
		if ti == nil {
			continue
		}
		for _, c := range ti.def.Columns {
			if !seen[c.Name] {
				seen[c.Name] = true
				d.cols = append(d.cols, c.Name)
			}
		}
	}
	if !withRows || sameVersion(fe, te) {
		return d, nil
	}
	var fromAddrs, toAddrs []uint64
	all := fe == nil || te == nil || fe.Location != te.Location
	if !all {
		fds, err := s.root.OpenTable(ctx, *fe)
		if err != nil {
			return nil, storageFailed(err, "could not open table %q at version %d", fe.Name, fe.Version)
		}
		tds, err := s.root.OpenTable(ctx, *te)
		if err != nil {
			return nil, storageFailed(err, "could not open table %q at version %d", te.Name, te.Version)
		}
		gone, err := tds.ChangesSince(ctx, fds) // from's rows not unchanged in to
		if err != nil {
			return nil, storageFailed(err, "could not compare versions of table %q", te.Name)
		}
		came, err := fds.ChangesSince(ctx, tds) // to's rows not unchanged in from
		if err != nil {
			return nil, storageFailed(err, "could not compare versions of table %q", te.Name)
		}
		fromAddrs, toAddrs = gone.Deleted, came.Deleted
	}
	key := d.keyColumns()
	fr, err := d.readSide(ctx, d.from, fromAddrs, all, key)
	if err != nil {
		return nil, err
	}
	tr, err := d.readSide(ctx, d.to, toAddrs, all, key)
	if err != nil {
		return nil, err
	}
	for _, k := range fr.keys {
		fv := fr.byKey[k]
		tv, ok := tr.byKey[k]
		switch {
		case !ok:
			d.rows = append(d.rows, diffRow{kind: diffDeleted, from: fv, to: make([]any, len(d.cols))})
		case !sameValues(fv, tv):
			d.rows = append(d.rows, diffRow{kind: diffUpdated, from: fv, to: tv})
		}
	}
	for _, k := range tr.keys {
		if _, ok := fr.byKey[k]; !ok {
			d.rows = append(d.rows, diffRow{kind: diffAdded, from: make([]any, len(d.cols)), to: tr.byKey[k]})
		}
	}
	return d, nil
}

// sameVersion: both entries pin the same version of one dataset.
func sameVersion(a, b *graph.TableEntry) bool {
	return a != nil && b != nil && a.Location == b.Location && a.Branch == b.Branch && a.Version == b.Version
}

// keyColumns are the names of the primary key both sides share (nil: the
// whole row identifies a row).
func (d *tableDiff) keyColumns() []string {
	var key []string
	for _, ti := range []*tableInfo{d.to, d.from} {
		if ti == nil {
			continue
		}
		var k []string
		for _, i := range ti.def.PrimaryKey {
			k = append(k, ti.def.Columns[i].Name)
		}
		if len(k) == 0 {
			return nil
		}
		if key != nil && strings.Join(key, "\x00") != strings.Join(k, "\x00") {
			return nil
		}
		key = k
	}
	return key
}

// readSide reads one side's candidate rows (every row when all) into
// values per d.cols, keyed by key's columns (or the whole row; equal
// whole rows of a keyless table are numbered so duplicates pair up).
func (d *tableDiff) readSide(ctx context.Context, ti *tableInfo, addrs []uint64, all bool, key []string) (*sideRows, error) {
	out := &sideRows{byKey: map[string][]any{}}
	if ti == nil || !all && len(addrs) == 0 {
		return out, nil
	}
	td := ti.def
	pos := make([]int, len(d.cols)) // d.cols index → td column (-1 none)
	for i, name := range d.cols {
		pos[i] = -1
		for j, c := range td.Columns {
			if c.Name == name {
				pos[i] = j
			}
		}
	}
	req := exec.ScanRequest{Columns: make([]int, len(td.Columns))}
	for i := range req.Columns {
		req.Columns[i] = i
	}
	dup := map[string]int{}
	emit := func(rec arrow.RecordBatch, _ []uint64) error {
		vecs := make([]*exec.Vec, len(td.Columns))
		for i, c := range td.Columns {
			v, err := exec.VecFromArrow(rec.Column(i), c.Type)
			if err != nil {
				return err
			}
			vecs[i] = v
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			vals := make([]any, len(d.cols))
			var kb strings.Builder
			for i, p := range pos {
				if p < 0 {
					continue
				}
				vals[i] = vecs[p].Datum(r)
				if key == nil || containsName(key, d.cols[i]) {
					t, ok := exec.FormatText(vecs[p], r, nil)
					if ok {
						kb.WriteString(strconv.Itoa(len(t)))
						kb.WriteByte(':')
						kb.WriteString(t)
					} else {
						kb.WriteByte('N')
					}
					kb.WriteByte(0)
				}
			}
			k := kb.String()
			if key == nil {
				dup[k]++
				k += strconv.Itoa(dup[k])
			}
			out.keys = append(out.keys, k)
			out.byKey[k] = vals
		}
		return nil
	}
	if all {
		return out, td.Source.Scan(ctx, req, emit)
	}
	src, ok := td.Source.(interface {
		ScanAddrs(context.Context, []uint64, exec.ScanRequest, func(arrow.RecordBatch, []uint64) error) error
	})
	if !ok {
		return out, td.Source.Scan(ctx, req, emit)
	}
	return out, src.ScanAddrs(ctx, addrs, req, emit)
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// sameValues compares two rows' values (of one column list) by their
// JSON forms, which are exact for every stored kind.
func sameValues(a, b []any) bool {
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) {
			return false
		}
		if a[i] == nil {
			continue
		}
		x, _ := json.Marshal(a[i])
		y, _ := json.Marshal(b[i])
		if string(x) != string(y) {
			return false
		}
	}
	return true
}

// colType is the type of column name: to's, else from's.
func (d *tableDiff) colType(name string) exec.Type {
	for _, ti := range []*tableInfo{d.to, d.from} {
		if ti == nil {
			continue
		}
		for _, c := range ti.def.Columns {
			if c.Name == name {
				return c.Type
			}
		}
	}
	return exec.TText
}

// sideType is column name's type on one side (other side's when absent).
func (d *tableDiff) sideType(ti *tableInfo, name string) exec.Type {
	if ti != nil {
		for _, c := range ti.def.Columns {
			if c.Name == name {
				return c.Type
			}
		}
	}
	return d.colType(name)
}

// tableDef is graph.diff's relation: from_<col>…, to_<col>…, diff_type.
// It carries the table's OID and definition extras, so reading it needs
// the privileges reading the table needs.
func (d *tableDiff) tableDef() *exec.TableDef {
	base := d.to
	if base == nil {
		base = d.from
	}
	td := &exec.TableDef{OID: base.def.OID, Schema: base.def.Schema, Name: base.def.Name, Owner: base.def.Owner, ACL: base.def.ACL}
	var defs []exec.ColumnDef
	var vecs []*exec.Vec
	n := len(d.rows)
	for _, side := range []string{"from", "to"} {
		ti := d.from
		if side == "to" {
			ti = d.to
		}
		for i, name := range d.cols {
			t := d.sideType(ti, name)
			v := exec.NewVec(t, n)
			for r, row := range d.rows {
				vals := row.from
				if side == "to" {
					vals = row.to
				}
				if vals[i] == nil {
					v.SetNull(r)
					continue
				}
				v.SetDatum(r, vals[i])
			}
			defs = append(defs, exec.ColumnDef{Name: side + "_" + name, Type: t})
			vecs = append(vecs, v)
		}
	}
	kinds := exec.NewVec(exec.TText, n)
	for r, row := range d.rows {
		kinds.S[r] = row.kind
	}
	defs = append(defs, exec.ColumnDef{Name: "diff_type", Type: exec.TText})
	vecs = append(vecs, kinds)
	td.Columns = defs
	td.Source = exec.MemTableFromVecs(defs, vecs)
	return td
}
