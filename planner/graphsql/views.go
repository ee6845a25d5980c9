package graphsql

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/recovery"
)

// Schema is the SQL schema of the graph views and procedures.
const Schema = "graph"

// View names.
const (
	ViewCommits  = "commits"
	ViewBranches = "branches"
	ViewTables   = "tables"
	ViewRecovery = "recovery"
	ViewAudit    = "audit"
	// ViewConflicts is the rows of a merge staged in the session's
	// transaction (conflicts.go); empty everywhere else.
	ViewConflicts = "conflicts"
)

// View OIDs: fixed, below the first user OID (16384, where table OIDs
// derived from stable table ids start) and clear of the executor's
// namespace OIDs (16000+).
const (
	oidCommits uint32 = 16200 + iota
	oidBranches
	oidTables
	oidRecovery
	oidAudit
	oidConflicts
)

// Tables returns the graph schema's views for a session on branch: they
// read the branch head when scanned (a catalog built once stays current
// as the head moves). Building them does no I/O; ctx is for symmetry with
// the executor's catalog builders.
func Tables(_ context.Context, g *adapters.Graph, branch string) ([]*exec.TableDef, error) {
	return views(g, branch, nil), nil
}

// TablesAsOf returns the views for a read-only session pinned to sn
// (SET graph.as_of): graph.commits lists sn's history and graph.tables
// sn's tables; branches, recovery and audit are global and current.
func TablesAsOf(_ context.Context, g *adapters.Graph, sn *graph.Snapshot) ([]*exec.TableDef, error) {
	return views(g, sn.Branch, sn), nil
}

func views(g *adapters.Graph, branch string, at *graph.Snapshot) []*exec.TableDef {
	if branch == "" {
		branch = graph.MainBranch
	}
	// in name order, as catalogs list relations
	return []*exec.TableDef{
		auditView(g).tableDef(oidAudit, ViewAudit, "recovery decisions, oldest first"),
		branchesView(g).tableDef(oidBranches, ViewBranches, "graph branches"),
		commitsView(g, branch, at).tableDef(oidCommits, ViewCommits, "graph commits reachable from the branch head, newest first"),
		ConflictsTable(nil),
		progressView().tableDef(oidProgress, ViewProgress, "long operations running in this process (COPY, merge, cleanup, optimize)"),
		recoveryView(g).tableDef(oidRecovery, ViewRecovery, "pending recovery intents"),
		tableStorageView(g, branch, at).tableDef(oidTableStorage, ViewTableStorage, "each table's fragments, data files and bytes at its pinned version"),
		tablesView(g, branch, at).tableDef(oidTables, ViewTables, "tables registered in the snapshot's manifest"),
	}
}

// commitRow is one graph commit with where it was published.
type commitRow struct {
	c       graph.Commit
	branch  string
	version uint64
}

func commitsView(g *adapters.Graph, branch string, at *graph.Snapshot) *viewSource[commitRow] {
	return &viewSource[commitRow]{
		cols: []viewCol[commitRow]{
			textCol("id", func(r commitRow) any { return r.c.ID }),
			textCol("parent", func(r commitRow) any { return nullIfEmpty(r.c.Parent) }),
			textCol("merged_parent", func(r commitRow) any { return nullIfEmpty(r.c.MergedParent) }),
			textCol("branch", func(r commitRow) any { return r.branch }),
			int8Col("manifest_version", func(r commitRow) any { return r.version }),
			textCol("actor", func(r commitRow) any { return nullIfEmpty(r.c.Actor) }),
			textCol("message", func(r commitRow) any { return nullIfEmpty(r.c.Message) }),
			timeCol("time", func(r commitRow) any { return nullIfZeroTime(r.c.Time) }),
			textCol("writer_kind", func(r commitRow) any { return nullIfEmpty(r.c.WriterKind) }),
			textCol("recovery", func(r commitRow) any { return nullIfEmpty(r.c.Recovery) }),
			textCol("operation_id", func(r commitRow) any { return nullIfEmpty(r.c.OperationID) }),
			textCol("application_name", func(r commitRow) any { return nullIfEmpty(r.c.Application) }),
			textCol("client_addr", func(r commitRow) any { return nullIfEmpty(r.c.Client) }),
			textCol("process", func(r commitRow) any { return nullIfEmpty(r.c.Process) }),
			// parents: the parent, then a merge's merged source head (two
			// parents for a merge commit, none for the root)
			{name: "parents", typ: textArray, get: func(r commitRow) any { return commitParents(r.c) }},
		},
		estimate:  1000,
		firstPage: 4,
		rows: func(ctx context.Context, filters []exec.ScanFilter, yield func(commitRow) error) error {
			start, from := branch, at
			if at != nil {
				start = at.Branch
			}
			lo, hi, empty := versionBounds(filters, commitsVersionColumn)
			if empty {
				return nil
			}
			if hi > 0 && (from == nil || hi < from.Version) {
				// start below the head: one lookup, not a walk
				sn, head, ok, err := snapshotAtVersion(ctx, g.Root, start, hi)
				if err != nil {
					return sqlError("reading graph.commits", start, err)
				}
				if ok && (from != nil || hi < head.Version) {
					from, start = sn, sn.Branch
				} else if !ok && (head == nil || hi < head.Version) {
					return nil // reclaimed or version 0: nothing at or below it
				}
			}
			l, err := newLineage(ctx, g.Root, start, from)
			if err != nil {
				return sqlError("reading graph.commits", start, err)
			}
			for {
				sn, b, err := l.Next(ctx)
				if err != nil {
					return sqlError("reading graph.commits", b, err)
				}
				if sn == nil || sn.Version < lo {
					return nil // versions only decrease along the lineage
				}
				// a group commit lists each member transaction, newest first
				rows := sn.Commit.Rows()
				for i := len(rows) - 1; i >= 0; i-- {
					if err := yield(commitRow{c: rows[i], branch: b, version: sn.Version}); err != nil {
						return err // the executor's stop signal passes unchanged
					}
				}
			}
		},
	}
}

// textArray is text[].
var textArray, _ = exec.ArrayOf(exec.TText)

// commitParents is a commit's parents as a text[] value.
func commitParents(c graph.Commit) *exec.Array {
	var ps []string
	for _, p := range []string{c.Parent, c.MergedParent} {
		if p != "" {
			ps = append(ps, p)
		}
	}
	items := exec.NewVec(exec.TText, len(ps))
	copy(items.S, ps)
	return &exec.Array{Elem: exec.TText, Items: items}
}

// commitsVersionColumn is graph.commits.manifest_version's index.
const commitsVersionColumn = 4

// versionBounds reads the scan's hints on an int8 version column into an
// inclusive range [lo, hi] (hi 0 = unbounded); empty when no version can
// match (a comparison with NULL, or contradictory bounds).
func versionBounds(filters []exec.ScanFilter, col int) (lo, hi uint64, empty bool) {
	for _, f := range filters {
		if f.Column != col || f.Value == nil || f.Value.N != 1 || f.Value.I == nil {
			continue
		}
		if f.Value.IsNull(0) {
			return 0, 0, true
		}
		v := f.Value.I[0]
		lower := func(x int64) {
			if x > int64(lo) {
				lo = uint64(x)
			}
		}
		upper := func(x int64) {
			if x < 1 {
				empty = true
			} else if hi == 0 || uint64(x) < hi {
				hi = uint64(x)
			}
		}
		switch f.Op {
		case "=":
			lower(v)
			upper(v)
		case "<":
			upper(v - 1)
		case "<=":
			upper(v)
		case ">":
			lower(v + 1)
		case ">=":
			lower(v)
		}
	}
	if hi > 0 && lo > hi {
		empty = true
	}
	return lo, hi, empty
}

// branchRow is one graph branch.
type branchRow struct {
	name string
	head *graph.Snapshot
	seg  segment
}

func branchesView(g *adapters.Graph) *viewSource[branchRow] {
	return &viewSource[branchRow]{
		cols: []viewCol[branchRow]{
			textCol("name", func(r branchRow) any { return r.name }),
			textCol("head", func(r branchRow) any { return r.head.Commit.ID }),
			int8Col("manifest_version", func(r branchRow) any { return r.head.Version }),
			textCol("forked_from", func(r branchRow) any { return nullIfEmpty(r.seg.parent) }),
			int8Col("forked_at_version", func(r branchRow) any {
				if r.seg.parent == "" {
					return nil
				}
				return r.seg.forkVersion
			}),
			timeCol("created_at", func(r branchRow) any { return nullIfZeroTime(r.seg.created) }),
			textCol("incarnation", func(r branchRow) any { return r.seg.incarnation }),
		},
		estimate: 10,
		rows: func(ctx context.Context, _ []exec.ScanFilter, yield func(branchRow) error) error {
			names, err := g.Branches(ctx)
			if err != nil {
				return sqlError("reading graph.branches", "", err)
			}
			for _, name := range names {
				seg, err := segmentOf(ctx, g.Root, name)
				if graph.IsUnknownBranch(err) {
					continue // deleted since the listing
				}
				if err != nil {
					return sqlError("reading graph.branches", name, err)
				}
				head, err := g.Root.Head(ctx, name)
				if graph.IsUnknownBranch(err) {
					continue
				}
				if err != nil {
					return sqlError("reading graph.branches", name, err)
				}
				if err := yield(branchRow{name: name, head: head, seg: seg}); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func tablesView(g *adapters.Graph, branch string, at *graph.Snapshot) *viewSource[graph.TableEntry] {
	return &viewSource[graph.TableEntry]{
		cols: []viewCol[graph.TableEntry]{
			textCol("name", func(e graph.TableEntry) any { return e.Name }),
			textCol("kind", func(e graph.TableEntry) any { return string(e.Kind) }),
			int8Col("table_id", func(e graph.TableEntry) any { return e.ID }),
			int8Col("incarnation", func(e graph.TableEntry) any { return e.Incarnation }),
			textCol("location", func(e graph.TableEntry) any { return e.Location }),
			int8Col("pinned_version", func(e graph.TableEntry) any { return e.Version }),
			textCol("lance_branch", func(e graph.TableEntry) any {
				if e.Branch == "" {
					return graph.MainBranch
				}
				return e.Branch
			}),
			int8Col("row_count", func(e graph.TableEntry) any { return e.RowCount }),
			textCol("state", func(e graph.TableEntry) any { return string(e.State) }),
		},
		estimate: 100,
		rows: func(ctx context.Context, _ []exec.ScanFilter, yield func(graph.TableEntry) error) error {
			sn, err := viewSnapshot(ctx, g, branch, at, "graph.tables")
			if err != nil {
				return err
			}
			for _, e := range sn.State.Tables {
				if err := yield(e); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func recoveryView(g *adapters.Graph) *viewSource[recovery.Inspection] {
	sc := func(in recovery.Inspection, f func(*recovery.Sidecar) any) any {
		if in.Sidecar == nil {
			return nil
		}
		return f(in.Sidecar)
	}
	return &viewSource[recovery.Inspection]{
		cols: []viewCol[recovery.Inspection]{
			textCol("operation_id", func(in recovery.Inspection) any {
				if in.Sidecar != nil {
					return in.Sidecar.OperationID
				}
				return strings.TrimSuffix(strings.TrimPrefix(in.Key, graph.RecoveryDir), ".json")
			}),
			textCol("writer_kind", func(in recovery.Inspection) any {
				return sc(in, func(s *recovery.Sidecar) any { return nullIfEmpty(string(s.WriterKind)) })
			}),
			textCol("branch", func(in recovery.Inspection) any {
				return sc(in, func(s *recovery.Sidecar) any { return nullIfEmpty(s.Branch) })
			}),
			textCol("phase", func(in recovery.Inspection) any {
				return sc(in, func(s *recovery.Sidecar) any { return nullIfEmpty(string(s.Phase)) })
			}),
			textCol("owner", func(in recovery.Inspection) any {
				return sc(in, func(s *recovery.Sidecar) any {
					return fmt.Sprintf("%s pid %d (instance %s)", s.Owner.Host, s.Owner.PID, s.Owner.Instance)
				})
			}),
			timeCol("lease_expiry", func(in recovery.Inspection) any {
				return sc(in, func(s *recovery.Sidecar) any { return nullIfZeroTime(s.Owner.LeaseExpiry) })
			}),
			timeCol("created_at", func(in recovery.Inspection) any {
				return sc(in, func(s *recovery.Sidecar) any { return nullIfZeroTime(s.CreatedAt) })
			}),
			textCol("liveness", func(in recovery.Inspection) any {
				return sc(in, func(*recovery.Sidecar) any { return in.Liveness.String() })
			}),
			textCol("classification", func(in recovery.Inspection) any { return classesText(in.Classes) }),
			textCol("error", func(in recovery.Inspection) any {
				if in.Err == nil {
					return nil
				}
				return in.Err.Error()
			}),
		},
		estimate: 1,
		rows: func(ctx context.Context, _ []exec.ScanFilter, yield func(recovery.Inspection) error) error {
			ins, err := g.Pending(ctx)
			if err != nil {
				return sqlError("reading graph.recovery", "", err)
			}
			for _, in := range ins {
				if err := yield(in); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// classesText renders per-table classifications as "table=class, …" in
// table key order (NULL when there are none).
func classesText(m map[string]recovery.Class) any {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + string(m[k])
	}
	return strings.Join(parts, ", ")
}

func auditView(g *adapters.Graph) *viewSource[recovery.AuditRecord] {
	return &viewSource[recovery.AuditRecord]{
		cols: []viewCol[recovery.AuditRecord]{
			timeCol("time", func(r recovery.AuditRecord) any { return nullIfZeroTime(r.Time) }),
			textCol("operation_id", func(r recovery.AuditRecord) any { return r.OperationID }),
			textCol("writer_kind", func(r recovery.AuditRecord) any { return nullIfEmpty(r.WriterKind) }),
			textCol("branch", func(r recovery.AuditRecord) any { return nullIfEmpty(r.Branch) }),
			textCol("decision", func(r recovery.AuditRecord) any { return string(r.Decision) }),
			textCol("classification", func(r recovery.AuditRecord) any { return classesText(r.Classes) }),
			boolCol("fenced", func(r recovery.AuditRecord) any { return r.Fenced }),
			textCol("commit_id", func(r recovery.AuditRecord) any { return nullIfEmpty(r.CommitID) }),
			textCol("detail", func(r recovery.AuditRecord) any { return nullIfEmpty(r.Detail) }),
			textCol("recoverer", func(r recovery.AuditRecord) any { return nullIfEmpty(r.Recoverer) }),
			textCol("actor", func(r recovery.AuditRecord) any { return nullIfEmpty(r.Actor) }),
			textCol("application_name", func(r recovery.AuditRecord) any { return nullIfEmpty(r.Application) }),
			textCol("client_addr", func(r recovery.AuditRecord) any { return nullIfEmpty(r.Client) }),
		},
		estimate: 10,
		rows: func(ctx context.Context, _ []exec.ScanFilter, yield func(recovery.AuditRecord) error) error {
			recs, err := g.Audit(ctx)
			if err != nil {
				return sqlError("reading graph.audit", "", err)
			}
			for _, r := range recs {
				if err := yield(r); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
