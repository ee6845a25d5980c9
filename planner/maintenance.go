package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Maintenance statements tools send (pgbench -i, pg_dump, ORMs, admin
// consoles) answer as PostgreSQL 15 does — same checks, same errors,
// same tags — and do what they mean here:
//
//   - VACUUM FULL rewrites a table compactly: here that is the table's
//     compaction (graph.optimize of the named tables, all when none),
//     published as a graph commit.
//   - Plain VACUUM reclaims dead rows in place; a Lance table has none to
//     reclaim that way (deleted rows are masked until compaction), so it
//     checks its arguments and answers with a NOTICE saying so.
//   - ANALYZE (and VACUUM ANALYZE) computes the named tables' (all
//     tables' when none is named) column statistics from the statement's
//     snapshot (exec.AnalyzeTable): pg_stats shows them and the executor's
//     estimates use them. A Backend.Analyze hook, when set, replaces this
//     collector.
//   - CHECKPOINT: every commit is already durable when acknowledged, so
//     there is nothing to flush.
//   - REINDEX: indexes are maintained with every commit; there is
//     nothing to rebuild.
//   - CLUSTER t USING i: rows are not reordered (NOTICE); CLUSTER t needs
//     a previously clustered index, which no table has (42704, as in
//     PostgreSQL for a table never clustered).
//   - LOCK TABLE: only inside a transaction block (25P01); ACCESS SHARE
//     conflicts only with DDL, which a transaction's snapshot never sees,
//     so it needs nothing; the stronger modes lock optimistically, as
//     SELECT … FOR UPDATE does: COMMIT fails with 40001 if another
//     commit changed the table since the transaction's snapshot.

// AnalyzeFunc collects statistics of tables of a branch (ANALYZE).
type AnalyzeFunc func(ctx context.Context, branch string, tables []string) error

// isMaintenance reports the statements maintenance.go executes.
func isMaintenance(n *sqlparse.Node) bool {
	switch n.Node.(type) {
	case *sqlparse.Node_VacuumStmt, *sqlparse.Node_CheckPointStmt, *sqlparse.Node_ReindexStmt,
		*sqlparse.Node_ClusterStmt, *sqlparse.Node_LockStmt, *sqlparse.Node_DiscardStmt:
		return true
	}
	return false
}

// inBlock reports an explicit transaction block.
func (s *session) inBlock() bool { return s.tx != nil && !s.tx.implicit }

// executeMaintenance runs one maintenance statement.
func (s *session) executeMaintenance(ctx context.Context, p *plan) (wire.Result, error) {
	tag, err := s.maintain(ctx, p.node)
	if err != nil {
		return nil, err
	}
	return (&writeOut{tag: tag}).result(), nil
}

func (s *session) maintain(ctx context.Context, n *sqlparse.Node) (string, error) {
	switch x := n.Node.(type) {
	case *sqlparse.Node_VacuumStmt:
		return s.vacuum(ctx, x.VacuumStmt)
	case *sqlparse.Node_CheckPointStmt:
		return "CHECKPOINT", nil
	case *sqlparse.Node_ReindexStmt:
		return s.reindex(ctx, x.ReindexStmt)
	case *sqlparse.Node_ClusterStmt:
		return s.cluster(ctx, x.ClusterStmt)
	case *sqlparse.Node_LockStmt:
		return s.lockTables(ctx, x.LockStmt)
	case *sqlparse.Node_DiscardStmt:
		return s.discard(x.DiscardStmt) // temp_tables.go
	}
	return "", notSupported("this statement")
}

func (s *session) notice(msg, hint string) {
	if s.info.Notice != nil {
		s.info.Notice(&wire.Error{Code: pgerr.SuccessfulCompletion, Message: msg, Hint: hint})
	}
}

// vacuumOptions reads VACUUM's or ANALYZE's option list.
func vacuumOptions(v *sqlparse.VacuumStmt) (full, analyze bool, err error) {
	what := "ANALYZE"
	if v.IsVacuumcmd {
		what = "VACUUM"
	}
	for _, o := range v.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		on := true
		if d.Arg != nil {
			if b, ok := defBool(d.Arg); ok {
				on = b
			}
		}
		switch name := strings.ToLower(d.Defname); {
		case name == "full" && v.IsVacuumcmd:
			full = on
		case name == "analyze" && v.IsVacuumcmd:
			analyze = on
		case name == "verbose" || name == "skip_locked":
		case v.IsVacuumcmd && (name == "freeze" || name == "disable_page_skipping" || name == "index_cleanup" ||
			name == "process_toast" || name == "truncate" || name == "parallel"):
		default:
			return false, false, wire.Errorf(pgerr.SyntaxError, "unrecognized %s option \"%s\"", what, d.Defname).WithPosition(d.Location + 1)
		}
	}
	if !v.IsVacuumcmd {
		analyze = true
	}
	return full, analyze, nil
}

// defBool reads a boolean option value (true/false/on/off/1/0).
func defBool(n *sqlparse.Node) (bool, bool) {
	var s string
	switch {
	case n.GetString_() != nil:
		s = n.GetString_().Sval
	case n.GetInteger() != nil:
		return n.GetInteger().Ival != 0, true
	case n.GetBoolean() != nil:
		return n.GetBoolean().Boolval, true
	case n.GetAConst() != nil && n.GetAConst().GetSval() != nil:
		s = n.GetAConst().GetSval().Sval
	case n.GetAConst() != nil && n.GetAConst().GetBoolval() != nil:
		return n.GetAConst().GetBoolval().Boolval, true
	case n.GetAConst() != nil && n.GetAConst().GetIval() != nil:
		return n.GetAConst().GetIval().Ival != 0, true
	default:
		return false, false
	}
	switch strings.ToLower(s) {
	case "true", "on", "1", "yes":
		return true, true
	case "false", "off", "0", "no":
		return false, true
	}
	return false, false
}

func (s *session) vacuum(ctx context.Context, v *sqlparse.VacuumStmt) (string, error) {
	tag := "ANALYZE"
	if v.IsVacuumcmd {
		tag = "VACUUM"
	}
	full, analyze, err := vacuumOptions(v)
	if err != nil {
		return "", err
	}
	if v.IsVacuumcmd && s.inBlock() {
		return "", wire.Errorf(pgerr.ActiveSQLTransaction, "VACUUM cannot run inside a transaction block")
	}
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return "", err
	}
	var tables []string
	analyzeCols := map[string][]int{} // ANALYZE t (cols): those only
	for _, r := range v.Rels {
		vr := r.GetVacuumRelation()
		if vr == nil || vr.Relation == nil {
			continue
		}
		if len(vr.VaCols) > 0 && !analyze {
			return "", wire.Errorf(wire.CodeFeatureNotSupported, "ANALYZE option must be specified when a column list is provided")
		}
		td, err := relation(cat, vr.Relation)
		if err != nil {
			return "", err
		}
		for _, c := range vr.VaCols {
			name := c.GetString_().GetSval()
			if !hasColumn(td, name) {
				return "", wire.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, td.Name)
			}
			for i := range td.Columns {
				if td.Columns[i].Name == name && !slices.Contains(analyzeCols[td.Name], i) {
					analyzeCols[td.Name] = append(analyzeCols[td.Name], i)
				}
			}
		}
		if td.Kind != "view" {
			tables = append(tables, td.Name)
		}
	}
	branch := s.branch()
	if full {
		// a compaction is a commit on the branch: WRITE, as graph.optimize
		if err := s.checkBranchPrivilege(ctx, branch, access.PrivWrite); err != nil {
			return "", err
		}
	}
	tables, none, err := s.ownedForMaintenance(ctx, cat, tables, strings.ToLower(tag))
	if err != nil || none {
		return tag, err
	}
	if full {
		o := adapters.OptimizeOptions{Branch: branch, Tables: tables}
		o.Actor, o.Application, o.Client = s.attribution()
		if _, err := s.g.OptimizeWith(ctx, o); err != nil {
			return "", writeError(err)
		}
		s.unpin()
	} else if v.IsVacuumcmd {
		s.notice("VACUUM has nothing to reclaim in place in pgproxy",
			"Deleted rows are masked until the table is compacted: VACUUM FULL (or CALL graph.optimize()) compacts it.")
	}
	if analyze {
		if s.analyze != nil {
			if err := s.analyze(ctx, branch, tables); err != nil {
				return "", err
			}
		} else if err := s.collectStatistics(ctx, tables, analyzeCols); err != nil {
			return "", err
		}
	}
	return tag, nil
}

// ownedForMaintenance keeps the tables VACUUM or ANALYZE may process:
// those the acting role owns, as PostgreSQL's vacuum_is_relation_owner
// (the database owner — here the bootstrap superuser — and superusers
// own them all); each other one is skipped with PostgreSQL's WARNING.
// No names means every table of the branch; none reports that nothing
// is left to do.
func (s *session) ownedForMaintenance(ctx context.Context, cat exec.Catalog, names []string, verb string) (kept []string, none bool, err error) {
	pc, err := s.privileges(ctx)
	if err != nil || pc == nil {
		return names, false, err
	}
	var tds []*exec.TableDef
	if len(names) == 0 {
		for _, sc := range cat.Schemas() {
			if sc == "graph" || sc == "pg_catalog" || sc == "information_schema" || ddl.IsTempSchema(sc) {
				continue
			}
			tds = append(tds, cat.Tables(sc)...)
		}
	} else {
		for _, n := range names {
			if td := cat.Table("", n); td != nil {
				tds = append(tds, td)
			}
		}
	}
	skipped := false
	for _, td := range tds {
		if td.Kind == "view" || td.Kind == "sequence" {
			continue
		}
		if !pc.c.IsOwner(pc.role, td.Owner) {
			skipped = true
			if s.info.Notice != nil {
				s.info.Notice(&wire.Error{Severity: "WARNING", Code: pgerr.Warning,
					Message: fmt.Sprintf("skipping \"%s\" --- only table or database owner can %s it", td.RelName(), verb)})
			}
			continue
		}
		kept = append(kept, td.Name)
	}
	if !skipped && len(names) == 0 {
		return nil, false, nil // all of them, as before
	}
	return kept, len(kept) == 0, nil
}

// collectStatistics is ANALYZE's built-in collector: the named tables'
// statistics (all tables of the branch when none is named) computed from
// the statement's snapshot (exec.AnalyzeTable) and kept with the
// table's version, where pg_stats and the executor's estimates find them.
func (s *session) collectStatistics(ctx context.Context, tables []string, cols map[string][]int) error {
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return err
	}
	var tds []*exec.TableDef
	if len(tables) == 0 {
		for _, sc := range cat.Schemas() {
			if sc == "graph" || sc == "pg_catalog" || sc == "information_schema" {
				continue // generated relations: nothing to keep statistics of
			}
			tds = append(tds, cat.Tables(sc)...)
		}
	} else {
		for _, name := range tables {
			if td := cat.Table("", name); td != nil {
				tds = append(tds, td)
			}
		}
	}
	done := map[*exec.TableDef]bool{}
	for _, td := range tds {
		if td == nil || done[td] || td.Kind == "view" || td.Kind == "sequence" || td.Source == nil {
			continue
		}
		done[td] = true
		if _, err := exec.AnalyzeTable(ctx, td, cols[td.Name]); err != nil {
			return err
		}
	}
	return nil
}

// relation resolves a maintenance statement's table (42P01 when absent).
func relation(cat exec.Catalog, rv *sqlparse.RangeVar) (*exec.TableDef, error) {
	td := cat.Table(rv.Schemaname, rv.Relname)
	if td == nil {
		if rv.Schemaname != "" {
			return nil, wire.Errorf(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", rv.Schemaname, rv.Relname)
		}
		return nil, wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
	}
	return td, nil
}

func hasColumn(td *exec.TableDef, name string) bool {
	for _, c := range td.Columns {
		if c.Name == name {
			return true
		}
	}
	return false
}

// indexNamed reports whether some table has an index (or a constraint's
// index) called name.
func indexNamed(cat exec.Catalog, schema, name string) bool {
	return indexedTable(cat, schema, name) != nil
}

// indexedTable is the table holding the index schema.name, or nil.
func indexedTable(cat exec.Catalog, schema, name string) *exec.TableDef {
	schemas := []string{schema}
	if schema == "" {
		schemas = cat.Schemas()
	}
	for _, sc := range schemas {
		for _, td := range cat.Tables(sc) {
			for _, ix := range td.Indexes {
				if ix.Name == name {
					return td
				}
			}
			if len(td.PrimaryKey) > 0 && (td.PrimaryKeyName == name || (td.PrimaryKeyName == "" && td.Name+"_pkey" == name)) {
				return td
			}
			for _, u := range td.UniqueNames {
				if u == name {
					return td
				}
			}
		}
	}
	return nil
}

// mustOwn refuses maintenance of td (REINDEX, CLUSTER) by a role that
// does not own it, as PostgreSQL's "must be owner of table t".
func (s *session) mustOwn(ctx context.Context, td *exec.TableDef, kind, name string) error {
	pc, err := s.privileges(ctx)
	if err != nil || pc == nil || pc.c.IsOwner(pc.role, td.Owner) {
		return err
	}
	return errNotOwner(kind, name)
}

func (s *session) reindex(ctx context.Context, r *sqlparse.ReindexStmt) (string, error) {
	concurrently := false
	for _, o := range r.Params {
		if d := o.GetDefElem(); d != nil && strings.EqualFold(d.Defname, "concurrently") {
			concurrently = true
		}
	}
	var kind string
	switch r.Kind {
	case sqlparse.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
		kind = "SCHEMA"
	case sqlparse.ReindexObjectType_REINDEX_OBJECT_SYSTEM:
		kind = "SYSTEM"
	case sqlparse.ReindexObjectType_REINDEX_OBJECT_DATABASE:
		kind = "DATABASE"
	}
	if s.inBlock() {
		if kind != "" {
			return "", wire.Errorf(pgerr.ActiveSQLTransaction, "REINDEX %s cannot run inside a transaction block", kind)
		}
		if concurrently {
			return "", wire.Errorf(pgerr.ActiveSQLTransaction, "REINDEX CONCURRENTLY cannot run inside a transaction block")
		}
	}
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return "", err
	}
	switch r.Kind {
	case sqlparse.ReindexObjectType_REINDEX_OBJECT_TABLE:
		td, err := relation(cat, r.Relation)
		if err != nil {
			return "", err
		}
		if err := s.mustOwn(ctx, td, "table", td.RelName()); err != nil {
			return "", err
		}
	case sqlparse.ReindexObjectType_REINDEX_OBJECT_INDEX:
		td := indexedTable(cat, r.Relation.Schemaname, r.Relation.Relname)
		if td == nil {
			return "", wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", r.Relation.Relname)
		}
		if err := s.mustOwn(ctx, td, "index", r.Relation.Relname); err != nil {
			return "", err
		}
	case sqlparse.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
		found := r.Name == "pg_catalog" || r.Name == "information_schema"
		for _, sc := range cat.Schemas() {
			found = found || sc == r.Name
		}
		if !found {
			return "", wire.Errorf(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", r.Name)
		}
	case sqlparse.ReindexObjectType_REINDEX_OBJECT_DATABASE, sqlparse.ReindexObjectType_REINDEX_OBJECT_SYSTEM:
		if r.Name != "" && r.Name != s.info.Database {
			return "", wire.Errorf(wire.CodeFeatureNotSupported, "can only reindex the currently open database")
		}
	}
	return "REINDEX", nil
}

func (s *session) cluster(ctx context.Context, c *sqlparse.ClusterStmt) (string, error) {
	if c.Relation == nil {
		if s.inBlock() {
			return "", wire.Errorf(pgerr.ActiveSQLTransaction, "CLUSTER cannot run inside a transaction block")
		}
		return "CLUSTER", nil // no table was ever clustered on an index
	}
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return "", err
	}
	td, err := relation(cat, c.Relation)
	if err != nil {
		return "", err
	}
	if err := s.mustOwn(ctx, td, "table", td.RelName()); err != nil {
		return "", err
	}
	if c.Indexname == "" {
		return "", wire.Errorf(pgerr.UndefinedObject, "there is no previously clustered index for table \"%s\"", td.Name)
	}
	if !indexNamed(cat, c.Relation.Schemaname, c.Indexname) {
		return "", wire.Errorf(pgerr.UndefinedObject, "index \"%s\" for table \"%s\" does not exist", c.Indexname, td.Name)
	}
	s.notice("CLUSTER does not reorder rows in pgproxy", "")
	return "CLUSTER", nil
}

// accessShareLock is LOCK TABLE's ACCESS SHARE mode (lockdefs.h).
const accessShareLock = 1

func (s *session) lockTables(ctx context.Context, l *sqlparse.LockStmt) (string, error) {
	if !s.inBlock() {
		return "", wire.Errorf(pgerr.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
	}
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return "", err
	}
	for _, n := range l.Relations {
		rv := n.GetRangeVar()
		if rv == nil {
			continue
		}
		if err := s.relationUsage(ctx, rv); err != nil {
			return "", err
		}
		td, err := relation(cat, rv)
		if err != nil {
			return "", err
		}
		if l.Mode != accessShareLock && td.Kind != "view" {
			s.tx.pend.markRead(td.Name)
			s.tx.pend.markLock(td.Name)
		}
	}
	return "LOCK TABLE", nil
}
