package planner

import (
	"context"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/wire"
)

// relationFunc is the session's exec.RelationFunc: the versioning
// functions read in FROM (docs/architecture.md, "Diffs and reading other
// versions"):
//
//   - graph.at(table, ref): the table as it was at ref;
//   - graph.diff(table, from, to): its rows added, deleted and updated
//     between two refs (graph_diff.go);
//   - graph.diff_summary(from, to): per table, what changed;
//   - graph.schema_diff(from, to): per column, constraint, index and
//     trigger, how its definition changed (graph_schema_diff.go);
//   - graph.changes(since [, table]): the change feed (graph_changes.go).
//
// A ref is a branch name (its head), a commit id (searched in the
// session's branch history, then in every branch's), a manifest version
// or a timestamp (both in the session's branch history, as graph.as_of).
// Refs are resolved when the statement is bound; such a binding is never
// reused (exec.Prepared.Volatile), so a branch ref always names the
// head at the statement.
func (s *session) relationFunc(schema, name string, args []*string) (*exec.TableDef, bool, error) {
	if schema != graphsql.Schema {
		return nil, false, nil
	}
	ctx := context.Background()
	switch name {
	case "at":
		if len(args) != 2 {
			return nil, true, wire.Errorf(pgerr.UndefinedFunction, "function graph.at takes 2 arguments (table, commit | version | timestamp | branch), not %d", len(args))
		}
		td, err := s.graphAt(ctx, args[0], args[1])
		return td, true, err
	case "diff":
		if len(args) != 3 {
			return nil, true, wire.Errorf(pgerr.UndefinedFunction, "function graph.diff takes 3 arguments (table, from, to), not %d", len(args))
		}
		td, err := s.graphDiff(ctx, args[0], args[1], args[2])
		return td, true, err
	case "changes":
		if len(args) != 1 && len(args) != 2 {
			return nil, true, wire.Errorf(pgerr.UndefinedFunction, "function graph.changes takes 1 or 2 arguments (since [, table]), not %d", len(args))
		}
		var table *string
		if len(args) == 2 {
			table = args[1]
		}
		td, err := s.graphChanges(ctx, args[0], table)
		return td, true, err
	case "diff_summary":
		if len(args) != 2 {
			return nil, true, wire.Errorf(pgerr.UndefinedFunction, "function graph.diff_summary takes 2 arguments (from, to), not %d", len(args))
		}
		td, err := s.graphDiffSummary(ctx, args[0], args[1])
		return td, true, err
	case "schema_diff":
		if len(args) != 2 {
			return nil, true, wire.Errorf(pgerr.UndefinedFunction, "function graph.schema_diff takes 2 arguments (from, to), not %d", len(args))
		}
		td, err := s.graphSchemaDiff(ctx, args[0], args[1])
		return td, true, err
	}
	return nil, false, nil
}

// resolveRef is the committed snapshot a ref names (see relationFunc).
func (s *session) resolveRef(ctx context.Context, fn string, ref *string) (*graph.Snapshot, error) {
	if ref == nil {
		return nil, wire.Errorf(pgerr.NullValueNotAllowed, "%s: a commit, version, timestamp or branch must not be NULL", fn)
	}
	v := strings.TrimSpace(*ref)
	if _, err := ulid.ParseStrict(v); err == nil {
		sn, err := graphsql.ResolveAsOf(ctx, s.g, s.branch(), v, s.location())
		if err == nil {
			return sn, nil
		}
		branches, berr := s.root.Branches(ctx)
		if berr != nil {
			return nil, storageFailed(berr, "could not list the branches")
		}
		for _, b := range branches {
			if b == s.branch() {
				continue
			}
			if sn, e := graphsql.ResolveAsOf(ctx, s.g, b, v, s.location()); e == nil {
				if aerr := s.admit(b); aerr != nil {
					return nil, aerr
				}
				return sn, nil
			}
		}
		return nil, err
	}
	if v != "" && !isDigits(v) {
		branches, err := s.root.Branches(ctx)
		if err != nil {
			return nil, storageFailed(err, "could not list the branches")
		}
		if slices.Contains(branches, v) {
			if v != s.branch() {
				if err := s.admit(v); err != nil {
					return nil, err
				}
			}
			sn, err := s.root.Head(ctx, v)
			if err != nil {
				return nil, storageFailed(err, "could not read the head of branch %q", v)
			}
			return sn, nil
		}
	}
	return graphsql.ResolveAsOf(ctx, s.g, s.branch(), v, s.location())
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// graphAt is graph.at(table, ref): the table's definition and rows at
// ref, a relation like any table (its key indexes serve lookups).
func (s *session) graphAt(ctx context.Context, table, ref *string) (*exec.TableDef, error) {
	if table == nil {
		return nil, wire.Errorf(pgerr.NullValueNotAllowed, "graph.at: the table name must not be NULL")
	}
	sn, err := s.resolveRef(ctx, "graph.at", ref)
	if err != nil {
		return nil, err
	}
	ti, err := s.versionedTable(ctx, sn, *table, *ref)
	if err != nil || ti == nil {
		return nil, err
	}
	return ti.def, nil
}

// versionedTable is the table named name in sn (nil, 42P01 when it has
// none); views and sequences are refused (only tables have versions of
// their own).
func (s *session) versionedTable(ctx context.Context, sn *graph.Snapshot, name, ref string) (*tableInfo, error) {
	e, ok := sn.State.TableByName(name)
	if !ok {
		return nil, wire.Errorf(pgerr.UndefinedTable, "relation %q does not exist at %s", name, ref)
	}
	ti, err := s.tableInfoOf(ctx, e)
	if err != nil {
		return nil, err
	}
	if ti.def.View != nil || ti.meta != nil && ti.meta.Relkind == ddl.RelSequence {
		return nil, wire.Errorf(pgerr.WrongObjectType, "%q is not a table", name)
	}
	return ti, nil
}

// tableInfoOf is the (cached) exec definition of one table version.
func (s *session) tableInfoOf(ctx context.Context, e graph.TableEntry) (*tableInfo, error) {
	return s.tables.info(ctx, s.root, e)
}
