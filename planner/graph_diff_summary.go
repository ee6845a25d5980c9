package planner

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/planner/ddl"
)

// graphDiffSummary is graph.diff_summary(from, to): one row per table
// that differs between the two snapshots, matched by stable table id (a
// renamed table is one row, "renamed"): its names on both sides, what
// happened (added, dropped, renamed, modified), the rows added, deleted
// and updated (graph.diff's counts) and whether its definition changed.
// A table whose entry pins the same version on both sides is skipped
// without reading anything.
func (s *session) graphDiffSummary(ctx context.Context, from, to *string) (*exec.TableDef, error) {
	fsn, err := s.resolveRef(ctx, "graph.diff_summary", from)
	if err != nil {
		return nil, err
	}
	tsn, err := s.resolveRef(ctx, "graph.diff_summary", to)
	if err != nil {
		return nil, err
	}
	type pair struct{ f, t *graph.TableEntry }
	byID := map[uint64]*pair{}
	var ids []uint64
	add := func(st graph.State, to bool) {
		for i := range st.Tables {
			e := st.Tables[i]
			if e.State != graph.Live {
				continue
			}
			if m, err := ddl.DecodeMeta(e.Name, e.Def); err == nil && (m.Relkind == ddl.RelSequence || m.Relkind == ddl.RelView) {
				continue
			}
			p := byID[e.ID]
			if p == nil {
				p = &pair{}
				byID[e.ID] = p
				ids = append(ids, e.ID)
			}
			if to {
				p.t = &e
			} else {
				p.f = &e
			}
		}
	}
	add(fsn.State, false)
	add(tsn.State, true)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	type row struct {
		name, fromName, toName, kind string
		added, deleted, updated      int64
		schema                       bool
	}
	var rows []row
	for _, id := range ids {
		p := byID[id]
		if sameVersion(p.f, p.t) && sameDef(p.f, p.t) && p.f.Name == p.t.Name {
			continue
		}
		d, err := s.diffTable(ctx, p.f, p.t, true)
		if err != nil {
			return nil, err
		}
		r := row{schema: !sameDef(p.f, p.t)}
		for _, dr := range d.rows {
			switch dr.kind {
			case diffAdded:
				r.added++
			case diffDeleted:
				r.deleted++
			default:
				r.updated++
			}
		}
		switch {
		case p.f == nil:
			r.kind, r.name, r.toName = "added", p.t.Name, p.t.Name
		case p.t == nil:
			r.kind, r.name, r.fromName = "dropped", p.f.Name, p.f.Name
		default:
			r.fromName, r.toName, r.name = p.f.Name, p.t.Name, p.t.Name
			r.kind = "modified"
			if p.f.Name != p.t.Name {
				r.kind = "renamed"
			} else if r.added+r.deleted+r.updated == 0 && !r.schema {
				continue // moved (compacted) without a change
			}
		}
		rows = append(rows, r)
	}
	defs := []exec.ColumnDef{
		{Name: "table_name", Type: exec.TText}, {Name: "from_table_name", Type: exec.TText}, {Name: "to_table_name", Type: exec.TText},
		{Name: "diff_type", Type: exec.TText}, {Name: "rows_added", Type: exec.TInt8}, {Name: "rows_deleted", Type: exec.TInt8},
		{Name: "rows_updated", Type: exec.TInt8}, {Name: "schema_change", Type: exec.TBool},
	}
	vecs := make([]*exec.Vec, len(defs))
	for i, c := range defs {
		vecs[i] = exec.NewVec(c.Type, len(rows))
	}
	text := func(v *exec.Vec, i int, s string) {
		if s == "" {
			v.SetNull(i)
			return
		}
		v.S[i] = s
	}
	for i, r := range rows {
		text(vecs[0], i, r.name)
		text(vecs[1], i, r.fromName)
		text(vecs[2], i, r.toName)
		vecs[3].S[i] = r.kind
		vecs[4].I[i], vecs[5].I[i], vecs[6].I[i] = r.added, r.deleted, r.updated
		vecs[7].B[i] = r.schema
	}
	return &exec.TableDef{Schema: "graph", Name: "diff_summary", Columns: defs, Source: exec.MemTableFromVecs(defs, vecs)}, nil
}

// sameDef: both entries exist with the same definition.
func sameDef(a, b *graph.TableEntry) bool {
	if a == nil || b == nil {
		return false
	}
	x, _ := json.Marshal(a.Def)
	y, _ := json.Marshal(b.Def)
	return string(x) == string(y)
}
