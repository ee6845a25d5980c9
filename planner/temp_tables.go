package planner

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Temporary tables (docs/architecture.md, "Temporary tables").
//
// CREATE TEMPORARY TABLE creates a table of the session's own schema
// pg_temp_N (CREATE TEMPORARY VIEW and SEQUENCE a view or sequence of
// it, which the rest of this file carries along as catalog entries). Inside a transaction it is pending state like any created
// table (its DDL, rows, savepoints and ROLLBACK work unchanged); when
// the transaction commits, the session takes its temporary tables out of
// the pending state (splitTemp) before anything is published, so they
// never reach a graph commit, and keeps them in memory as they were left
// (tempStore). Every catalog the session reads is the snapshot's with
// the session's temporary schema and tables added (withTemp): their
// rows come from memory, their definitions take part in DDL planning,
// and later transactions change them through the same pending state.
// The session's temporary tables go with it when it ends.

// tempStore is the session's temporary schema and tables as its last
// committed transaction left them. It is never changed in place: a
// commit replaces it.
type tempStore struct {
	ns  string // pg_temp_N
	num int    // the N (released when the session ends)
	oid uint32 // the schema's namespace OID
	// entries are the manifest-form entries of the schema and its
	// relations (tables, sequences), with ids assigned
	entries []graph.TableEntry
	tables  map[string]*tableInfo // tables by storage name, rows in memory
	gen     uint64                // plan-cache key (catKey.temp)
	mu      sync.Mutex
	wrapped map[*catalog]*catalog // withTemp's catalogs
}

// tempNums hands out the N of pg_temp_N: the smallest one no live
// session of the process holds (PostgreSQL numbers them by backend).
var tempNums struct {
	sync.Mutex
	used map[int]bool
}

func takeTempNum() int {
	tempNums.Lock()
	defer tempNums.Unlock()
	if tempNums.used == nil {
		tempNums.used = map[int]bool{}
	}
	n := 3 // PostgreSQL's first client backend gets pg_temp_3
	for tempNums.used[n] {
		n++
	}
	tempNums.used[n] = true
	return n
}

func releaseTempNum(n int) {
	tempNums.Lock()
	defer tempNums.Unlock()
	delete(tempNums.used, n)
}

// tempIDs numbers temporary relations (their OIDs are firstUserOID +
// id), far from the ids graph commits allocate.
var tempIDs atomic.Uint64

const tempIDBase = 0x6000_0000

func nextTempID() uint64 { return tempIDBase + tempIDs.Add(1) }

// tempSchemaOIDBase is where temporary schemas' namespace OIDs start
// (created schemas take theirs from 0x3E00_0000 up, ddl/schema.go).
const tempSchemaOIDBase = 0x3F00_0000

// isTempName reports a storage name of the temporary schema ns: the
// schema's own entry or one of its relations.
func isTempName(ns, name string) bool {
	return strings.HasPrefix(name, ns+".") || name == ddl.SchemaEntryPrefix+ns
}

// tempGen is the plan-cache key of the session's temporary tables.
func (s *session) tempGen() uint64 {
	if s.temp == nil {
		return 0
	}
	return s.temp.gen
}

// tempExec is an exec catalog with the temporary schema's tables added.
type tempExec struct {
	exec.Catalog
	ns   string
	defs []*exec.TableDef
}

// Tables implements exec.Catalog.
func (t *tempExec) Tables(schema string) []*exec.TableDef {
	if schema == t.ns {
		return t.defs
	}
	return t.Catalog.Tables(schema)
}

// Table implements exec.Catalog.
func (t *tempExec) Table(schema, name string) *exec.TableDef {
	if schema == t.ns {
		for _, d := range t.defs {
			if d.Name == name || d.RelName() == name {
				return d
			}
		}
		return nil
	}
	return t.Catalog.Table(schema, name)
}

// withTemp is c with the session's temporary schema and tables added
// (memoized, so a snapshot keeps one catalog per temporary state).
func (s *session) withTemp(c *catalog) *catalog {
	t := s.temp
	if t == nil || c == nil {
		return c
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if w, ok := t.wrapped[c]; ok {
		return w
	}
	cp := *c
	cp.schemas = append(slices.Clone(c.schemas), ddl.SchemaDef{Name: t.ns, OID: t.oid})
	cp.execSchemas = append(slices.Clone(c.execSchemas), exec.SchemaDef{Name: t.ns, OID: t.oid, Temp: true})
	cp.tables = maps.Clone(c.tables)
	if cp.tables == nil {
		cp.tables = map[string]*tableInfo{}
	}
	te := &tempExec{Catalog: c.Catalog, ns: t.ns}
	for _, e := range t.entries {
		if ti, ok := t.tables[e.Name]; ok {
			// the planner's map keeps storage names (as buildCatalog's)
			cp.tables[e.Name] = ti
			te.defs = append(te.defs, cp.inSchema(ti.def))
			continue
		}
		if td, ok := sqlTableDef(e); ok && td.View != nil {
			// a temporary view: a relation of the exec catalog only,
			// as buildCatalog's views
			te.defs = append(te.defs, cp.inSchema(td))
		}
	}
	cp.Catalog = te
	exec.RegisterTempNames(t.oid, t.ns, te.defs)
	cp.ddlBase = ddl.TempCatalog{Base: c.sn.Catalog(), Extra: t.entries}
	if t.wrapped == nil || len(t.wrapped) > 64 {
		t.wrapped = map[*catalog]*catalog{}
	}
	t.wrapped[c] = &cp
	return &cp
}

// ddlEntries is the catalog DDL is planned against: the snapshot's
// entries plus the session's temporary ones.
func (c *catalog) ddlEntries() ddl.Catalog {
	if c.ddlBase != nil {
		return c.ddlBase
	}
	return c.sn.Catalog()
}

// tempCreate turns CREATE TEMPORARY TABLE, VIEW and SEQUENCE (and
// CREATE … pg_temp.x) into the creation of a relation of the session's
// temporary schema, creating the schema first when the session has none
// yet, and records a table's ON COMMIT action. Other statements pass
// unchanged, after the checks PostgreSQL makes on them.
func (w *writer) tempCreate(n *sqlparse.Node) (*sqlparse.Node, error) {
	if v := n.GetViewStmt(); v != nil && v.View != nil {
		if !isTempRangeVar(v.View) {
			return n, nil
		}
		cp := proto.Clone(v).(*sqlparse.ViewStmt)
		if err := w.tempRelation(cp.View); err != nil {
			return nil, err
		}
		return &sqlparse.Node{Node: &sqlparse.Node_ViewStmt{ViewStmt: cp}}, nil
	}
	if sq := n.GetCreateSeqStmt(); sq != nil && sq.Sequence != nil {
		if !isTempRangeVar(sq.Sequence) {
			return n, nil
		}
		cp := proto.Clone(sq).(*sqlparse.CreateSeqStmt)
		if err := w.tempRelation(cp.Sequence); err != nil {
			return nil, err
		}
		return &sqlparse.Node{Node: &sqlparse.Node_CreateSeqStmt{CreateSeqStmt: cp}}, nil
	}
	st := n.GetCreateStmt()
	if st == nil || st.Relation == nil {
		return n, nil
	}
	rv := st.Relation
	if !isTempRangeVar(rv) {
		if st.Oncommit != sqlparse.OnCommitAction_ONCOMMIT_NOOP && st.Oncommit != sqlparse.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED {
			return nil, wire.Errorf(pgerr.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
		}
		if err := w.tempReferences(st, false); err != nil {
			return nil, err
		}
		return n, nil
	}
	if err := w.tempSchemaCheck(rv, true); err != nil {
		return nil, err
	}
	if err := w.tempReferences(st, true); err != nil {
		return nil, err
	}
	cp := proto.Clone(st).(*sqlparse.CreateStmt)
	if err := w.tempRelation(cp.Relation); err != nil {
		if we, ok := err.(*wire.Error); ok && we.Code == wire.CodeInsufficientPrivilege {
			err = positioned(we, w.sql, rv.Location) // as PostgreSQL points
		}
		return nil, err
	}
	ns := cp.Relation.Schemaname
	cp.Oncommit = sqlparse.OnCommitAction_ONCOMMIT_NOOP
	if w.s.tempOnCommit == nil {
		w.s.tempOnCommit = map[string]sqlparse.OnCommitAction{}
	}
	if _, exists := w.ddlCatalog().Table(ddl.QualifiedName(ns, rv.Relname)); !exists {
		w.s.tempOnCommit[ddl.QualifiedName(ns, rv.Relname)] = st.Oncommit
	}
	return &sqlparse.Node{Node: &sqlparse.Node_CreateStmt{CreateStmt: cp}}, nil
}

// isTempRangeVar reports the name of a relation CREATE makes temporary:
// TEMPORARY, or qualified by pg_temp or a temporary schema.
func isTempRangeVar(rv *sqlparse.RangeVar) bool {
	return rv.Relpersistence == "t" || rv.Schemaname == "pg_temp" || ddl.IsTempSchema(rv.Schemaname)
}

// tempSchemaCheck refuses a temporary relation qualified by a schema
// that is not the session's temporary one, as PostgreSQL does (which
// points at the name of a table, not of a view or sequence).
func (w *writer) tempSchemaCheck(rv *sqlparse.RangeVar, table bool) error {
	loc := rv.Location
	if !table {
		loc = -1
	}
	switch {
	case rv.Schemaname == "" || rv.Schemaname == "pg_temp":
	case ddl.IsTempSchema(rv.Schemaname):
		if w.s.temp == nil || rv.Schemaname != w.s.temp.ns {
			return positioned(wire.Errorf(pgerr.InvalidTableDefinition, "cannot create relations in temporary schemas of other sessions"), w.sql, loc)
		}
	default:
		return positioned(wire.Errorf(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema"), w.sql, loc)
	}
	return nil
}

// tempRelation checks rv (a temporary relation's name, changed in
// place) and makes it name a relation of the session's temporary
// schema, which it creates when needed.
func (w *writer) tempRelation(rv *sqlparse.RangeVar) error {
	if err := w.tempSchemaCheck(rv, false); err != nil {
		return err
	}
	ns, err := w.ensureTempSchema()
	if err != nil {
		return err
	}
	rv.Relpersistence = "p"
	rv.Schemaname = ns
	return nil
}

// tempReferences refuses foreign keys between temporary and permanent
// tables, as PostgreSQL does (the permanent side would outlive, and
// never see, the session's rows).
func (w *writer) tempReferences(st *sqlparse.CreateStmt, temp bool) error {
	var cons []*sqlparse.Constraint
	for _, el := range st.TableElts {
		if c := el.GetConstraint(); c != nil {
			cons = append(cons, c)
		}
		if cd := el.GetColumnDef(); cd != nil {
			for _, c := range cd.Constraints {
				if k := c.GetConstraint(); k != nil {
					cons = append(cons, k)
				}
			}
		}
	}
	for _, c := range cons {
		if c.Contype != sqlparse.ConstrType_CONSTR_FOREIGN || c.Pktable == nil {
			continue
		}
		if w.refersTemp(c.Pktable, st.Relation) == temp {
			continue
		}
		if temp {
			return wire.Errorf(pgerr.InvalidTableDefinition, "constraints on temporary tables may reference only temporary tables")
		}
		return wire.Errorf(pgerr.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
	}
	return nil
}

// refersTemp reports whether rv names a temporary table (self is the
// table being created: a self-reference has its persistence).
func (w *writer) refersTemp(rv, self *sqlparse.RangeVar) bool {
	s := rv.Schemaname
	if s == "pg_temp" || ddl.IsTempSchema(s) {
		return true
	}
	if s != "" {
		return false
	}
	if rv.Relname == self.Relname && self.Schemaname == "" {
		return self.Relpersistence == "t"
	}
	t := w.s.temp
	if t == nil {
		return false
	}
	_, ok := w.ddlCatalog().Table(ddl.QualifiedName(t.ns, rv.Relname))
	return ok
}

// ensureTempSchema returns the session's temporary schema, creating it
// (in the pending state, when the catalog the statement plans against
// does not hold it yet).
func (w *writer) ensureTempSchema() (string, error) {
	s := w.s
	ns := ""
	if s.temp != nil {
		ns = s.temp.ns
	}
	if err := w.tempPrivilege(s.temp == nil, ns); err != nil { // database_privileges.go
		return "", err
	}
	if s.temp == nil {
		num := takeTempNum()
		s.temp = &tempStore{num: num, oid: tempSchemaOIDBase + uint32(num), tables: map[string]*tableInfo{}, gen: genCounter.Add(1)}
		s.temp.ns = ddl.TempSchemaPrefix + strconv.Itoa(num)
	}
	ns = s.temp.ns
	if _, ok := w.ddlCatalog().Table(ddl.SchemaEntryPrefix + ns); !ok {
		if err := w.applyChange(ddl.TempSchema(ns, s.temp.oid)); err != nil {
			return "", err
		}
	}
	return ns, nil
}

// touchesTemp reports pending changes of the temporary schema ns.
func (p *pendingState) touchesTemp(ns string) bool {
	for name, pt := range p.tables {
		if isTempName(ns, name) && (!pt.empty() || pt.mode != modeRows) {
			return true
		}
	}
	return slices.ContainsFunc(p.ddl, func(ch ddl.Change) bool { return isTempName(ns, changeName(ch)) })
}

// changeName is the relation a pending DDL change is about.
func changeName(ch ddl.Change) string {
	switch c := ch.(type) {
	case *ddl.CreateTable:
		return c.Name
	case *ddl.DropTable:
		return c.Name
	case *ddl.AlterTable:
		return c.Name
	}
	return ""
}

// dropTemp removes everything about the temporary schema ns from the
// pending state: what remains is what the graph commit publishes.
func (p *pendingState) dropTemp(ns string) {
	is := func(name string) bool { return isTempName(ns, name) }
	p.ddl = slices.DeleteFunc(slices.Clone(p.ddl), func(ch ddl.Change) bool { return is(changeName(ch)) })
	maps.DeleteFunc(p.tables, func(k string, _ *pendingTable) bool { return is(k) })
	maps.DeleteFunc(p.reads, func(k string, _ bool) bool { return is(k) })
	maps.DeleteFunc(p.locks, func(k string, _ bool) bool { return is(k) })
	maps.DeleteFunc(p.since, func(k string, _ graph.TableEntry) bool { return is(k) })
	maps.DeleteFunc(p.readLog, func(k string, _ *tableReads) bool { return is(k) })
	p.overlay, p.derived = nil, nil
	p.bump()
}

// splitTemp takes the session's temporary tables out of a committing
// transaction's pending state: it returns them as the transaction
// leaves them (nil when it did not touch them), after ON COMMIT DELETE
// ROWS and DROP, and leaves in pend only what the graph commit
// publishes. The caller installs the result once that commit succeeded.
func (s *session) splitTemp(ctx context.Context, root *catalog, pend *pendingState) (*tempStore, error) {
	t := s.temp
	if t == nil || !pend.touchesTemp(t.ns) {
		return nil, nil
	}
	eff, err := effective(root, pend)
	if err != nil {
		return nil, err
	}
	v := newView(root, pend)
	next := &tempStore{ns: t.ns, num: t.num, oid: t.oid, tables: map[string]*tableInfo{}, gen: genCounter.Add(1)}
	dropped := map[string]bool{}
	for name, act := range s.tempOnCommit {
		if act == sqlparse.OnCommitAction_ONCOMMIT_DROP {
			dropped[name] = true
		}
	}
	for _, e := range pend.ddlOverlay(root).Tables() {
		if e.Name == ddl.SchemaEntryPrefix+t.ns {
			next.entries = append(next.entries, e)
			continue
		}
		if !strings.HasPrefix(e.Name, t.ns+".") || dropped[e.Name] || ownedByDropped(e, dropped) {
			continue
		}
		if e.ID == 0 {
			e.ID = nextTempID()
		}
		if _, ok := eff.tables[e.Name]; !ok {
			next.entries = append(next.entries, e) // a sequence
			continue
		}
		if old, ok := t.tables[e.Name]; ok && old.entry.ID == e.ID && !pend.changed(e.Name) {
			next.tables[e.Name] = old
			next.entries = append(next.entries, old.entry)
			continue
		}
		var recs []arrow.RecordBatch
		if s.tempOnCommit[e.Name] != sqlparse.OnCommitAction_ONCOMMIT_DELETE_ROWS {
			if recs, err = tempRows(ctx, v, e.Name); err != nil {
				return nil, err
			}
		}
		td, ok := sqlTableDef(e)
		if !ok {
			return nil, wire.Errorf(pgerr.DataCorrupted, "table %q has an unreadable definition", e.Name)
		}
		td.Source = &exec.MemTable{Cols: td.Columns, Records: recs, Keys: ddl.LookupColumns(td)}
		next.tables[e.Name] = newTableInfo(e, td)
		next.entries = append(next.entries, e)
	}
	for name := range s.tempOnCommit {
		if _, ok := next.tables[name]; !ok {
			delete(s.tempOnCommit, name)
		}
	}
	pend.dropTemp(t.ns)
	return next, nil
}

// ownedByDropped reports a sequence owned by a column of a table ON
// COMMIT DROP drops (serial columns' sequences go with their table).
func ownedByDropped(e graph.TableEntry, dropped map[string]bool) bool {
	if len(dropped) == 0 {
		return false
	}
	m, err := ddl.DecodeMeta(e.Name, e.Def)
	if err != nil || m.Sequence == nil || m.Sequence.OwnedBy == "" {
		return false
	}
	for d := range dropped {
		if strings.HasPrefix(m.Sequence.OwnedBy, d+".") {
			return true
		}
	}
	return false
}

// tempRows reads every row of a table as the view sees it.
func tempRows(ctx context.Context, v *view, name string) ([]arrow.RecordBatch, error) {
	td, ok := v.source(name)
	if !ok {
		return nil, nil
	}
	cols := make([]int, len(td.Columns))
	for i := range cols {
		cols[i] = i
	}
	var recs []arrow.RecordBatch
	err := td.Source.Scan(ctx, exec.ScanRequest{Columns: cols}, func(rec arrow.RecordBatch, _ []uint64) error {
		if rec.NumRows() > 0 {
			rec.Retain()
			recs = append(recs, rec)
		}
		return nil
	})
	return recs, err
}

// installTemp makes a committed transaction's temporary tables the
// session's.
func (s *session) installTemp(next *tempStore) {
	if next != nil {
		s.temp = next
	}
}

// endTemp drops the session's temporary tables (the session ends).
func (s *session) endTemp() {
	if s.temp != nil {
		releaseTempNum(s.temp.num)
		s.temp = nil
	}
}

// copyIntoTemp reports a COPY FROM into a temporary table: its rows go
// the transaction's way (the streaming path publishes to the graph).
func (s *session) copyIntoTemp(ctx context.Context, st *wire.Statement) bool {
	if s.temp == nil {
		return false
	}
	_, head, err := s.head(ctx)
	if err != nil {
		return false
	}
	w := &writer{s: s, v: newView(head, newPendingState()), ctx: ctx}
	ti, err := w.copyTarget(st)
	return err == nil && strings.HasPrefix(ti.def.Name, s.temp.ns+".")
}

// lookupPath is the search path unqualified relation names resolve
// through: search_path with the temporary schema where PostgreSQL
// searches it (exec.WithTempSchema).
func (s *session) lookupPath() []string {
	ns := ""
	if s.temp != nil {
		ns = s.temp.ns
	}
	return exec.WithTempSchema(s.searchPath(), ns)
}

// discard runs DISCARD TEMP (DISCARD ALL is wire's, which calls
// DiscardTemp); the other forms answer 0A000.
func (s *session) discard(st *sqlparse.DiscardStmt) (string, error) {
	if st.Target != sqlparse.DiscardMode_DISCARD_TEMP {
		return "", notSupported("DISCARD " + strings.TrimPrefix(st.Target.String(), "DISCARD_"))
	}
	if s.inBlock() {
		return "", notSupported("DISCARD TEMP inside a transaction block")
	}
	s.DiscardTemp()
	return "DISCARD TEMP", nil
}

// DiscardTemp implements wire.TempDiscarder: the session's temporary
// tables are dropped (its temporary schema stays, as in PostgreSQL).
func (s *session) DiscardTemp() {
	t := s.temp
	if t == nil {
		return
	}
	next := &tempStore{ns: t.ns, num: t.num, oid: t.oid, tables: map[string]*tableInfo{}, gen: genCounter.Add(1)}
	for _, e := range t.entries {
		if e.Name == ddl.SchemaEntryPrefix+t.ns {
			next.entries = append(next.entries, e)
		}
	}
	s.temp = next
	clear(s.tempOnCommit)
}
