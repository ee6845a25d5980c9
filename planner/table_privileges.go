package planner

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Table and view privileges. A relation's owner and ACL are part of its
// definition (ddl.TableMeta.Owner/ACL): versioned with the branch's
// schema, published by the statement's graph commit like other DDL, and
// carried by merges as definition changes. The rules (who holds what,
// grantor choice, cascading revokes, aclitem text) are package access's;
// this file applies them to statements:
//
//   - GRANT/REVOKE … ON [TABLE] t | ALL TABLES IN SCHEMA public
//     rewrite the relations' ACLs (grantTables);
//   - CREATE TABLE/VIEW/SEQUENCE records the creating role as owner;
//     ALTER TABLE|VIEW|SEQUENCE … OWNER TO changes it (changeOwner);
//     DROP, ALTER, RENAME and CREATE INDEX need ownership (ownerChecks);
//   - the client's statements need SELECT on every relation they read
//     (exec.Prepared.Relations, so CTE names are resolved first; a
//     view's relations are checked as the view's owner) and INSERT,
//     UPDATE, DELETE or TRUNCATE on their target, plus SELECT on the
//     target where they read its columns. Queries the planner runs
//     itself (constraint checks, cascades, rewrites) are not checked,
//     as PostgreSQL's RI triggers are not.
//
// A root without a role catalog checks nothing (everyone is a
// superuser); superusers and owners pass every check, as in PostgreSQL.

// privCtx is the role catalog and the acting role of one statement; nil
// when nothing is checked (a root without roles).
type privCtx struct {
	c    *access.Catalog
	role uint32 // math.MaxUint32 when the role no longer exists
	name string
}

// privileges returns the statement's privilege context.
func (s *session) privileges(ctx context.Context) (*privCtx, error) {
	if s.access == nil {
		return nil, nil
	}
	c, err := s.roleCatalog(ctx)
	if err != nil || c.Bootstrap() {
		return nil, err
	}
	pc := &privCtx{c: c, role: math.MaxUint32, name: s.currentRole()}
	if r := c.Role(pc.name); r != nil {
		pc.role = r.OID
	}
	return pc, nil
}

// relKind is the relation kind PostgreSQL's messages name.
func relKind(td *exec.TableDef) string {
	switch {
	case td.View != nil:
		return "view"
	case td.Kind == ddl.RelSequence:
		return "sequence"
	}
	return "table"
}

func errPermission(kind, name string) *wire.Error {
	return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied for %s %s", kind, name)
}

func errNotOwner(kind, name string) *wire.Error {
	return wire.Errorf(wire.CodeInsufficientPrivilege, "must be owner of %s %s", kind, name)
}

// need refuses role without privs on td.
func (pc *privCtx) need(role uint32, td *exec.TableDef, privs access.TablePrivs) error {
	if pc == nil || privs == 0 {
		return nil
	}
	if held, _ := pc.c.TablePrivileges(role, td.Owner, td.ACL); held&privs != privs {
		return errPermission(relKind(td), td.RelName())
	}
	return nil
}

// checkReads requires SELECT on every relation a statement reads (as
// the view owner under a view), except one naming of the UPDATE, DELETE
// or MERGE target (target OID; checkTarget decided what it needs): its
// query names the target once, and any other naming of it (a FROM item,
// a subquery, a CTE) needs SELECT, in whichever order they were bound.
func (pc *privCtx) checkReads(uses []exec.RelationUse, target uint32, locking bool) error {
	if pc == nil {
		return nil
	}
	for _, u := range uses {
		if u.Table.OID < ddl.FirstUserOID {
			continue // the system catalogs: everyone may read them
		}
		role := pc.role
		if u.InView {
			role = access.OwnerOID(u.ViewOwner)
		} else if target != 0 && u.Table.OID == target {
			target = 0
			continue
		}
		privs := access.PrivSelect
		cols := colNeeds{} // column privileges may stand in (column_checks.go)
		if u.ColumnsKnown {
			cols[access.PrivSelect] = u.Columns
		}
		if locking && u.Table.View == nil {
			// SELECT … FOR UPDATE/SHARE: UPDATE on the table or on any
			// of its columns, as PostgreSQL's ACL_SELECT_FOR_UPDATE
			privs |= access.PrivUpdate
			cols[access.PrivUpdate] = []int{}
		}
		if err := pc.needCols(role, u.Table, privs, cols); err != nil {
			return err
		}
	}
	return nil
}

// checkQuery checks a client's query before it runs. Reading history
// (SET graph.as_of) needs the privileges of the version read and those
// of the branch head: a REVOKE also closes the history it protected.
func (s *session) checkQuery(ctx context.Context, p *plan, prep *exec.Prepared) error {
	pc, err := s.privileges(ctx)
	if err != nil || pc == nil {
		return err
	}
	uses := prep.Relations()
	if err := pc.checkReads(uses, 0, p.locking); err != nil || !s.asOfActive() {
		return err
	}
	sn, err := s.root.Head(ctx, s.branch())
	if err != nil {
		return storageFailed(err, "could not read the head of branch %q", s.branch())
	}
	head, err := s.catalogOf(ctx, sn)
	if err != nil {
		return err
	}
	now := map[uint32]*exec.TableDef{}
	for _, td := range head.Tables("public") {
		now[td.OID] = td
	}
	current := make([]exec.RelationUse, 0, len(uses))
	for _, u := range uses {
		if td := now[u.Table.OID]; td != nil {
			u.Table = td
			current = append(current, u)
		}
	}
	return pc.checkReads(current, 0, p.locking)
}

// asOfHeadVersion is the branch head's version while the session reads
// history in a root with roles (0 otherwise, or when the head cannot
// be read: the statement then reports that).
func (s *session) asOfHeadVersion() uint64 {
	if s.access == nil || s.access.Seen() == 0 || !s.asOfActive() {
		return 0
	}
	sn, err := s.root.Head(context.Background(), s.branch())
	if err != nil {
		return 0
	}
	return sn.Version
}

// hasColumnRef reports whether a parse subtree names a column.
func hasColumnRef(nodes ...*q.Node) bool {
	found := false
	for _, n := range nodes {
		if n == nil || found {
			continue
		}
		replaceColumnRefs(n.ProtoReflect(), func(*q.ColumnRef) *q.Node {
			found = true
			return nil
		})
	}
	return found
}

// checkTarget checks the client's INSERT, UPDATE, DELETE, MERGE or
// TRUNCATE on its target relations, then arranges for its first query
// (the one evaluating the client's statement) to check what it reads.
func (w *writer) checkTarget(p *plan) error {
	pc, err := w.s.privileges(w.ctx)
	if err != nil || pc == nil {
		return err
	}
	// one checks a target; cols says which columns may stand in for
	// the table's privileges (nil: none)
	one := func(rv *q.RangeVar, privs access.TablePrivs, cols ...func(*exec.TableDef) colNeeds) (uint32, error) {
		if rv == nil {
			return 0, nil
		}
		key, known := w.relKey(rv.Schemaname, rv.Relname)
		if !known {
			return 0, nil
		}
		ti, ok := w.v.base.tables[key]
		if !ok {
			return 0, nil // the statement reports the missing relation
		}
		var need colNeeds
		if len(cols) > 0 {
			need = cols[0](ti.def)
		}
		return ti.def.OID, pc.needCols(pc.role, ti.def, privs, need)
	}
	aliasOf := func(rv *q.RangeVar) string {
		if rv.Alias != nil {
			return rv.Alias.Aliasname
		}
		return rv.Relname
	}
	var target, keys uint32 // the target whose reads skip a naming; the one changed
	switch p.kind {
	case stmtInsert:
		st := p.node.GetInsertStmt()
		privs := access.PrivInsert
		if len(st.ReturningList) > 0 {
			privs |= access.PrivSelect
		}
		oc := st.OnConflictClause
		if oc != nil && oc.Infer != nil {
			privs |= access.PrivSelect // the arbiter columns are read
		}
		if oc != nil && oc.Action == q.OnConflictAction_ONCONFLICT_UPDATE {
			privs |= access.PrivUpdate | access.PrivSelect
		}
		// the INSERT's query is its source: every relation it names
		// needs SELECT, the target too
		keys, err = one(st.Relation, privs, func(td *exec.TableDef) colNeeds {
			need := colNeeds{access.PrivInsert: insertColumns(td, st),
				access.PrivSelect: targetColumnRefs(td, st.Relation.Relname, aliasOf(st.Relation), st.ReturningList...)}
			if oc != nil {
				need[access.PrivSelect] = append(need[access.PrivSelect], conflictReads(td, st)...)
				if oc.Action == q.OnConflictAction_ONCONFLICT_UPDATE {
					need[access.PrivUpdate] = setColumns(td, oc.TargetList)
				}
			}
			return need
		})
	case stmtUpdate:
		st := p.node.GetUpdateStmt()
		privs := access.PrivUpdate
		if hasColumnRef(append([]*q.Node{st.WhereClause}, append(setValues(st.TargetList), st.ReturningList...)...)...) {
			privs |= access.PrivSelect
		}
		target, err = one(st.Relation, privs, func(td *exec.TableDef) colNeeds {
			reads := append([]*q.Node{st.WhereClause}, append(setValues(st.TargetList), st.ReturningList...)...)
			return colNeeds{access.PrivUpdate: setColumns(td, st.TargetList),
				access.PrivSelect: targetColumnRefs(td, st.Relation.Relname, aliasOf(st.Relation), reads...)}
		})
		keys = target
	case stmtDelete:
		st := p.node.GetDeleteStmt()
		privs := access.PrivDelete
		if hasColumnRef(append([]*q.Node{st.WhereClause}, st.ReturningList...)...) {
			privs |= access.PrivSelect
		}
		target, err = one(st.Relation, privs, func(td *exec.TableDef) colNeeds {
			return colNeeds{access.PrivSelect: targetColumnRefs(td, st.Relation.Relname, aliasOf(st.Relation),
				append([]*q.Node{st.WhereClause}, st.ReturningList...)...)}
		})
		keys = target
	case stmtMerge:
		st := p.node.GetMergeStmt()
		var privs access.TablePrivs
		for _, n := range st.MergeWhenClauses {
			switch n.GetMergeWhenClause().GetCommandType() {
			case q.CmdType_CMD_INSERT:
				privs |= access.PrivInsert
			case q.CmdType_CMD_UPDATE:
				privs |= access.PrivUpdate
			case q.CmdType_CMD_DELETE:
				privs |= access.PrivDelete
			}
		}
		var need colNeeds
		if ti, ok := w.v.base.tables[st.Relation.GetRelname()]; ok {
			if need = mergeColumns(ti.def, st); len(need[access.PrivSelect]) > 0 {
				privs |= access.PrivSelect // the target's columns are read
			}
		}
		target, err = one(st.Relation, privs, func(*exec.TableDef) colNeeds { return need })
		keys = target
	case stmtTruncate:
		st := p.node.GetTruncateStmt()
		seen := map[string]bool{}
		var queue []string
		for _, n := range st.Relations {
			rv := n.GetRangeVar()
			if _, err := one(rv, access.PrivTruncate); err != nil {
				return err
			}
			if rv != nil && !seen[rv.Relname] {
				seen[rv.Relname] = true
				queue = append(queue, rv.Relname)
			}
		}
		// CASCADE truncates the referencing tables too: they need it as well
		for len(queue) > 0 && st.Behavior == q.DropBehavior_DROP_CASCADE {
			name := queue[0]
			queue = queue[1:]
			for _, child := range w.children(name) {
				if seen[child.def.Name] {
					continue
				}
				seen[child.def.Name] = true
				queue = append(queue, child.def.Name)
				if err := pc.need(pc.role, child.def, access.PrivTruncate); err != nil {
					return err
				}
			}
		}
		return nil
	default:
		return nil
	}
	if err != nil {
		return err
	}
	w.checkReads = func(prep *exec.Prepared) error { return pc.checkReads(prep.Relations(), target, false) }
	if keys != 0 {
		for _, ti := range w.v.base.tables {
			if ti.def.OID == keys {
				if held, _ := pc.c.TablePrivileges(pc.role, ti.def.Owner, ti.def.ACL); held&access.PrivSelect == 0 {
					w.hideKeys = true
				}
			}
		}
	}
	return nil
}

// redactKeys drops the key values from a constraint error's detail when
// the role may not read the table it changed, as PostgreSQL does: a
// foreign key error says "Key is not present in table …", a unique one
// has no detail.
func (w *writer) redactKeys(err error) error {
	if dh, ok := err.(*dupHeld); ok {
		dh.err = w.redactKeys(dh.err)
		return dh
	}
	we, ok := err.(*wire.Error)
	if !ok || !w.hideKeys || !strings.HasPrefix(we.Detail, "Key (") {
		return err
	}
	cp := *we
	switch we.Code {
	case pgerr.UniqueViolation:
		cp.Detail = ""
	case pgerr.ForeignKeyViolation:
		if i := strings.Index(we.Detail, ") is "); i >= 0 {
			cp.Detail = "Key" + we.Detail[i+1:]
		} else {
			return err
		}
	default:
		return err
	}
	return &cp
}

// writeKind is the kind of a writing statement's node (EXPLAIN's).
func writeKind(n *q.Node) stmtKind {
	switch {
	case n.GetInsertStmt() != nil:
		return stmtInsert
	case n.GetUpdateStmt() != nil:
		return stmtUpdate
	case n.GetDeleteStmt() != nil:
		return stmtDelete
	case n.GetMergeStmt() != nil:
		return stmtMerge
	}
	return stmtQuery
}

// setValues are the value expressions of UPDATE's SET list.
func setValues(list []*q.Node) []*q.Node {
	var out []*q.Node
	for _, n := range list {
		if rt := n.GetResTarget(); rt != nil {
			out = append(out, rt.Val)
		}
	}
	return out
}

// checkCopyFrom checks COPY t [(cols)] FROM: INSERT on t, or on the
// columns copied (column_checks.go).
func (w *writer) checkCopyFrom(td *exec.TableDef, columns []string) error {
	pc, err := w.s.privileges(w.ctx)
	if err != nil {
		return err
	}
	cols := everyColumn(td)
	if len(columns) > 0 {
		cols = columnIndexes(td, columns)
	}
	return pc.needCols(pc.roleOf(), td, access.PrivInsert, colNeeds{access.PrivInsert: cols})
}

func (pc *privCtx) roleOf() uint32 {
	if pc == nil {
		return 0
	}
	return pc.role
}

// relationOf finds a relation of the DDL catalog with its meta.
func (w *writer) relationOf(name string) (graph.TableEntry, ddl.TableMeta, bool) {
	e, ok := w.ddlCatalog().Table(name)
	if !ok {
		return graph.TableEntry{}, ddl.TableMeta{}, false
	}
	m, err := ddl.DecodeMeta(e.Name, e.Def)
	if err != nil {
		return graph.TableEntry{}, ddl.TableMeta{}, false
	}
	return e, m, true
}

func metaKind(m ddl.TableMeta) string {
	switch m.Relkind {
	case ddl.RelView:
		return "view"
	case ddl.RelSequence:
		return "sequence"
	}
	return "table"
}

// ownerChecks refuses DDL on a relation the acting role does not own
// (PostgreSQL's "must be owner of table t"). Relations that do not exist
// are left to the statement (it reports them, or IF EXISTS skips them).
func (w *writer) ownerChecks(pc *privCtx, n *q.Node) error {
	if pc == nil {
		return nil
	}
	check := func(schema, name string) error {
		key, known := w.relKey(schema, name)
		if !known {
			return nil
		}
		_, m, ok := w.relationOf(key)
		if !ok {
			// a serial/identity column's sequence is its table owner's
			if sp, owned := w.sequencePriv(name); owned && !pc.c.IsOwner(pc.role, sp.owner) {
				return errNotOwner("sequence", name)
			}
			return nil
		}
		if pc.c.IsOwner(pc.role, m.Owner) {
			return nil
		}
		return errNotOwner(metaKind(m), name)
	}
	rv := func(r *q.RangeVar) error {
		if r == nil {
			return nil
		}
		return check(r.Schemaname, r.Relname)
	}
	// an index is owned by its table's owner; indexes of a created
	// schema's tables are stored under the schema-qualified name
	index := func(schema, name string) error {
		key, known := w.relKey(schema, name)
		if !known {
			return nil
		}
		for _, e := range w.ddlCatalog().Tables() {
			m, err := ddl.DecodeMeta(e.Name, e.Def)
			if err != nil || !hasIndex(m, key) {
				continue
			}
			if !pc.c.IsOwner(pc.role, m.Owner) {
				return errNotOwner("index", name)
			}
			return nil
		}
		return nil
	}
	// DROP checks ownership of the relation or of its schema: the owner
	// of a created schema may drop what others own in it (PostgreSQL's
	// RangeVarCallbackForDropRelation); ALTER and the rest may not
	ownsSchema := func(schema, name string) bool {
		key, known := w.relKey(schema, name)
		if !known {
			return false
		}
		i := strings.IndexByte(key, '.')
		if i < 0 {
			return false // public: pg_database_owner's, which superusers (owners of everything) alone hold
		}
		d, ok := w.v.base.schemaDef(key[:i])
		return ok && pc.c.IsOwner(pc.role, d.Owner)
	}
	switch x := n.Node.(type) {
	case *q.Node_DropStmt:
		var checkOne func(schema, name string) error
		switch x.DropStmt.RemoveType {
		case q.ObjectType_OBJECT_INDEX:
			checkOne = index
		case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_VIEW, q.ObjectType_OBJECT_SEQUENCE:
			checkOne = check
		default:
			return nil
		}
		for _, o := range x.DropStmt.Objects {
			var parts []string
			for _, it := range o.GetList().GetItems() {
				parts = append(parts, it.GetString_().GetSval())
			}
			if len(parts) == 0 {
				continue
			}
			schema := ""
			if len(parts) > 1 {
				schema = parts[len(parts)-2]
			}
			if ownsSchema(schema, parts[len(parts)-1]) {
				continue
			}
			if err := checkOne(schema, parts[len(parts)-1]); err != nil {
				return err
			}
		}
	case *q.Node_CreateStmt:
		return w.referencesChecks(pc, x.CreateStmt.TableElts)
	case *q.Node_AlterTableStmt:
		if x.AlterTableStmt.Objtype == q.ObjectType_OBJECT_INDEX {
			if r := x.AlterTableStmt.Relation; r != nil {
				return index(r.Schemaname, r.Relname)
			}
			return nil
		}
		var defs []*q.Node
		for _, c := range x.AlterTableStmt.Cmds {
			if cmd := c.GetAlterTableCmd(); cmd != nil && cmd.Subtype != q.AlterTableType_AT_ChangeOwner {
				if err := rv(x.AlterTableStmt.Relation); err != nil {
					return err
				}
				if cmd.Def != nil {
					defs = append(defs, cmd.Def)
				}
			}
		}
		return w.referencesChecks(pc, defs)
	case *q.Node_RenameStmt:
		if x.RenameStmt.RenameType == q.ObjectType_OBJECT_INDEX && x.RenameStmt.Relation != nil {
			return index(x.RenameStmt.Relation.Schemaname, x.RenameStmt.Relation.Relname)
		}
		switch x.RenameStmt.RenameType {
		case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_VIEW, q.ObjectType_OBJECT_SEQUENCE, q.ObjectType_OBJECT_COLUMN,
			q.ObjectType_OBJECT_TABCONSTRAINT:
			return rv(x.RenameStmt.Relation)
		}
	case *q.Node_IndexStmt:
		return rv(x.IndexStmt.Relation)
	case *q.Node_CommentStmt:
		var parts []string
		for _, it := range x.CommentStmt.Object.GetList().GetItems() {
			parts = append(parts, it.GetString_().GetSval())
		}
		switch x.CommentStmt.Objtype {
		case q.ObjectType_OBJECT_COLUMN:
			if len(parts) >= 2 {
				parts = parts[:len(parts)-1] // the column's relation
			}
		case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_VIEW, q.ObjectType_OBJECT_SEQUENCE:
		default:
			return nil
		}
		var err error
		switch len(parts) {
		case 1:
			err = check("", parts[0])
		case 2:
			err = check(parts[0], parts[1])
		}
		if err != nil && x.CommentStmt.Objtype == q.ObjectType_OBJECT_COLUMN {
			// PostgreSQL names a column's relation generically here
			return errNotOwner("relation", parts[len(parts)-1])
		}
		return err
	case *q.Node_AlterSeqStmt:
		return rv(x.AlterSeqStmt.Sequence)
	case *q.Node_ViewStmt:
		if x.ViewStmt.Replace {
			return rv(x.ViewStmt.View)
		}
	}
	return nil
}

// hasIndex reports whether m has an index (or a key constraint's index)
// named name.
func hasIndex(m ddl.TableMeta, name string) bool {
	for _, ix := range m.Indexes {
		if ix.Name == name {
			return true
		}
	}
	if m.PrimaryKey != nil && m.PrimaryKey.Name == name {
		return true
	}
	for _, u := range m.Uniques {
		if u.Name == name {
			return true
		}
	}
	return false
}

// referencesChecks requires REFERENCES on the relations the foreign
// keys among a table's elements (columns, constraints) reference.
func (w *writer) referencesChecks(pc *privCtx, elts []*q.Node) error {
	var cons []*q.Constraint
	for _, n := range elts {
		if c := n.GetConstraint(); c != nil {
			cons = append(cons, c)
		}
		if cd := n.GetColumnDef(); cd != nil {
			for _, cn := range cd.Constraints {
				if c := cn.GetConstraint(); c != nil {
					cons = append(cons, c)
				}
			}
		}
	}
	for _, c := range cons {
		if c.Contype != q.ConstrType_CONSTR_FOREIGN || c.Pktable == nil {
			continue
		}
		key, known := w.relKey(c.Pktable.Schemaname, c.Pktable.Relname)
		if !known {
			continue
		}
		if ti, ok := w.v.base.tables[key]; ok {
			if err := pc.need(pc.role, ti.def, access.PrivReferences); err != nil {
				return err
			}
		}
	}
	return nil
}

// redefine is the change that stores a relation's new owner or ACL.
func redefine(e graph.TableEntry, m ddl.TableMeta, tag string) *ddl.AlterTable {
	def := e.Def
	def.Extra = m.Encode()
	return &ddl.AlterTable{Name: e.Name, Def: def, Meta: m, CommandTag: tag}
}

// changeOwner runs ALTER TABLE|VIEW|SEQUENCE … OWNER TO, as PostgreSQL
// 15's ATExecChangeOwner: nothing to do when the owner stays; otherwise
// a superuser may, anyone else must own the relation, be a member of the
// new owner, and the new owner must hold CREATE on schema public
// (schema_privileges.go).
func (w *writer) changeOwner(pc *privCtx, n *q.Node) ([]ddl.Change, error) {
	st := n.GetAlterTableStmt()
	if st == nil || st.Objtype == q.ObjectType_OBJECT_INDEX {
		return nil, nil
	}
	var spec *q.RoleSpec
	for _, c := range st.Cmds {
		if cmd := c.GetAlterTableCmd(); cmd != nil && cmd.Subtype == q.AlterTableType_AT_ChangeOwner {
			spec = cmd.Newowner
		}
	}
	if spec == nil || st.Relation == nil || pc == nil {
		return nil, nil
	}
	e, m, ok := w.relationOf(st.Relation.Relname)
	if !ok {
		return nil, nil
	}
	rc := &roleChange{s: w.s, c: pc.c}
	newOwner, _, err := rc.spec(spec)
	if err != nil {
		return nil, err
	}
	old := access.OwnerOID(m.Owner)
	if newOwner.OID == old {
		return nil, nil
	}
	if !rc.isSuper() {
		switch {
		case !pc.c.IsOwner(pc.role, m.Owner):
			return nil, errNotOwner(metaKind(m), e.Name)
		case !pc.c.MemberOf(pc.role, newOwner.OID, false):
			return nil, wire.Errorf(wire.CodeInsufficientPrivilege, "must be member of role \"%s\"", newOwner.Name)
		case !pc.schemaPrivilege(w.s.branch(), newOwner.OID, access.PrivSchemaCreate):
			return nil, errPermission("schema", "public")
		}
	}
	changeOwner(&m, old, newOwner.OID)
	return []ddl.Change{redefine(e, m, alterTagOf(st.Objtype))}, nil
}

// changeOwner gives m (a copy the caller redefines) to owner: its ACL's
// grants by and to the old owner move with it, and the sequences its
// columns own follow the table's owner. The bootstrap role is stored as
// 0.
func changeOwner(m *ddl.TableMeta, old, owner uint32) {
	m.ACL = access.ChangeTableOwner(m.ACL, old, owner)
	for i, c := range m.Columns {
		if c.Sequence != nil && c.Sequence.ACL != nil {
			sq := *c.Sequence
			sq.ACL = access.ChangeTableOwner(sq.ACL, old, owner)
			m.Columns[i].Sequence = &sq
		}
	}
	m.Owner = owner
	if m.Owner == access.BootstrapOID {
		m.Owner = 0
	}
}

// dependentName is how DROP ROLE's DETAIL names a catalog entry:
// relations by name, types by their name, functions by name and
// argument types (PostgreSQL's getObjectDescription).
func dependentName(e graph.TableEntry, m ddl.TableMeta) (kind, name string) {
	switch {
	case m.Function != nil:
		fname, _ := ddl.FuncName(e.Name)
		return "function", ddl.ExecFunction(e, fname, m).Signature()
	case m.Enum != nil || m.Domain != nil:
		tname, _ := ddl.TypeName(e.Name)
		return "type", tname
	}
	return metaKind(m), e.Name
}

func alterTagOf(t q.ObjectType) string {
	return "ALTER " + strings.ReplaceAll(strings.TrimPrefix(t.String(), "OBJECT_"), "_", " ")
}

// relationDependents lists what depends on role in the relations of
// every branch, as PostgreSQL's shared dependencies do for DROP ROLE:
// on the session's branch (its database) each relation it owns or has
// grants on, on the others a count per branch.
func (s *session) relationDependents(ctx context.Context, role uint32) (local []string, remote []string, err error) {
	branches, err := s.root.Branches(ctx)
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(branches)
	for _, b := range branches {
		sn, err := s.root.Head(ctx, b)
		if err != nil {
			if graph.IsUnknownBranch(err) {
				continue // deleted meanwhile
			}
			return nil, nil, err
		}
		tables := sn.Catalog().Tables()
		if b == s.branch() && s.tx != nil && s.tx.base != nil && s.tx.base.sn.Branch == b {
			// inside a transaction: its own DDL and grants count (a
			// REVOKE before DROP ROLE in one transaction; roles_txn.go)
			tables = s.tx.pend.ddlOverlay(s.tx.base).Tables()
		}
		var mine []string
		for _, e := range tables {
			m, err := ddl.DecodeMeta(e.Name, e.Def)
			if err != nil {
				continue
			}
			kind, ename := dependentName(e, m)
			if m.Owner == role {
				mine = append(mine, "owner of "+kind+" "+ename)
			}
			named := func(acl *access.TableACL, kind, name string) {
				if acl == nil || m.Owner == role {
					return
				}
				for _, it := range acl.Items {
					if it.Grantee == role || it.Grantor == role {
						mine = append(mine, "privileges for "+kind+" "+name)
						return
					}
				}
			}
			named(m.ACL, kind, ename)
			for _, c := range m.Columns {
				if c.Sequence != nil {
					named(c.Sequence.ACL, "sequence", c.Sequence.Name)
				}
			}
		}
		switch {
		case len(mine) == 0:
		case b == s.branch():
			local = append(local, mine...)
		case len(mine) == 1:
			remote = append(remote, fmt.Sprintf("1 object in database %s", b))
		default:
			remote = append(remote, fmt.Sprintf("%d objects in database %s", len(mine), b))
		}
	}
	return local, remote, nil
}

// grantContext is the privilege context of GRANT: in a root without a
// role catalog, the session user is the one role (OID 10, superuser),
// so grants to PUBLIC are recorded and take effect once roles exist.
func (s *session) grantContext(ctx context.Context, pc *privCtx) *privCtx {
	if pc != nil {
		return pc
	}
	c := &access.Catalog{}
	c.AddRole(access.NewSuperuser(s.info.User))
	return &privCtx{c: c, role: access.BootstrapOID, name: s.info.User}
}

// grantTables runs GRANT/REVOKE on tables and views; handled is false
// for other objects (left to planner/ddl).
func (w *writer) grantTables(pc *privCtx, n *q.Node) (changes []ddl.Change, handled bool, err error) {
	st := n.GetGrantStmt()
	if st == nil {
		return nil, false, nil
	}
	pc = w.s.grantContext(w.ctx, pc)
	seqs := st.Objtype == q.ObjectType_OBJECT_SEQUENCE
	switch st.Objtype {
	case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_SEQUENCE:
	case q.ObjectType_OBJECT_FUNCTION, q.ObjectType_OBJECT_PROCEDURE, q.ObjectType_OBJECT_ROUTINE:
		changes, err := w.grantFunctions(pc, st) // function_privileges.go
		return changes, true, err
	case q.ObjectType_OBJECT_TYPE, q.ObjectType_OBJECT_DOMAIN:
		changes, err := w.grantTypes(pc, st) // type_privileges.go
		return changes, true, err
	default:
		return nil, false, nil
	}
	name := grantName(st)
	if err := (&roleChange{s: w.s, c: pc.c}).checkGrantedBy(st.Grantor, pc.role); err != nil {
		return nil, true, err
	}
	// PostgreSQL's order: the grantor, the relations, the grantees, the
	// privileges
	// rel is one object granted on: a relation, or the sequence of its
	// column col (-1: the relation itself); relations named twice share
	// their meta, and each changed one is redefined once
	type rel struct {
		e    graph.TableEntry
		m    *ddl.TableMeta
		name string
		col  int
	}
	var rels []rel
	metas := map[string]*ddl.TableMeta{}
	var order []graph.TableEntry
	metaOf := func(e graph.TableEntry, m ddl.TableMeta) *ddl.TableMeta {
		if mp, ok := metas[e.Name]; ok {
			return mp
		}
		metas[e.Name] = &m
		order = append(order, e)
		return &m
	}
	// ownedSeq finds the relation whose column owns sequence name
	ownedSeq := func(name string) (rel, bool) {
		for _, e := range w.ddlCatalog().Tables() {
			m, err := ddl.DecodeMeta(e.Name, e.Def)
			if err != nil {
				continue
			}
			for ci, c := range m.Columns {
				if c.Sequence != nil && c.Sequence.Name == name {
					return rel{e, metaOf(e, m), name, ci}, true
				}
			}
		}
		return rel{}, false
	}
	if seqs || st.Targtype != q.GrantTargetType_ACL_TARGET_OBJECT {
		// PostgreSQL refuses column privileges before it looks up objects
		for _, pn := range st.Privileges {
			if ap := pn.GetAccessPriv(); ap != nil && len(ap.Cols) > 0 {
				return nil, true, wire.Errorf(pgerr.InvalidGrantOperation, "column privileges are only valid for relations")
			}
		}
	}
	switch st.Targtype {
	case q.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
		for _, o := range st.Objects {
			schema := o.GetString_().GetSval()
			if schema != "public" {
				return nil, true, wire.Errorf(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schema)
			}
			for _, e := range w.ddlCatalog().Tables() {
				m, err := ddl.DecodeMeta(e.Name, e.Def)
				if err != nil {
					continue
				}
				if (m.Relkind == ddl.RelSequence) == seqs {
					rels = append(rels, rel{e, metaOf(e, m), e.Name, -1})
				}
				if !seqs || m.Relkind == ddl.RelSequence {
					continue
				}
				for ci, c := range m.Columns {
					if c.Sequence != nil {
						rels = append(rels, rel{e, metaOf(e, m), c.Sequence.Name, ci})
					}
				}
			}
		}
	case q.GrantTargetType_ACL_TARGET_OBJECT:
		for _, o := range st.Objects {
			rv := o.GetRangeVar()
			if rv == nil {
				continue
			}
			key, known := w.relKey(rv.Schemaname, rv.Relname)
			if !known {
				return nil, true, wire.Errorf(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", rv.Schemaname, rv.Relname)
			}
			e, m, ok := w.relationOf(key)
			if !ok {
				if r, owned := ownedSeq(rv.Relname); owned {
					rels = append(rels, r)
					continue
				}
				return nil, true, wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
			}
			if seqs && m.Relkind != ddl.RelSequence {
				return nil, true, wire.Errorf(pgerr.WrongObjectType, "\"%s\" is not a sequence", rv.Relname)
			}
			rels = append(rels, rel{e, metaOf(e, m), e.Name, -1})
		}
	default:
		return nil, true, notSupported("ALTER DEFAULT PRIVILEGES")
	}
	rc := &roleChange{s: w.s, c: pc.c}
	grantees, err := rc.granteeOIDs(st.Grantees)
	if err != nil {
		return nil, true, err
	}
	allPrivs := len(st.Privileges) == 0
	var privs access.TablePrivs
	var cols []*q.AccessPriv
	if allPrivs {
		privs = access.AllTablePrivs
		if seqs {
			privs = access.AllSequencePrivs
		}
	}
	for _, pn := range st.Privileges {
		ap := pn.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			// column privileges (column_privileges.go)
			if seqs {
				return nil, true, wire.Errorf(pgerr.InvalidGrantOperation, "column privileges are only valid for relations")
			}
			cols = append(cols, ap)
			continue
		}
		if seqs {
			p, ok := access.ParseSequencePriv(ap.PrivName)
			if !ok {
				if _, known := access.ParseTablePriv(ap.PrivName); known || isPrivilegeName(ap.PrivName) {
					return nil, true, wire.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type %s for sequence", strings.ToUpper(ap.PrivName))
				}
				return nil, true, wire.Errorf(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
			}
			privs |= p
			continue
		}
		p, ok := access.ParseTablePriv(ap.PrivName)
		if !ok {
			switch strings.ToUpper(ap.PrivName) {
			case "USAGE":
				return nil, true, wire.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type USAGE for table")
			case "CREATE", "CONNECT", "TEMPORARY", "TEMP", "EXECUTE", "SET", "ALTER SYSTEM":
				return nil, true, wire.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type %s for relation", strings.ToUpper(ap.PrivName))
			}
			return nil, true, wire.Errorf(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
		}
		privs |= p
	}
	changed := map[string]bool{}
	for _, r := range rels {
		if privs == 0 && !allPrivs {
			// only column privileges
			if err := w.grantColumns(pc, st, r.m, r.name, cols, grantees); err != nil {
				return nil, true, err
			}
			changed[r.e.Name] = true
			continue
		}
		owner, cur, kind := r.m.Owner, r.m.ACL, metaKind(*r.m)
		if r.col >= 0 {
			cur, kind = r.m.Columns[r.col].Sequence.ACL, "sequence"
		}
		privs := privs
		if kind == "sequence" {
			cur = access.SequenceACL(owner, cur)
			// GRANT … ON TABLE naming a sequence: PostgreSQL keeps the
			// sequence's privileges of those named, with a warning
			switch {
			case seqs:
			case allPrivs:
				privs = access.AllSequencePrivs
			case privs&^access.AllSequencePrivs != 0:
				w.warn(fmt.Sprintf("sequence \"%s\" only supports USAGE, SELECT, and UPDATE privileges", r.name))
				privs &= access.AllSequencePrivs
			}
		}
		grantor, options := pc.c.TableGrantor(pc.role, owner, cur, privs)
		if options == 0 {
			if held, _ := pc.c.TablePrivileges(grantor, owner, cur); held == 0 {
				return nil, true, errPermission(kind, r.name)
			}
		}
		this := privs & options
		what := "were granted"
		if !st.IsGrant {
			what = "could be revoked"
		}
		if this == 0 {
			w.warn(fmt.Sprintf("no privileges %s for \"%s\"", what, r.name))
			continue
		}
		if !allPrivs && this != privs {
			w.warn(fmt.Sprintf("not all privileges %s for \"%s\"", what, r.name))
		}
		acl := cur
		if acl == nil {
			acl = &access.TableACL{Items: access.DefaultTableACL(owner)}
		}
		for _, g := range grantees {
			if st.IsGrant {
				acl = access.GrantTable(acl, owner, g, grantor, this, st.GrantOption)
				continue
			}
			next, err := pc.c.RevokeTable(acl, owner, g, grantor, this, st.GrantOption, st.Behavior == q.DropBehavior_DROP_CASCADE)
			if err != nil {
				return nil, true, wire.Errorf(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
			}
			acl = next
		}
		if r.col >= 0 {
			sq := *r.m.Columns[r.col].Sequence
			sq.ACL = acl
			r.m.Columns[r.col].Sequence = &sq
		} else {
			r.m.ACL = acl
			// a REVOKE on the table revokes those privileges on its
			// columns too; then the statement's column privileges
			if !st.IsGrant && this&access.AllColumnPrivs != 0 {
				if err := w.revokeAllColumns(pc, st, r.m, grantor, this&access.AllColumnPrivs, grantees); err != nil {
					return nil, true, err
				}
			}
			if len(cols) > 0 {
				if err := w.grantColumns(pc, st, r.m, r.name, cols, grantees); err != nil {
					return nil, true, err
				}
			}
		}
		changed[r.e.Name] = true
	}
	for _, e := range order {
		if changed[e.Name] {
			changes = append(changes, redefine(e, *metas[e.Name], name))
		}
	}
	if len(changes) == 0 {
		changes = []ddl.Change{&ddl.NoOp{CommandTag: name}}
	}
	return changes, true, nil
}

// isPrivilegeName reports a privilege PostgreSQL knows for some object
// kind (GRANT names it for a sequence: 0LP01, not a syntax error).
func isPrivilegeName(n string) bool {
	switch strings.ToUpper(n) {
	case "USAGE", "CREATE", "CONNECT", "TEMPORARY", "TEMP", "EXECUTE", "SET", "ALTER SYSTEM":
		return true
	}
	return false
}

func grantName(st *q.GrantStmt) string {
	if st.IsGrant {
		return "GRANT"
	}
	return "REVOKE"
}

// warn sends a WARNING to the client (not while describing).
func (w *writer) warn(msg string) {
	if w.s.info.Notice != nil && !w.describe {
		w.s.info.Notice(&wire.Error{Severity: "WARNING", Code: pgerr.WarningPrivilegeNotGranted, Message: msg})
	}
}
