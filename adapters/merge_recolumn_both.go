package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
)

// Tables re-columned on both branches. When both sides rewrote a table
// into a new incarnation since the merge base (ADD, DROP or RENAME
// COLUMN, a type change, TRUNCATE), the merge builds a third incarnation
// holding both sides' changes:
//
//   - its columns merge three ways by column id against the base
//     incarnation: the target's columns in its order, then the columns
//     the source added in its order; a column one side dropped is gone
//     unless the other renamed or retyped it; a rename or type change on
//     one side applies; NOT NULL merges as in merge_definition.go. Both
//     sides adding a column of the same name and type make one column;
//     the same name with different types, a column renamed or retyped
//     differently on both sides, or two columns ending with one name is a
//     schema conflict naming the columns. The SQL layer's metadata
//     (defaults, constraints, …) merges as mergeExtra does, its column
//     list then ordered as the merged columns;
//   - its rows merge three ways by primary key (the key's column ids
//     unchanged on all three sides), per column: a column only one side
//     has takes that side's value (its DEFAULT, MergeDefaults, for a row
//     the other side added), a column both have merges against the base
//     as merge_columns.go does, values of a retyped column are converted
//     (a value that does not convert is a conflict naming the row and
//     column). A row deleted on one side and changed on the other, or
//     added on both with different values, conflicts (a column not in
//     the base counts its DEFAULT as the base rows' value); 'ours' and
//     'theirs' settle a conflict with that side's row whole (its missing
//     columns their DEFAULT), as merge_recolumn.go does; a staged merge
//     ('stop') writes the merged incarnation during staging with the
//     target's row for each conflict (for a row on both sides its
//     per-column merge, the target's values where both set a column;
//     none where the target deleted it), reports the conflicts with the
//     staged rows addressed in that incarnation and the three versions
//     in its columns (a column a side lacks as its DEFAULT), and
//     PublishMerge registers that same incarnation with the session's
//     row changes applied.
//
// New column ids are random (mutation.go), so columns two branches add
// never share an id and later merges keep lining them up by id. The
// merged incarnation is written as a new dataset during Prepare (an
// abandoned attempt leaves an unregistered dataset that cleanup
// reclaims) and registered by the merge commit, the target's
// incarnation tombstoned. Cost: the three incarnations are read whole
// and the merged rows held in memory (O(table)).

// bothSides is one table's three incarnations.
type bothSides struct {
	base, src, tgt graph.TableEntry
}

// recolumnedOnBoth finds the tables the source re-incarnated since its
// base while the target re-incarnated them too, or holds an incarnation
// the source never saw (a merge of an earlier one), and merges each
// three ways into a new incarnation, the source's base incarnation the
// base (the target's base holds it, or a merge of it after an earlier
// merge of this source); a source incarnation replacing the base one the
// target left alone is a fast-forward: the target's is tombstoned (the
// source's is registered by the classification). The stable ids merged
// here are recorded in p.both.
func (p *mergePlan) recolumnedOnBoth(ctx context.Context, sb, tb *graph.Snapshot) error {
	for _, s := range p.source.State.Tables {
		if s.State != graph.Live {
			continue
		}
		bs, ok := liveEntryWithID(&sb.State, s.ID)
		if !ok {
			continue
		}
		// the source's base incarnation is the base of both sides: the
		// target's base holds it or (after an earlier merge of this
		// source) a merge of it
		bt, ok := liveEntryWithID(&tb.State, s.ID)
		if !ok {
			continue
		}
		t, ok := liveEntryWithID(&p.target.State, s.ID)
		if !ok || s.Key() == t.Key() && s.Location == t.Location {
			continue
		}
		srcNew := s.Key() != bs.Key() || s.Location != bs.Location
		tgtNew := t.Key() != bt.Key() || t.Location != bt.Location
		// the same base content on both sides (a fork point, criss-cross
		// merges); after an earlier merge of this source the target's
		// base holds a merge of the source's base instead
		sameBase := bs.Key() == bt.Key() && samePin(bs, bt)
		if !srcNew {
			continue // the existing rules (merge_recolumn.go)
		}
		if !tgtNew && sameBase {
			// (incarnation numbers allocated on two branches collide: an
			// entry is the same only at the same location)
			if e, known := p.source.State.Table(t.Key()); known && e.Location == t.Location && s.Key() != t.Key() {
				continue // the source re-columned the target's incarnation: the existing rules
			}
			if samePin(t, bt) && sameCatalog(t, bt) {
				// the target left it alone: the source's incarnation
				// replaces it (a fast-forward of the table)
				if s.Key() == t.Key() {
					return fmt.Errorf("adapters: table %q: the source's incarnation has the target's key %s", s.Name, s.Key())
				}
				p.pw.Delta.Tombstones = append(p.pw.Delta.Tombstones, t.Key())
				p.pw.ReadSet.AddTable(p.target.State, t.Key(), false)
				continue
			}
		}
		p.both[s.ID] = true
		if err := p.mergeBoth(ctx, bothSides{base: bs, src: s, tgt: t}); err != nil {
			return err
		}
	}
	return nil
}

// mergedColumn is one column of the merged incarnation and where its
// values come from on each side (-1: that side does not have it).
type mergedColumn struct {
	def      graph.ColumnDef
	b, s, t  int // index in the side's Def.Columns
	oneSided bool
	// bothAdded: added on both sides (same name and type); like a
	// one-sided column its DEFAULT is the base rows' value
	bothAdded bool
}

// mergeColumnDefs merges the three column lists by id (see above).
func (p *mergePlan) mergeColumnDefs(x bothSides) ([]mergedColumn, []string) {
	idx := func(d graph.TableDef) map[uint64]int {
		m := map[uint64]int{}
		for i, c := range d.Columns {
			m[c.ID] = i
		}
		return m
	}
	bi, si, ti := idx(x.base.Def), idx(x.src.Def), idx(x.tgt.Def)
	var out []mergedColumn
	var conflicts []string
	from, into := p.w.from, p.w.into
	three := func(b, s, t string) (string, bool) {
		switch {
		case s == b || s == t:
			return t, true
		case t == b:
			return s, true
		}
		return t, false
	}
	for _, tc := range x.tgt.Def.Columns {
		b, inB := bi[tc.ID]
		if !inB {
			out = append(out, mergedColumn{def: tc, b: -1, s: -1, t: ti[tc.ID], oneSided: true})
			continue
		}
		bc := x.base.Def.Columns[b]
		s, inS := si[tc.ID]
		if !inS {
			if tc.Name != bc.Name || tc.Type != bc.Type {
				conflicts = append(conflicts, fmt.Sprintf("column %q was dropped on %s but %s on %s", bc.Name, from, changedHow(bc, tc), into))
			}
			continue
		}
		sc := x.src.Def.Columns[s]
		m := tc
		var ok bool
		if m.Name, ok = three(bc.Name, sc.Name, tc.Name); !ok {
			conflicts = append(conflicts, fmt.Sprintf("column %q was renamed to %q on %s and to %q on %s", bc.Name, sc.Name, from, tc.Name, into))
		}
		if m.Type, ok = three(bc.Type, sc.Type, tc.Type); !ok {
			conflicts = append(conflicts, fmt.Sprintf("column %q changed type differently on both branches (%s on %s, %s on %s)",
				bc.Name, sqlTypeOf(x.src.Def, sc.Name, sc.Type), from, sqlTypeOf(x.tgt.Def, tc.Name, tc.Type), into))
		}
		if tc.Nullable == bc.Nullable {
			m.Nullable = sc.Nullable
		} else if sc.Nullable != bc.Nullable && sc.Nullable != tc.Nullable {
			conflicts = append(conflicts, fmt.Sprintf("column %q: NOT NULL changed differently", bc.Name))
		}
		out = append(out, mergedColumn{def: m, b: b, s: s, t: ti[tc.ID]})
	}
	for s, sc := range x.src.Def.Columns {
		b, inB := bi[sc.ID]
		if inB {
			if _, inT := ti[sc.ID]; !inT {
				bc := x.base.Def.Columns[b]
				if sc.Name != bc.Name || sc.Type != bc.Type {
					conflicts = append(conflicts, fmt.Sprintf("column %q was dropped on %s but %s on %s", bc.Name, into, changedHow(bc, sc), from))
				}
			}
			continue
		}
		// added on the source: one column with a target column of the
		// same name and type added there too
		merged := false
		for i := range out {
			if out[i].def.Name != sc.Name {
				continue
			}
			if out[i].b < 0 && out[i].s < 0 && out[i].def.Type == sc.Type {
				out[i].s, out[i].oneSided, out[i].bothAdded, merged = s, false, true, true
				break
			}
			if out[i].b < 0 && out[i].s < 0 {
				conflicts = append(conflicts, fmt.Sprintf("column %q was added on both branches with different types (%s on %s, %s on %s)",
					sc.Name, sqlTypeOf(x.src.Def, sc.Name, sc.Type), from, sqlTypeOf(x.tgt.Def, out[i].def.Name, out[i].def.Type), into))
				merged = true
			}
		}
		if merged {
			continue
		}
		mc := mergedColumn{def: sc, b: -1, s: s, t: -1, oneSided: true}
		if _, clash := ti[sc.ID]; clash {
			mc.def.ID = freshColumnID() // a legacy counter id the target used for another column
		}
		out = append(out, mc)
	}
	names := map[string]int{}
	for _, c := range out {
		names[c.def.Name]++
	}
	var dup []string
	for n, k := range names {
		if k > 1 {
			dup = append(dup, n)
		}
	}
	sort.Strings(dup)
	for _, n := range dup {
		conflicts = append(conflicts, fmt.Sprintf("two different columns are named %q after merging (one from each branch)", n))
	}
	return out, conflicts
}

// changedHow says how column a became b, in SQL terms.
func changedHow(a, b graph.ColumnDef) string {
	if a.Name != b.Name {
		return fmt.Sprintf("renamed to %q", b.Name)
	}
	return "retyped"
}

// sqlTypeOf is the SQL type of column name in d's metadata (the storage
// type when the metadata does not say).
func sqlTypeOf(d graph.TableDef, name, storage string) string {
	var m struct {
		Columns []struct {
			Name string          `json:"name"`
			Type json.RawMessage `json:"type"`
		} `json:"columns"`
	}
	if json.Unmarshal(d.Extra, &m) == nil {
		for _, c := range m.Columns {
			if c.Name != name {
				continue
			}
			var t struct {
				SQL string `json:"sql"`
			}
			if json.Unmarshal(c.Type, &t) == nil && t.SQL != "" {
				return t.SQL
			}
		}
	}
	return storage
}

// orderExtraColumns orders the metadata's column list as cols (the SQL
// layer pairs them by position).
func orderExtraColumns(extra json.RawMessage, cols []graph.ColumnDef) (json.RawMessage, error) {
	if len(extra) == 0 {
		return extra, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(extra, &m); err != nil {
		return nil, err
	}
	raw, ok := m["columns"]
	if !ok {
		return extra, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	byName := map[string]json.RawMessage{}
	for _, e := range list {
		var n struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(e, &n); err != nil {
			return nil, err
		}
		byName[n.Name] = e
	}
	out := make([]json.RawMessage, 0, len(cols))
	for _, c := range cols {
		e, ok := byName[c.Name]
		if !ok {
			return nil, fmt.Errorf("column %q has no metadata", c.Name)
		}
		out = append(out, e)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	m["columns"] = b
	return json.Marshal(m)
}

// mergeBoth merges one table re-columned on both sides into a new
// incarnation (see above).
func (p *mergePlan) mergeBoth(ctx context.Context, x bothSides) error {
	name := x.tgt.Name
	if p.w.rows != nil {
		// publishing a staged merge: the incarnation staging wrote, the
		// session's rows applied to it (publishRows)
		e, ok := p.w.stagedBoth[x.tgt.ID]
		if !ok {
			return fmt.Errorf("adapters: table %q re-columned on both sides has no staged incarnation", name)
		}
		p.registerBoth(x, e)
		return nil
	}
	var conflicts []string
	merged := x.tgt
	switch {
	case x.src.Name == x.base.Name || x.src.Name == x.tgt.Name:
	case x.tgt.Name == x.base.Name:
		merged.Name = x.src.Name
	default:
		conflicts = append(conflicts, fmt.Sprintf("the table was renamed to %q on %s and to %q on %s", x.src.Name, p.w.from, x.tgt.Name, p.w.into))
	}
	if x.src.Kind != x.tgt.Kind && x.tgt.Kind == x.base.Kind {
		merged.Kind = x.src.Kind
	} else if x.src.Kind != x.tgt.Kind && x.src.Kind != x.base.Kind {
		conflicts = append(conflicts, "its kind changed on both branches")
	}
	cols, cs := p.mergeColumnDefs(x)
	conflicts = append(conflicts, cs...)
	// the primary key: the same column ids on all three sides
	pkIDs := func(d graph.TableDef) []uint64 {
		var out []uint64
		for _, n := range d.PrimaryKey {
			for _, c := range d.Columns {
				if c.Name == n {
					out = append(out, c.ID)
				}
			}
		}
		return out
	}
	bk, sk, tk := pkIDs(x.base.Def), pkIDs(x.src.Def), pkIDs(x.tgt.Def)
	if len(bk) == 0 || len(tk) == 0 || len(sk) == 0 {
		p.unsupported = append(p.unsupported, MergeConflict{Table: name, Reason: fmt.Sprintf(
			"re-columned on both %s and %s, and the table has no primary key to line its rows up by (row addresses do not survive a rewrite, and values differ in each side's columns): merging its rows", p.w.from, p.w.into)})
		p.unsupportedHints = append(p.unsupportedHints, fmt.Sprintf("Re-column %q on one branch only (merged by value then), or give it a primary key before branching", name))
		return nil
	}
	if fmt.Sprint(bk) != fmt.Sprint(sk) || fmt.Sprint(bk) != fmt.Sprint(tk) {
		conflicts = append(conflicts, "its primary key changed on one branch while both re-columned it")
	}
	extra, ecs, err := mergeExtra(x.base.Def.Extra, x.src.Def.Extra, x.tgt.Def.Extra)
	if err != nil {
		conflicts = append(conflicts, "its definitions cannot be read: "+err.Error())
	}
	for _, c := range ecs {
		// a column's metadata both changed differently is reported
		// above when its definition conflicts
		if q := strings.Index(c, `" (`); strings.HasPrefix(c, `column "`) && q > 0 && strings.Contains(strings.Join(cs, "\n"), c[:q+1]) {
			continue
		}
		conflicts = append(conflicts, c)
	}
	if len(conflicts) > 0 {
		p.conflict(name, "re-columned on both branches (on %s %s; on %s %s): %s", p.w.from, defChange(x.base, x.src),
			p.w.into, defChange(x.base, x.tgt), strings.Join(conflicts, "; "))
		return nil
	}
	def := graph.TableDef{PrimaryKey: append([]string(nil), x.tgt.Def.PrimaryKey...)}
	for _, c := range cols {
		def.Columns = append(def.Columns, c.def)
	}
	for i, n := range def.PrimaryKey {
		for _, c := range cols {
			if c.t >= 0 && x.tgt.Def.Columns[c.t].Name == n {
				def.PrimaryKey[i] = c.def.Name
			}
		}
	}
	if def.Extra, err = orderExtraColumns(extra, def.Columns); err != nil {
		p.conflict(name, "re-columned on both branches: its merged definition cannot be built: %v", err)
		return nil
	}
	if err := checkDef(name, def); err != nil {
		return err
	}
	merged.Def = def
	return p.mergeBothRows(ctx, x, merged, cols)
}

// sideRows reads one incarnation whole into per-key rows of the merged
// schema: per merged column a one-value array (nil where the side lacks
// the column). bad lists values that do not convert.
//
// extras are lists of e's column indexes whose values per row are also
// returned as text (columns the merged incarnation lacks: their changes
// still count when a row deleted on the other side is compared).
func (p *mergePlan) sideRows(ctx context.Context, e graph.TableEntry, cols []mergedColumn, which func(mergedColumn) int, to *arrow.Schema, pk []int, extras ...[]int) (map[string][]arrow.Array, []map[string]string, []string, error) {
	ds, err := p.w.g.openPin(ctx, pinOf(e))
	if err != nil {
		return nil, nil, nil, err
	}
	extraPos := make([][]int, len(extras))
	extraOut := make([]map[string]string, len(extras))
	for x, list := range extras {
		extraOut[x] = map[string]string{}
		for _, i := range list {
			ix := ds.Schema().FieldIndices(e.Def.Columns[i].Name)
			if len(ix) != 1 {
				return nil, nil, nil, fmt.Errorf("adapters: column %q of %q not in its dataset", e.Def.Columns[i].Name, e.Name)
			}
			extraPos[x] = append(extraPos[x], ix[0])
		}
	}
	pos := make([]int, len(cols))
	for j, c := range cols {
		pos[j] = -1
		if i := which(c); i >= 0 {
			ix := ds.Schema().FieldIndices(e.Def.Columns[i].Name)
			if len(ix) != 1 {
				return nil, nil, nil, fmt.Errorf("adapters: column %q of %q not in its dataset", e.Def.Columns[i].Name, e.Name)
			}
			pos[j] = ix[0]
		}
	}
	out := map[string][]arrow.Array{}
	var bad []string
	err = forEachRow(ctx, ds, lance.ScanOptions{}, func(rec arrow.RecordBatch, i int, _ uint64) error {
		row := make([]arrow.Array, len(cols))
		for j, c := range pos {
			if c < 0 {
				continue
			}
			a := array.NewSlice(rec.Column(c), int64(i), int64(i+1))
			if ft := to.Field(j).Type; !arrow.TypeEqual(a.DataType(), ft) {
				cv, ok := castOne(a, ft)
				a.Release()
				if !ok {
					bad = append(bad, fmt.Sprintf("a value of column %q on %s does not convert to its merged type", cols[j].def.Name, e.Name))
					cv = array.MakeArrayOfNull(memory.DefaultAllocator, ft, 1)
				}
				a = cv
			}
			row[j] = a
		}
		k := valuesKey(row, pk)
		out[k] = row
		for x, ps := range extraPos {
			if len(ps) > 0 { // (rowKey of no columns is every column's)
				extraOut[x][k] = rowKey(rec, i, ps)
			}
		}
		return nil
	})
	return out, extraOut, bad, err
}

// droppedByOther lists, for side (its definition d), the indexes of its
// columns that are in the base but not merged (the other side dropped
// them), and the same columns' indexes in the base.
func droppedByOther(base, d graph.TableDef, cols []mergedColumn) (side, inBase []int) {
	merged := map[uint64]bool{}
	for _, c := range cols {
		merged[c.def.ID] = true
	}
	for i, c := range d.Columns {
		if merged[c.ID] {
			continue
		}
		for b, bc := range base.Columns {
			if bc.ID == c.ID {
				side, inBase = append(side, i), append(inBase, b)
			}
		}
	}
	return side, inBase
}

// valuesKey encodes the values of row at cols (nil: every column
// present).
func valuesKey(row []arrow.Array, cols []int) string {
	var b strings.Builder
	add := func(a arrow.Array) {
		switch {
		case a == nil:
			b.WriteString("\x00A")
		case a.IsNull(0):
			b.WriteString("\x00N")
		default:
			v := a.ValueStr(0)
			fmt.Fprintf(&b, "\x01%d:%s", len(v), v)
		}
	}
	if cols == nil {
		for _, a := range row {
			add(a)
		}
	} else {
		for _, c := range cols {
			add(row[c])
		}
	}
	return b.String()
}

func valueEq(a, b arrow.Array) bool {
	return valuesKey([]arrow.Array{a}, nil) == valuesKey([]arrow.Array{b}, nil)
}

// mergeBothRows merges the three incarnations' rows into merged (the new
// incarnation's entry, columns cols), writes it and registers it.
func (p *mergePlan) mergeBothRows(ctx context.Context, x bothSides, merged graph.TableEntry, cols []mergedColumn) error {
	name := merged.Name
	to, err := physicalSchema(merged.Def)
	if err != nil {
		return err
	}
	var pk []int
	for _, n := range merged.Def.PrimaryKey {
		for j, c := range cols {
			if c.def.Name == n {
				pk = append(pk, j)
			}
		}
	}
	sDrop, bsDrop := droppedByOther(x.base.Def, x.src.Def, cols)
	tDrop, btDrop := droppedByOther(x.base.Def, x.tgt.Def, cols)
	baseRows, baseExtra, _, err := p.sideRows(ctx, x.base, cols, func(c mergedColumn) int { return c.b }, to, pk, bsDrop, btDrop)
	if err != nil {
		return err
	}
	srcRows, srcExtra, sbad, err := p.sideRows(ctx, x.src, cols, func(c mergedColumn) int { return c.s }, to, pk, sDrop)
	if err != nil {
		return err
	}
	tgtRows, tgtExtra, tbad, err := p.sideRows(ctx, x.tgt, cols, func(c mergedColumn) int { return c.t }, to, pk, tDrop)
	if err != nil {
		return err
	}
	if bad := append(sbad, tbad...); len(bad) > 0 {
		p.conflict(name, "re-columned on both branches: %s", bad[0])
		return nil
	}
	// defaults of the one-sided columns, for rows the other side added
	var defaults []arrow.Array
	needDefaults := func() error {
		if defaults != nil {
			return nil
		}
		defaults = make([]arrow.Array, len(cols))
		var want []int
		for j, c := range cols {
			if c.oneSided || c.bothAdded {
				want = append(want, j)
			}
		}
		var got []arrow.Array
		if f, ok := mergeDefaults.Load(p.w.g); ok && len(want) > 0 {
			var err error
			if got, err = f.(MergeDefaults)(ctx, p.target, merged, want); err != nil {
				return err
			}
		}
		for i, j := range want {
			if i < len(got) && got[i] != nil && got[i].Len() == 1 && arrow.TypeEqual(got[i].DataType(), to.Field(j).Type) {
				defaults[j] = got[i]
				continue
			}
			defaults[j] = array.MakeArrayOfNull(memory.DefaultAllocator, to.Field(j).Type, 1)
		}
		return nil
	}
	keys := map[string]bool{}
	for _, m := range []map[string][]arrow.Array{baseRows, srcRows, tgtRows} {
		for k := range m {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	ours, theirs := p.w.strategy == MergeOurs, p.w.strategy == MergeTheirs
	// a staged merge ('stop') keeps conflicting rows as RowConflicts
	stage := p.w.staging
	var staged []bothConflict
	var conflicts []string
	var out [][]arrow.Array
	keyText := func(row []arrow.Array) string {
		var ns, vs []string
		for _, j := range pk {
			ns = append(ns, cols[j].def.Name)
			if row[j].IsNull(0) {
				vs = append(vs, "NULL")
			} else {
				vs = append(vs, row[j].ValueStr(0))
			}
		}
		return "(" + strings.Join(ns, ", ") + ")=(" + strings.Join(vs, ", ") + ")"
	}
	// fill completes a one-sided row with the other side's columns'
	// defaults
	fill := func(row []arrow.Array) ([]arrow.Array, error) {
		r := append([]arrow.Array(nil), row...)
		for j := range r {
			if r[j] == nil {
				if err := needDefaults(); err != nil {
					return nil, err
				}
				r[j] = defaults[j]
			}
		}
		return r, nil
	}
	// unchanged: a side's row equals the base on the columns it has (a
	// column not in the base: its DEFAULT, the value the side's ALTER
	// gave the base rows)
	unchanged := func(b, r []arrow.Array) bool {
		for j := range r {
			if r[j] != nil && !valueEq(b[j], r[j]) {
				return false
			}
		}
		return true
	}
	for _, k := range sorted {
		b, s, t := baseRows[k], srcRows[k], tgtRows[k]
		if s == nil && t == nil {
			continue
		}
		if b != nil {
			if b, err = fill(b); err != nil {
				return err
			}
		}
		var row []arrow.Array
		var badCols []int
		conflict := ""
		switch {
		case b != nil && s == nil: // deleted on the source
			if unchanged(b, t) && tgtExtra[0][k] == baseExtra[1][k] {
				continue
			}
			conflict, row = fmt.Sprintf("deleted on %s but changed on %s", p.w.from, p.w.into), t
		case b != nil && t == nil: // deleted on the target
			if unchanged(b, s) && srcExtra[0][k] == baseExtra[0][k] {
				continue
			}
			conflict, row = fmt.Sprintf("updated on %s but deleted on %s", p.w.from, p.w.into), s
		case s == nil:
			row = t
		case t == nil:
			row = s
		default: // on both sides: merged column by column
			row = make([]arrow.Array, len(cols))
			var bad []string
			for j := range cols {
				sv, tv := s[j], t[j]
				var bv arrow.Array
				if b != nil {
					bv = b[j]
				}
				switch {
				case sv == nil:
					row[j] = tv
				case tv == nil:
					row[j] = sv
				case valueEq(sv, tv):
					row[j] = tv
				case bv != nil && valueEq(sv, bv):
					row[j] = tv
				case bv != nil && valueEq(tv, bv):
					row[j] = sv
				default:
					row[j] = tv
					bad = append(bad, fmt.Sprintf("%q", cols[j].def.Name))
					badCols = append(badCols, j)
				}
			}
			if len(bad) > 0 {
				if b == nil {
					conflict = "added on both branches with different values"
				} else {
					conflict = fmt.Sprintf("column %s set differently on both branches", strings.Join(bad, ", "))
				}
			}
		}
		if conflict != "" {
			// a strategy takes one side's row whole (its missing columns
			// their DEFAULT), as merge_recolumn.go's rows
			switch {
			case ours:
				row = t
			case theirs:
				row = s
			case stage:
				// the staged row: the target's (none where it deleted
				// the row), for a row on both sides its per-column merge
				// with the target's values where both set a column
				bc := bothConflict{key: k, base: b, ours: t, theirs: s, staged: -1, cols: badCols}
				if t == nil {
					row = nil
				} else {
					bc.staged = len(out)
				}
				if s == nil || t == nil {
					bc.cols = nil
					for j := range cols {
						bc.cols = append(bc.cols, j)
					}
				}
				staged = append(staged, bc)
			default:
				conflicts = append(conflicts, fmt.Sprintf("row %s: %s", keyText(row), conflict))
				continue
			}
			if row == nil {
				continue
			}
		}
		if row, err = fill(row); err != nil {
			return err
		}
		out = append(out, row)
	}
	if len(conflicts) > 0 {
		more := ""
		if len(conflicts) > 3 {
			more = fmt.Sprintf(" (and %d more rows)", len(conflicts)-3)
			conflicts = conflicts[:3]
		}
		p.conflict(name, "re-columned on both branches, rows changed on both: %s%s", strings.Join(conflicts, "; "), more)
		return nil
	}
	rec, err := rowsRecord(to, out)
	if err != nil {
		return err
	}
	defer rec.Release()
	// the new incarnation: a fresh key above both sides' allocators
	next := max(p.source.State.Schema.NextID, p.target.State.Schema.NextID, p.pw.Delta.NextID)
	merged.Incarnation = next
	p.pw.Delta.NextID = next + 1
	merged.Location = datasetLocation(merged.Key(), uuid.NewString())
	merged.Branch, merged.State, merged.Txn, merged.Epoch = "", graph.Live, "", 0
	rdr, err := array.NewRecordReader(to, []arrow.RecordBatch{rec})
	if err != nil {
		return err
	}
	defer rdr.Release()
	ds, err := lance.Create(ctx, p.w.g.Root.Store(), merged.Location, rdr, p.w.g.Root.DatasetOptions(merged.Location, "", 0))
	if err != nil {
		return wrapStageErr(name, err)
	}
	merged.Version, merged.RowCount = ds.Version(), ds.CountRows()
	p.registerBoth(x, merged)
	if len(staged) > 0 {
		return p.stageBothConflicts(ctx, merged, ds, to, pk, cols, staged, fill)
	}
	return nil
}

// registerBoth registers e, the merged incarnation of a table
// re-columned on both sides, in place of the target's.
func (p *mergePlan) registerBoth(x bothSides, e graph.TableEntry) {
	p.pw.Delta.Tombstones = append(p.pw.Delta.Tombstones, x.tgt.Key())
	p.pw.ReadSet.AddTable(p.target.State, x.tgt.Key(), false)
	p.pw.Delta.Registrations = append(p.pw.Delta.Registrations, e)
	p.pw.Delta.NextID = max(p.pw.Delta.NextID, e.Incarnation+1)
	p.bothEntries[x.tgt.ID] = e
	p.rows[e.Key()] = &MergedRows{}
}

// bothConflict is one row conflict of a staged merge of a table
// re-columned on both sides: its key, the three sides' rows in the
// merged columns (nil: no row; a column the side lacks nil), the
// position among the merged rows of its staged row (-1: none, the
// target deleted it) and the conflicting columns.
type bothConflict struct {
	key                string
	base, ours, theirs []arrow.Array
	staged             int
	cols               []int
}

// stageBothConflicts reports a staged merge's row conflicts of a table
// re-columned on both sides: the staged rows live in the merged
// incarnation ds (written like an unstaged merge's), so each conflict's
// staged row is addressed there (RowConflict.OursAddr); its base, ours
// and theirs versions are shown in the merged columns, a column a side
// lacks as its DEFAULT (the value that side's rows take in the merge).
func (p *mergePlan) stageBothConflicts(ctx context.Context, merged graph.TableEntry, ds *lance.Dataset, to *arrow.Schema, pk []int,
	cols []mergedColumn, staged []bothConflict, fill func([]arrow.Array) ([]arrow.Array, error)) error {
	want := map[string]bool{}
	for _, c := range staged {
		if c.staged >= 0 {
			want[c.key] = true
		}
	}
	addrOf := map[string]uint64{}
	if len(want) > 0 {
		if err := forEachRow(ctx, ds, lance.ScanOptions{}, func(rec arrow.RecordBatch, i int, addr uint64) error {
			key := make([]arrow.Array, len(cols))
			for _, j := range pk {
				key[j] = array.NewSlice(rec.Column(j), int64(i), int64(i+1))
			}
			if k := valuesKey(key, pk); want[k] {
				addrOf[k] = addr
			}
			for _, j := range pk {
				key[j].Release()
			}
			return nil
		}); err != nil {
			return err
		}
	}
	record := func(row []arrow.Array) (arrow.RecordBatch, error) {
		if row == nil {
			return nil, nil
		}
		r, err := fill(row)
		if err != nil {
			return nil, err
		}
		return rowsRecord(to, [][]arrow.Array{r})
	}
	for _, c := range staged {
		rc := RowConflict{Table: merged.Name, Columns: c.cols, StagedRow: -1}
		var err error
		if rc.Base, err = record(c.base); err != nil {
			return err
		}
		if rc.Ours, err = record(c.ours); err != nil {
			return err
		}
		if rc.Theirs, err = record(c.theirs); err != nil {
			return err
		}
		if c.staged >= 0 {
			a, ok := addrOf[c.key]
			if !ok {
				return fmt.Errorf("adapters: staged row of a conflict on %q missing from its merged incarnation", merged.Name)
			}
			rc.OursAddr = a
		}
		p.rowConflicts = append(p.rowConflicts, rc)
	}
	return nil
}

// rowsRecord builds one record of schema s from rows of one-value arrays.
func rowsRecord(s *arrow.Schema, rows [][]arrow.Array) (arrow.RecordBatch, error) {
	arrs := make([]arrow.Array, len(s.Fields()))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for c := range arrs {
		if len(rows) == 0 {
			arrs[c] = array.MakeArrayOfNull(memory.DefaultAllocator, s.Field(c).Type, 0)
			continue
		}
		parts := make([]arrow.Array, len(rows))
		for i, r := range rows {
			parts[i] = r[c]
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		arrs[c] = a
	}
	return array.NewRecordBatch(s, arrs, int64(len(rows))), nil
}
