package planner

import (
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/wire"
)

// DDL is planned by planner/ddl against the transaction's catalog (the
// pinned snapshot plus its earlier DDL: ddl.Overlay) and joins the
// pending state like DML: a created table gets pending rows, a rewritten
// table (ALTER that changes the physical schema) gets its complete new
// content as pending rows computed by exec from the current view, a
// truncated table starts empty. COMMIT stages the changes in order
// (CreateTable, DropTable, Redefine, ReplaceTable, Truncate) followed by
// the row changes, so DDL and DML of one transaction are one graph
// commit.

// table modes of a pendingTable
const (
	modeRows      = iota // rows changed against the snapshot's version
	modeCreated          // created in this transaction
	modeReplaced         // rewritten into a new incarnation (ALTER)
	modeTruncated        // emptied (TRUNCATE), then maybe new rows
)

// isDDL reports statements planner/ddl plans.
func isDDL(n *sqlparse.Node) bool {
	switch n.Node.(type) {
	case *sqlparse.Node_CreateStmt, *sqlparse.Node_DropStmt, *sqlparse.Node_AlterTableStmt, *sqlparse.Node_RenameStmt,
		*sqlparse.Node_IndexStmt, *sqlparse.Node_CreateSeqStmt, *sqlparse.Node_AlterSeqStmt, *sqlparse.Node_CommentStmt,
		*sqlparse.Node_CreateSchemaStmt, *sqlparse.Node_AlterOwnerStmt, *sqlparse.Node_GrantStmt, *sqlparse.Node_GrantRoleStmt,
		*sqlparse.Node_CreateExtensionStmt, *sqlparse.Node_AlterObjectSchemaStmt,
		*sqlparse.Node_CreateTableAsStmt, *sqlparse.Node_ViewStmt, *sqlparse.Node_CreateFunctionStmt, *sqlparse.Node_CreateTrigStmt,
		*sqlparse.Node_CreateEnumStmt, *sqlparse.Node_AlterEnumStmt, *sqlparse.Node_CreateDomainStmt, *sqlparse.Node_AlterDomainStmt, *sqlparse.Node_AlterDefaultPrivilegesStmt,
		*sqlparse.Node_ReassignOwnedStmt, *sqlparse.Node_DropOwnedStmt:
		return true
	}
	_, ok := ddl.IsPropGraphStmt(n) // CREATE/ALTER/DROP PROPERTY GRAPH
	return ok
}

// ddlCatalog is the catalog DDL is planned against.
func (w *writer) ddlCatalog() *ddl.Overlay {
	return w.v.pend.ddlOverlay(w.v.root)
}

// ddlOverlay is the snapshot's catalog with the pending DDL applied
// (rebuilt by replay after a savepoint restore).
func (p *pendingState) ddlOverlay(c *catalog) *ddl.Overlay {
	if p.overlay == nil {
		p.overlay = ddl.NewOverlay(c.ddlEntries())
		p.overlay.Apply(p.ddl...)
	}
	return p.overlay
}

// ddl plans and applies one DDL statement.
func (w *writer) ddl(n *sqlparse.Node) (*writeOut, error) {
	// temporary tables: a table of the session's pg_temp_N
	// (temp_tables.go)
	n, err := w.tempCreate(n)
	if err != nil {
		return nil, err
	}
	// owners and grants (table_privileges.go)
	pc, err := w.s.privileges(w.ctx)
	if err != nil {
		return nil, err
	}
	changes, handled, err := w.grantTables(pc, n)
	if err != nil {
		return nil, err
	}
	if st := n.GetAlterOwnerStmt(); st != nil && isRoutine(st.ObjectType) {
		if changes, err = w.alterFunctionOwner(pc, st); err != nil { // function_privileges.go
			return nil, err
		}
		handled = true
	}
	if st := n.GetAlterOwnerStmt(); st != nil && (st.ObjectType == sqlparse.ObjectType_OBJECT_TYPE || st.ObjectType == sqlparse.ObjectType_OBJECT_DOMAIN) {
		var typeHandled bool
		if changes, typeHandled, err = w.alterTypeOwner(pc, st); err != nil { // type_privileges.go
			return nil, err
		}
		handled = handled || typeHandled
	}
	if st := n.GetReassignOwnedStmt(); st != nil {
		if changes, err = w.reassignOwned(pc, st); err != nil {
			return nil, err
		}
		handled = true
	}
	if st := n.GetDropOwnedStmt(); st != nil {
		if changes, err = w.dropOwned(pc, st); err != nil {
			return nil, err
		}
		handled = true
	}
	if !handled {
		// CREATE on the schema (schema_privileges.go), then ownership
		if schema, ok := createsIn(n); ok {
			if err := w.needCreate(pc, schema); err != nil {
				if st := n.GetCreateStmt(); st != nil {
					err = positioned(err.(*wire.Error), w.sql, st.Relation.Location)
				}
				return nil, err
			}
		}
		if err := w.ownerChecks(pc, n); err != nil {
			return nil, err
		}
		if err := w.objectOwnerChecks(pc, n); err != nil { // object_owner_checks.go
			return nil, err
		}
		if err := w.schemaOwnerCheck(pc, n); err != nil {
			return nil, err
		}
		if err := w.schemaDatabaseChecks(pc, n); err != nil { // database_privileges.go
			return nil, err
		}
		if err := w.renameOrIndexCreateCheck(pc, n); err != nil {
			return nil, err
		}
		if changes, err = w.ddlPlanner(pc).Plan(n, w.ddlCatalog()); err != nil {
			if we, ok := err.(*wire.Error); ok && we.Code == pgerr.InvalidSchemaName && n.GetCreateStmt() != nil {
				// PostgreSQL points at the relation whose schema is missing
				err = positioned(we, w.sql, n.GetCreateStmt().Relation.Location)
			}
			return nil, err
		}
		if err := checkFunctionBodies(changes); err != nil {
			return nil, err
		}
		if err := w.triggerExecuteCheck(pc, n); err != nil { // function_privileges.go
			return nil, err
		}
		if err := w.typeUsageCheck(pc, changes); err != nil { // type_privileges.go
			return nil, err
		}
		ownCreated(pc, changes)
	}
	if len(changes) == 0 {
		return &writeOut{tag: "SELECT"}, nil
	}
	analyze := w.storedExprsBefore(changes)
	for _, ch := range changes {
		if err := w.applyChange(ch); err != nil {
			return nil, err
		}
		if w.s.info.Notice != nil && !w.describe {
			for _, nt := range ch.Notices() {
				w.s.info.Notice(nt)
			}
		}
	}
	if err := analyze(); err != nil {
		return nil, err
	}
	// ALTER … OWNER TO, after the statement's other subcommands
	owner, err := w.changeOwner(pc, n)
	if err != nil {
		return nil, err
	}
	for _, ch := range owner {
		if err := w.applyChange(ch); err != nil {
			return nil, err
		}
	}
	return &writeOut{tag: changes[0].Tag()}, nil
}

// applyChange adds one planned change to the pending state.
func (w *writer) applyChange(ch ddl.Change) error {
	p := w.v.pend
	switch c := ch.(type) {
	case *ddl.NoOp:
		return nil
	case *ddl.CreateTable:
		p.ddl = append(p.ddl, c)
		w.ddlCatalog().Apply(c)
		if c.Meta.Relkind == ddl.RelTable {
			p.setTable(c.Name, &pendingTable{mode: modeCreated})
		}
	case *ddl.DropTable:
		p.ddl = append(p.ddl, c)
		w.ddlCatalog().Apply(c)
		delete(p.tables, c.Name)
		delete(p.reads, c.Name)
	case *ddl.AlterTable:
		// c.Validate runs below, against the table as altered (a new
		// NOT NULL column exists only after the rewrite); a failure
		// fails the statement, whose pending state is then discarded
		// (autocommit) or only ROLLBACK [TO] can follow.
		if c.Rewrite != nil {
			if err := w.rewrite(c); err != nil {
				return err
			}
		}
		p.ddl = append(p.ddl, c)
		w.ddlCatalog().Apply(c)
		if c.NewName != "" && c.NewName != c.Name {
			if pt, ok := p.tables[c.Name]; ok {
				delete(p.tables, c.Name)
				p.setTable(c.NewName, pt)
			}
		}
	case *ddl.SetSequence:
		return w.setSequence(c)
	case *ddl.Truncate:
		for _, name := range c.Names {
			p.setTable(name, &pendingTable{mode: modeTruncated})
		}
	default:
		return wire.Errorf(wire.CodeFeatureNotSupported, "%s is not supported yet", ch.Tag())
	}
	p.bump()
	if err := w.rebase(); err != nil {
		return err
	}
	if c, ok := ch.(*ddl.AlterTable); ok {
		return w.validate(c.Validate)
	}
	return nil
}

// rebase rebuilds the view's catalog from the snapshot and the pending
// DDL (the next queries of the statement and transaction see it).
func (w *writer) rebase() error {
	c, err := effective(w.v.root, w.v.pend)
	if err != nil {
		return err
	}
	w.v.base = c
	w.v.refresh()
	return nil
}

// rewrite computes the new content of a table an ALTER rewrites: exec
// evaluates the rewrite's expressions over the table as the transaction
// sees it; the rows become the table's pending rows in the new schema.
func (w *writer) rewrite(c *ddl.AlterTable) error {
	entry := graph.TableEntry{Name: c.Name, Def: c.Def}
	td, ok := sqlTableDef(entry)
	if !ok {
		return wire.Errorf(pgerr.InternalError, "ALTER TABLE \"%s\" produced an unreadable definition", c.Name)
	}
	rows, _, err := w.query(c.Rewrite.Select(c.Name))
	if err != nil {
		return err
	}
	if len(rows) != len(td.Columns) {
		return wire.Errorf(pgerr.InternalError, "ALTER TABLE \"%s\": rewrite has %d columns for %d", c.Name, len(rows), len(td.Columns))
	}
	for i, cd := range td.Columns {
		rows[i] = retype(rows[i], cd.Type)
	}
	schema, err := c.Def.ArrowSchema()
	if err != nil {
		return err
	}
	pt := &pendingTable{mode: modeReplaced, schema: schema, cols: td.Columns, def: &c.Def}
	if len(rows) > 0 && rows[0].N > 0 {
		rec, err := recordFromVecs(schema, td.Columns, rows)
		if err != nil {
			return err
		}
		pt.inserts = append(pt.inserts, rec)
	}
	w.v.pend.setTable(c.Name, pt)
	return nil
}

// validate checks existing rows against constraints an ALTER adds.
func (w *writer) validate(vs []ddl.Validation) error {
	if w.describe {
		return nil
	}
	for _, v := range vs {
		t := quoteIdent(v.Table)
		cols := make([]string, len(v.Columns))
		for i, c := range v.Columns {
			cols[i] = quoteIdent(c)
		}
		notNull := make([]string, len(cols))
		for i, c := range cols {
			notNull[i] = c + " IS NOT NULL"
		}
		var q string
		switch v.Kind {
		case ddl.ValidateDomainNotNull, ddl.ValidateDomainCheck:
			if err := w.validateDomain(v); err != nil { // domain_checks.go
				return err
			}
			continue
		case ddl.ValidateNotNull:
			q = "SELECT 1 FROM " + t + " WHERE " + cols[0] + " IS NULL LIMIT 1"
		case ddl.ValidateCheck:
			q = "SELECT 1 FROM " + t + " WHERE NOT (" + v.Expr + ") LIMIT 1"
		case ddl.ValidateUnique:
			q = "SELECT " + strings.Join(cols, ", ") + " FROM " + t + " WHERE " + strings.Join(notNull, " AND ") +
				" GROUP BY " + strings.Join(cols, ", ") + " HAVING count(*) > 1 LIMIT 1"
		case ddl.ValidateForeignKey:
			eq := make([]string, len(cols))
			for i := range cols {
				eq[i] = "_r." + quoteIdent(v.RefColumns[i]) + " = _c." + cols[i]
			}
			cc := make([]string, len(cols))
			for i, c := range cols {
				cc[i] = "_c." + c
			}
			q = "SELECT " + strings.Join(cc, ", ") + " FROM " + t + " AS _c WHERE " + strings.Join(notNull, " AND ") +
				" AND NOT EXISTS (SELECT 1 FROM " + quoteIdent(v.RefTable) + " AS _r WHERE " + strings.Join(eq, " AND ") + ") LIMIT 1"
		case ddl.ValidateMaxOut:
			q = "SELECT " + cols[0] + " FROM " + t + " GROUP BY " + cols[0] + fmt.Sprintf(" HAVING count(*) > %d LIMIT 1", v.Limit)
		default:
			continue
		}
		rows, _, err := w.query(q)
		if err != nil {
			return err
		}
		if len(rows) == 0 || rows[0].N == 0 {
			continue
		}
		key := func() string {
			vals := make([]string, len(rows))
			for i, r := range rows {
				if s, ok := exec.FormatText(r, 0, w.s.location()); ok {
					vals[i] = s
				} else {
					vals[i] = "null"
				}
			}
			return "(" + strings.Join(v.Columns, ", ") + ")=(" + strings.Join(vals, ", ") + ")"
		}
		switch v.Kind {
		case ddl.ValidateNotNull:
			return wire.Errorf(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", v.Columns[0], v.Table).
				WithColumn("public", v.Table, v.Columns[0])
		case ddl.ValidateCheck:
			return wire.Errorf(pgerr.CheckViolation, "check constraint \"%s\" of relation \"%s\" is violated by some row", v.Constraint, v.Table).
				WithConstraint("public", v.Table, v.Constraint)
		case ddl.ValidateUnique:
			return wire.Errorf(pgerr.UniqueViolation, "could not create unique index \"%s\"", v.Constraint).
				WithConstraint("public", v.Table, v.Constraint).WithDetail("Key " + key() + " is duplicated.")
		case ddl.ValidateForeignKey:
			return wire.Errorf(pgerr.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", v.Table, v.Constraint).
				WithConstraint("public", v.Table, v.Constraint).WithDetail(fmt.Sprintf("Key %s is not present in table \"%s\".", key(), v.RefTable))
		case ddl.ValidateMaxOut:
			return wire.Errorf(pgerr.CheckViolation, "edge table \"%s\" violates graph.max_out = %d", v.Table, v.Limit).
				WithDetail("Source " + key() + " has more outgoing edges.")
		}
	}
	return nil
}

// effective is the catalog a transaction sees: its snapshot's tables
// with its pending DDL applied (created, altered, dropped, truncated
// tables), cached per pending generation.
func effective(root *catalog, pend *pendingState) (*catalog, error) {
	if len(pend.ddl) == 0 && !pend.hasModes() {
		return root, nil
	}
	if pend.derived != nil && pend.derivedGen == pend.gen && pend.derivedFrom == root {
		return pend.derived, nil
	}
	mc := exec.NewMemCatalog()
	c := &catalog{Catalog: graphsql.WithViews(mc, root.views), views: root.views, sn: root.sn, tables: map[string]*tableInfo{}}
	entries := pend.ddlOverlay(root).Tables()
	c.setSchemas(entries)
	for _, e := range entries {
		if _, ok := ddl.SchemaName(e.Name); ok {
			continue
		}
		if c.addEnum(e) {
			continue
		}
		pt := pend.tables[e.Name]
		base, inBase := root.tables[e.Name]
		if inBase && base.entry.ID == e.ID && base.entry.Incarnation == e.Incarnation && string(base.entry.Def.Extra) == string(e.Def.Extra) &&
			len(base.entry.Def.Columns) == len(e.Def.Columns) && (pt == nil || pt.mode == modeRows) {
			mc.Add(c.inSchema(base.def))
			if base.def.View == nil {
				c.tables[e.Name] = base
			}
			continue
		}
		if m, err := ddl.DecodeMeta(e.Name, e.Def); err == nil && m.Relkind == ddl.RelSequence {
			continue
		}
		td, ok := sqlTableDef(e)
		if !ok {
			return nil, wire.Errorf(pgerr.DataCorrupted, "table %q has an unreadable definition", e.Name)
		}
		if e.ID == 0 {
			td.OID = 0 // allocated by the catalog until the commit assigns the id
		}
		if td.View != nil {
			mc.Add(c.inSchema(td)) // no rows of its own: not a write target
			continue
		}
		switch {
		case pt != nil && pt.mode != modeRows:
			td.Source = &exec.MemTable{Cols: td.Columns}
		case inBase:
			td.Source = base.def.Source // catalog-only change: same rows
		default:
			for _, b := range root.tables { // renamed: same id
				if b.entry.ID == e.ID && e.ID != 0 {
					td.Source = b.def.Source
				}
			}
			if td.Source == nil {
				td.Source = &exec.MemTable{Cols: td.Columns}
			}
		}
		mc.Add(c.inSchema(td))
		ti := newTableInfo(e, td)
		c.tables[e.Name] = ti
		if pt != nil {
			pt.cols, pt.schema = td.Columns, ti.schema
		}
	}
	markUncommittedLabels(c.enums, root.enums, pend.ddl)
	pend.derived, pend.derivedGen, pend.derivedFrom = c, pend.gen, root
	return c, nil
}

// flushDDL stages the pending DDL in order; rows of rewritten tables go
// with their last rewrite.
func flushDDL(st *adapters.Stage, pend *pendingState) error {
	lastRewrite := map[string]int{}
	for i, ch := range pend.ddl {
		if a, ok := ch.(*ddl.AlterTable); ok && a.Rewrite != nil {
			lastRewrite[a.Name] = i
		}
	}
	for i, ch := range pend.ddl {
		switch c := ch.(type) {
		case *ddl.CreateTable:
			def := c.Def
			if err := st.CreateTable(adapters.TableSpec{Name: c.Name, Kind: c.Kind, Def: &def}); err != nil {
				return err
			}
		case *ddl.DropTable:
			if err := st.DropTable(c.Name); err != nil {
				return err
			}
		case *ddl.AlterTable:
			if c.Rewrite != nil {
				var src adapters.Source
				if pt := pend.tables[finalName(pend, c.Name, i)]; lastRewrite[c.Name] == i && pt != nil && pt.mode == modeReplaced {
					src = adapters.Batches(pt.schema, pt.inserts...)
					pt.flushed = true
				}
				if err := st.ReplaceTable(c.Name, c.Def, src); err != nil {
					return err
				}
			}
			if c.Rewrite == nil || (c.NewName != "" && c.NewName != c.Name) {
				if err := st.Redefine(c.Name, c.NewName, c.Def); err != nil {
					return err
				}
			}
			// the manifest's kind follows the definition's graph role
			// (ADD PRIMARY KEY makes a node, a pending edge's last
			// endpoint reference an edge)
			if k := c.Meta.Graph.Kind; k != "" {
				name := c.Name
				if c.NewName != "" {
					name = c.NewName
				}
				if err := st.SetKind(name, k); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// finalName follows the renames after change i.
func finalName(pend *pendingState, name string, i int) string {
	for _, ch := range pend.ddl[i:] {
		if a, ok := ch.(*ddl.AlterTable); ok && a.Name == name && a.NewName != "" {
			name = a.NewName
		}
	}
	return name
}
