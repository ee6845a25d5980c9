package planner

import (
	"context"
	"sort"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/wire"
)

// graph.changes(since [, table]) is the change feed (docs/architecture.md,
// "Change feed"): every row change committed on the session's branch
// after the commit since, in commit order — per commit, per table (by
// name), the rows inserted, updated and deleted, each with its key and
// its old and new values as jsonb. A consumer resumes by passing the
// last commit_id it processed as since. Each commit is compared with
// the one before it in the branch's history (merges included: a merge
// commit's changes are what it changed on this branch), table by table
// through diffTable, so only the fragments a commit changed are read
// (a table rewritten into a new incarnation is compared in full, by
// key). A table's rows are paired across commits by its stable id, so
// renames and rewrites continue one table's feed. Views and sequences
// have no rows of their own and are skipped; a dropped table's rows are
// reported deleted. Reading a table's changes needs SELECT on it. The
// result is built in memory: a consumer reading a long history pages
// through it by since.

// changeRow is one row of graph.changes.
type changeRow struct {
	sn                *graph.Snapshot
	table, change     string
	key, old, current string // jsonb text ("" = NULL)
}

// tableFilter is graph.changes's table argument.
type tableFilter struct {
	name string
	id   uint64 // the head's table of that name (byID)
	byID bool
}

// changeColumns are graph.changes's columns.
var changeColumns = []exec.ColumnDef{
	{Name: "commit_id", Type: exec.TText},
	{Name: "manifest_version", Type: exec.TInt8},
	{Name: "commit_time", Type: exec.TTimestamptz},
	{Name: "table_name", Type: exec.TText},
	{Name: "change", Type: exec.TText},
	{Name: "key", Type: exec.TJSONB},
	{Name: "old", Type: exec.TJSONB},
	{Name: "new", Type: exec.TJSONB},
}

// graphChanges is graph.changes(since [, table]).
func (s *session) graphChanges(ctx context.Context, since, table *string) (*exec.TableDef, error) {
	start, err := s.resolveRef(ctx, "graph.changes", since)
	if err != nil {
		return nil, err
	}
	sns, ok, err := graphsql.CommitsSince(ctx, s.root, s.branch(), start.Commit.ID)
	if err != nil {
		return nil, storageFailed(err, "could not read the history of branch %q", s.branch())
	}
	if !ok {
		return nil, wire.Errorf(pgerr.InvalidParameterValue, "graph.changes: commit %s is not in the history of branch %q", start.Commit.ID, s.branch()).
			WithHint("Pass a commit, version or timestamp of this branch's history (graph.commits).")
	}
	pc, err := s.privileges(ctx)
	if err != nil {
		return nil, err
	}
	// a table named at the head is followed by its stable id through
	// renames and rewrites; another name is matched commit by commit
	var only *tableFilter
	if table != nil {
		only = &tableFilter{name: *table}
		if e, ok := sns[len(sns)-1].State.TableByName(*table); ok {
			only.id, only.byID = e.ID, true
		}
	}
	var rows []changeRow
	for i := 1; i < len(sns); i++ {
		rs, err := s.commitChanges(ctx, pc, sns[i-1], sns[i], only)
		if err != nil {
			return nil, err
		}
		rows = append(rows, rs...)
	}
	n := len(rows)
	vecs := make([]*exec.Vec, len(changeColumns))
	for i, c := range changeColumns {
		vecs[i] = exec.NewVec(c.Type, n)
	}
	for r, row := range rows {
		vecs[0].SetDatum(r, row.sn.Commit.ID)
		vecs[1].SetDatum(r, int64(row.sn.Version))
		vecs[2].SetDatum(r, row.sn.Commit.Time.UnixMicro())
		vecs[3].SetDatum(r, row.table)
		vecs[4].SetDatum(r, row.change)
		for c, txt := range []string{row.key, row.old, row.current} {
			if txt == "" {
				vecs[5+c].SetNull(r)
			} else {
				vecs[5+c].SetDatum(r, txt)
			}
		}
	}
	return &exec.TableDef{Schema: graphsql.Schema, Name: "changes", Columns: changeColumns, Source: exec.MemTableFromVecs(changeColumns, vecs)}, nil
}

// changedTable is one table a commit changed: its entries before and
// after (nil where absent) and its name after the commit.
type changedTable struct {
	name     string
	from, to *graph.TableEntry
}

// changedTables lists the tables (not views or sequences) whose version
// differs between prev and cur, by name, paired by stable id; pc (when
// set) must grant SELECT on each.
func (s *session) changedTables(ctx context.Context, pc *privCtx, prev, cur *graph.Snapshot, only *tableFilter) ([]*changedTable, error) {
	byID := map[uint64]*changedTable{}
	named := map[uint64]bool{} // ids that carry the filter's name on either side
	for _, side := range []*graph.Snapshot{prev, cur} {
		for _, e := range side.State.Tables {
			if e.State != graph.Live {
				continue
			}
			e := e
			p := byID[e.ID]
			if p == nil {
				p = &changedTable{}
				byID[e.ID] = p
			}
			p.name = e.Name // cur's name wins (a rename)
			if only != nil && e.Name == only.name {
				named[e.ID] = true
			}
			if side == prev {
				p.from = &e
			} else {
				p.to = &e
			}
		}
	}
	pairs := make([]*changedTable, 0, len(byID))
	for id, p := range byID {
		if sameVersion(p.from, p.to) {
			continue
		}
		if only != nil && (only.byID && id != only.id || !only.byID && !named[id]) {
			continue
		}
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].name < pairs[j].name })
	out := pairs[:0]
	for _, p := range pairs {
		skip := false
		for _, e := range []*graph.TableEntry{p.from, p.to} {
			if e == nil {
				continue
			}
			ti, err := s.tableInfoOf(ctx, *e)
			if err != nil {
				return nil, err
			}
			if ti.def.View != nil || ti.meta != nil && ti.meta.Relkind == ddl.RelSequence {
				skip = true
				break
			}
			if pc != nil {
				if err := pc.need(pc.role, ti.def, access.PrivSelect); err != nil {
					return nil, err
				}
			}
		}
		if !skip {
			out = append(out, p)
		}
	}
	return out, nil
}

// commitChanges is the row changes of one commit (cur) against the
// snapshot before it (prev), tables by name.
func (s *session) commitChanges(ctx context.Context, pc *privCtx, prev, cur *graph.Snapshot, only *tableFilter) ([]changeRow, error) {
	pairs, err := s.changedTables(ctx, pc, prev, cur, only)
	if err != nil {
		return nil, err
	}
	var out []changeRow
	for _, p := range pairs {
		d, err := s.diffTable(ctx, p.from, p.to, true)
		if err != nil {
			return nil, err
		}
		key := d.keyColumns()
		for _, r := range d.rows {
			cr := changeRow{sn: cur, table: p.name}
			switch r.kind {
			case diffAdded:
				cr.change = "insert"
			case diffDeleted:
				cr.change = "delete"
			default:
				cr.change = "update"
			}
			oldObj, newObj := d.rowObject(d.from, r.from), d.rowObject(d.to, r.to)
			if r.kind == diffAdded {
				oldObj = nil
			}
			if r.kind == diffDeleted {
				newObj = nil
			}
			if key != nil {
				src := newObj
				if src == nil {
					src = oldObj
				}
				k := map[string]any{}
				for _, c := range key {
					k[c] = src[c]
				}
				cr.key = jsonbText(k)
			}
			cr.old, cr.current = jsonbText(oldObj), jsonbText(newObj)
			out = append(out, cr)
		}
	}
	return out, nil
}

// rowObject is one side's values of a diff row as a JSON object of the
// columns that side has (nil when the table is absent there).
func (d *tableDiff) rowObject(ti *tableInfo, vals []any) map[string]any {
	if ti == nil {
		return nil
	}
	out := map[string]any{}
	for i, name := range d.cols {
		has := false
		for _, c := range ti.def.Columns {
			if c.Name == name {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		v := exec.NewVec(d.sideType(ti, name), 1)
		if vals[i] == nil {
			v.SetNull(0)
		} else {
			v.SetDatum(0, vals[i])
		}
		out[name] = jsonValue(v, 0)
	}
	return out
}
