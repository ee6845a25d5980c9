package planner

import (
	"context"
	"errors"
	"github.com/pggraph/pggraph/access"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// writeOut is a writing statement's outcome: its command tag and the
// RETURNING rows (materialized: they are only known once every row is).
type writeOut struct {
	tag  string
	cols []wire.Column
	rows [][]any
	held int64 // estimated bytes of rows (holdReturning)
	// spill holds the RETURNING rows after rows once they pass the
	// statement's share of memory (holdReturning), cc converts them
	spill *exec.SpillFile
	cc    *cellCodec
}

// stmtName is the statement's name in messages ("INSERT", …).
func (p *plan) stmtName() string {
	switch p.kind {
	case stmtInsert:
		return "INSERT"
	case stmtUpdate:
		return "UPDATE"
	case stmtDelete:
		return "DELETE"
	case stmtMerge:
		return "MERGE"
	case stmtTruncate:
		return "TRUNCATE TABLE"
	case stmtDDL:
		return p.ddlName
	}
	return "SELECT"
}

// readOnly reports a READ ONLY transaction (BEGIN READ ONLY, SET
// TRANSACTION READ ONLY, default_transaction_read_only) or a SET
// graph.as_of snapshot.
func (s *session) readOnly() bool {
	if s.tx != nil && s.tx.readOnly {
		return true
	}
	if s.asOfActive() {
		return true
	}
	if s.info.Settings != nil {
		if v, _ := s.info.Settings.Get("transaction_read_only"); v == "on" {
			return true
		}
		if v, _ := s.info.Settings.Get("default_transaction_read_only"); v == "on" && (s.tx == nil || s.tx.implicit) {
			return true
		}
	}
	return false
}

// executeWrite runs INSERT/UPDATE/DELETE/MERGE/TRUNCATE, DDL and graph
// procedure calls.
func (s *session) executeWrite(ctx context.Context, st *wire.Statement, p *plan, params []any) (wire.Result, error) {
	if p.kind == stmtGraph {
		s.unpin()
		res, err := s.execGraphCall(ctx, p, params)
		s.unpin()
		return res, err
	}
	if p.kind == stmtRole || p.kind == stmtDDL && s.grantsOnBuiltinFunctions(ctx, p.node) {
		return s.executeRole(ctx, p) // roles.go, builtin_function_privileges.go
	}
	if p.kind == stmtPublication {
		return s.executePublication(ctx, p)
	}
	if s.readOnly() {
		return nil, wire.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", p.stmtName())
	}
	// An autocommit statement's snapshot may be read from the moment it
	// arrived: read the head while the privilege checks probe the role
	// catalog (one dependent request fewer on object storage).
	early := s.readHeadEarly(ctx, p)
	if err := s.checkBranchPrivilege(ctx, s.branch(), access.PrivWrite); err != nil {
		return nil, err
	}
	if res, err := s.checkSchemaUsage(ctx, p); res != nil || err != nil {
		return res, err // schema_usage.go
	}
	if p.kind == stmtDDL {
		if err := s.checkOwnerChange(ctx, p.node); err != nil {
			return nil, err
		}
	}
	var read *catalog // the head the trigger check read, this statement's
	if s.tx != nil && s.tx.implicit {
		fires := p.kind == stmtTruncate && s.truncateFiresTriggers(ctx)
		if !fires {
			fires, read = s.dmlFiresTriggers(ctx, p, early.catalog(ctx, s))
		}
		if fires {
			s.tx.implicit = false // triggers.go
		}
	}
	if s.tx != nil && !s.tx.implicit {
		if s.tx.pend.merge != nil && (p.kind == stmtDDL || p.kind == stmtTruncate) {
			return nil, wire.Errorf(pgerr.FeatureNotSupported, "%s while a merge is staged in the transaction (graph.merge strategy 'stop') is not supported", p.stmtName()).
				WithHint("COMMIT or ROLLBACK the merge first.")
		}
		out, err := s.lockedWrite(ctx, p, params)
		s.tx.pend.bump()
		if err != nil && len(s.tx.saves) == 0 {
			// the error aborts the transaction: as in PostgreSQL its row
			// locks end now, not at the ROLLBACK that follows
			s.backend.rows.releaseAll(s.tx.owner)
		}
		if err != nil {
			return nil, err
		}
		return out.result(), nil
	}
	// row locks of an autocommit statement are held until it published
	owner := &lockOwner{}
	defer s.backend.rows.releaseAll(owner)
	var base *catalog
	var pend *pendingState
	var out *writeOut
	for round := 0; ; round++ {
		var err error
		if round == 0 && read != nil {
			base = read
		} else if _, base, err = s.head(ctx); err != nil {
			return nil, err
		}
		pend = newPendingState()
		if out, err = s.runWriteChecked(ctx, newView(base, pend), p, params); err != nil {
			return nil, err
		}
		again, err := s.lockedAutocommit(ctx, owner, p, pend, base)
		if err != nil {
			return nil, err
		}
		if !again || round >= maxLockRounds {
			break
		}
	}
	// temporary tables stay the session's (temp_tables.go)
	temp, err := s.splitTemp(ctx, base, pend)
	if err != nil {
		return nil, err
	}
	if !pend.hasWrites() {
		s.installTemp(temp)
		return out.result(), nil
	}
	max := s.maxReprepare
	if max == 0 {
		// most re-prepares only re-stage rows that commute with what
		// committed meanwhile (rowsCommute), so concurrent writers of one
		// table get the same bound as a COMMIT
		max = commitMaxReprepare
	}
	rc, err := s.g.Write(ctx, s.writeOptions(adapters.WriteOptions{Branch: base.sn.Branch, Message: s.commitMessage(), MaxReprepare: max,
		Group: groupable(base, pend), HeadHint: base.sn}),
		func(ctx context.Context, stage *adapters.Stage) error {
			if snapKey(stage.Base()) != snapKey(base.sn) {
				c, err := s.catalogOf(ctx, stage.Base())
				if err != nil {
					return err
				}
				if s.rowsCommute(ctx, pend, base, c) {
					// what committed meanwhile leaves the statement's
					// rows alone: its changes stage as they are on the
					// new head (row-level arbitration, writeset.go),
					// deletes at their rows' addresses there (rebase.go)
					rp, err := s.rebaseDeletes(ctx, pend, pinsOf(base), c)
					if err != nil {
						return err
					}
					return flush(stage, rp)
				}
				// re-prepare: the statement runs again against the new base
				base, pend = c, newPendingState()
				if out, err = s.runWriteChecked(ctx, newView(c, pend), p, params); err != nil {
					return err
				}
				if temp, err = s.splitTemp(ctx, c, pend); err != nil {
					return err
				}
			}
			return flush(stage, pend)
		})
	if err != nil {
		return nil, writeError(err)
	}
	s.committed(rc)
	s.installTemp(temp)
	s.unpin()
	return out.result(), nil
}

// unpin lets the next statement of an implicit transaction (a
// multi-statement query) read the head that now includes this
// statement's commit.
func (s *session) unpin() {
	if s.tx != nil && s.tx.implicit {
		s.tx.base = nil
	}
}

// runWriteChecked is runWrite for an autocommit statement: the
// commit-time checks (graph.min_out) run before it publishes.
func (s *session) runWriteChecked(ctx context.Context, v *view, p *plan, params []any) (*writeOut, error) {
	out, err := s.runWrite(ctx, v, p, params)
	if err != nil {
		return nil, err
	}
	v.base, _ = effective(v.root, v.pend)
	v.refresh()
	if err := (&writer{s: s, v: v, ctx: ctx, params: params}).checkMinOut(); err != nil {
		return nil, err
	}
	return out, nil
}

// runWrite evaluates one writing statement against v, recording its
// changes and reads in v.pend.
func (s *session) runWrite(ctx context.Context, v *view, p *plan, params []any) (*writeOut, error) {
	for _, t := range withViewReads(v, p.readTables()) {
		if _, ok := v.base.tables[t]; ok {
			v.pend.markRead(t)
		}
	}
	w := &writer{s: s, v: v, params: params, ctx: ctx, sql: p.sql}
	if out, handled, err := w.insteadOf(p); handled { // instead_of.go
		return out, err
	}
	if err := refuseViewWrite(v, p); err != nil {
		return nil, err
	}
	if err := w.checkTarget(p); err != nil {
		return nil, err
	}
	defer w.startProgress(p).Done()
	out, err := w.dispatch(p)
	if err == nil {
		w.noteRowsWritten(p, out)
	}
	return out, w.redactKeys(err)
}

// dispatch runs the writing statement.
func (w *writer) dispatch(p *plan) (*writeOut, error) {
	switch p.kind {
	case stmtInsert:
		return w.insert(p.node.GetInsertStmt())
	case stmtUpdate:
		return w.update(p.node.GetUpdateStmt())
	case stmtDelete:
		return w.delete(p.node.GetDeleteStmt())
	case stmtMerge:
		return w.merge(p.node.GetMergeStmt())
	case stmtTruncate:
		return w.truncate(p.node.GetTruncateStmt())
	case stmtDDL:
		if c := ctasOf(p.node); c != nil {
			return w.createTableAs(c, isSelectInto(p.node))
		}
		return w.ddl(p.node)
	}
	return nil, notSupported(p.stmtName())
}

// describeWrite reports a writing statement's parameters and RETURNING
// columns by planning it against the current catalog without effects.
func (s *session) describeWrite(ctx context.Context, st *wire.Statement, p *plan) (wire.Description, error) {
	if p.kind == stmtGraph {
		return s.describeGraphCall(ctx, p)
	}
	if p.kind == stmtDDL || p.kind == stmtRole || p.kind == stmtPublication {
		return wire.Description{Params: p.declared}, nil
	}
	var base *catalog
	var pend *pendingState
	if s.tx != nil && !s.tx.implicit {
		b, err := s.txBase(ctx)
		if err != nil {
			return wire.Description{}, err
		}
		base, pend = b, s.tx.pend.clone()
	} else {
		_, b, err := s.head(ctx)
		if err != nil {
			return wire.Description{}, err
		}
		base, pend = b, newPendingState()
	}
	w := &writer{s: s, v: newView(base, pend), ctx: ctx, describe: true, declared: p.declared}
	var out *writeOut
	var err error
	switch p.kind {
	case stmtInsert:
		out, err = w.insert(p.node.GetInsertStmt())
	case stmtUpdate:
		out, err = w.update(p.node.GetUpdateStmt())
	case stmtDelete:
		out, err = w.delete(p.node.GetDeleteStmt())
	case stmtMerge:
		out, err = w.merge(p.node.GetMergeStmt())
	case stmtTruncate:
		out = &writeOut{}
	}
	if err != nil {
		return wire.Description{}, err
	}
	d := wire.Description{Params: w.paramTypes, Columns: out.cols}
	for i := len(d.Params); i < len(p.declared); i++ {
		d.Params = append(d.Params, p.declared[i])
	}
	return d, nil
}

// writer evaluates one writing statement.
type writer struct {
	s      *session
	v      *view
	ctx    context.Context
	params []any
	// describe: plan only (bind every query, run none); paramTypes
	// collects the inferred parameter types.
	describe   bool
	declared   []uint32
	paramTypes []uint32
	cascaded   int
	// copySeen holds the unique keys a streamed COPY has written so far
	// (by constraint): its rows never join the pending state
	copySeen *keySets
	// copyAt places the rows a COPY is checking on its lines, for the
	// CONTEXT of constraint errors (nil outside COPY)
	copyAt *copyLines
	// assigned: the columns the running UPDATE sets (of assignedTable);
	// validators skip keys it leaves alone
	assigned      map[int]bool
	assignedTable string
	// conflictFrom: while an INSERT … ON CONFLICT runs, the position of
	// its target's first pending row the statement added (its chunks'
	// rows and updated versions follow the rows from before it); a
	// later chunk's proposal hitting one is DO UPDATE's 21000
	conflictFrom uint64
	// heldWhy and heldHint: why the running statement holds all its new
	// rows in memory (not chunked) and what to do instead, for its 53200
	heldWhy, heldHint string
	// cascading is the foreign key (table "\x00" constraint) whose
	// referencing rows an ON UPDATE CASCADE is rewriting: their new keys
	// are the referenced rows' new keys, which join the pending state
	// only after the actions, so checkParents leaves that key alone.
	cascading string
	// checkReads checks the privileges of the next query (the one
	// evaluating the client's statement, never the planner's own
	// checks and cascades that follow it): table_privileges.go
	checkReads func(*exec.Prepared) error
	// hideKeys: the role may not read the target, so constraint errors
	// do not show key values
	hideKeys bool
	// sql is the statement's text (error positions of CREATE VIEW)
	sql string
	// posAt is charPos's last answer: a byte offset of posSQL and its
	// character count, from which the next offset is counted on
	posSQL        string
	posAt, posRun int
	// planned collects, in describe mode, the queries the statement
	// would run (EXPLAIN shows the first: its row source)
	planned []*exec.Prepared
	// progress is the running statement's entry in graph.progress (nil:
	// none); its rows are those of the statement's first query, the one
	// evaluating the client's statement (statement_progress.go)
	progress        *observe.Progress
	progressCounted bool
}

// at gives err the 1-based character position of byte offset loc in the
// statement's text (PostgreSQL points at the name it could not resolve).
func (w *writer) at(err *wire.Error, loc int32) *wire.Error { return positioned(err, w.sql, loc) }

// target resolves the statement's table.
func (w *writer) target(rv *sqlparse.RangeVar) (*tableInfo, string, error) {
	key, known := w.relKey(rv.Schemaname, rv.Relname)
	if !known {
		if rv.Schemaname == "pg_catalog" || rv.Schemaname == "information_schema" || rv.Schemaname == "graph" {
			return nil, "", wire.Errorf(pgerr.WrongObjectType, "cannot change relation \"%s\"", rv.Relname)
		}
		return nil, "", w.at(wire.Errorf(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", rv.Schemaname, rv.Relname), rv.Location)
	}
	ti, ok := w.v.base.tables[key]
	if !ok {
		if sqlView(w.v, rv.Schemaname, rv.Relname) != nil {
			return nil, "", viewWriteError("change", rv.Relname)
		}
		if rv.Schemaname != "" {
			return nil, "", w.at(wire.Errorf(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", rv.Schemaname, rv.Relname), rv.Location)
		}
		return nil, "", w.at(wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", rv.Relname), rv.Location)
	}
	w.v.pend.markRead(key)
	alias := rv.Relname
	if rv.Alias != nil && rv.Alias.Aliasname != "" {
		alias = rv.Alias.Aliasname
	}
	return ti, alias, nil
}

// query runs (or, when describing, only binds) a query against the view
// and returns its rows as column vectors.
func (w *writer) query(sql string) ([]*exec.Vec, []exec.Column, error) {
	var vecs []*exec.Vec
	var cols []exec.Column
	err := w.queryChunks(sql, 0, func(v []*exec.Vec, c []exec.Column) error {
		vecs, cols = v, c
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return vecs, cols, nil
}

// queryTree is query for a statement the planner built as a parse tree
// (querytree.go).
func (w *writer) queryTree(stmt *sqlparse.Node) ([]*exec.Vec, []exec.Column, error) {
	var vecs []*exec.Vec
	var cols []exec.Column
	err := w.queryChunksOf("", stmt, 0, func(v []*exec.Vec, c []exec.Column) error {
		vecs, cols = v, c
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return vecs, cols, nil
}

// queryChunks is query handing the rows to fn in chunks of about chunk
// bytes as they stream (0: all at once), so a statement that consumes
// its rows chunk by chunk (a big INSERT … SELECT) holds one chunk, not
// the whole result. fn is called at least once (with zero rows when
// there are none); an error it returns ends the query and is returned
// as it is.
//
// With chunks, the query reads a snapshot of the pending state taken
// before the first chunk (chunked_writes.go): fn's changes never reach it.
func (w *writer) queryChunks(sql string, chunk int64, fn func([]*exec.Vec, []exec.Column) error) error {
	return w.queryChunksOf(sql, nil, chunk, fn)
}

// queryChunksOf is queryChunks for a query given as text (stmt nil) or
// as a parse tree the planner built (stmt, with sql ""): a tree is bound
// as it is, not printed and parsed again. Errors of a tree carry no
// position in its text, like those of rewritten text (below).
func (w *writer) queryChunksOf(sql string, stmt *sqlparse.Node, chunk int64, fn func([]*exec.Vec, []exec.Column) error) error {
	src := w.v
	if chunk > 0 {
		src = w.v.snapshot()
	}
	eng := &exec.Engine{Catalog: src, MemoryLimit: w.s.memLimit}
	var prep *exec.Prepared
	var err error
	if stmt != nil {
		prep, err = eng.PrepareStmtFor(w.s.execSession(), "", stmt, w.declared)
	} else {
		prep, err = eng.PrepareFor(w.s.execSession(), sql, w.declared)
	}
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) && sql != w.sql && we.Position != 0 && we.Placement != pgerr.PlacedInClient {
			// a position in text the planner rewrote would point at the
			// wrong place of the client's statement
			err = we.WithPosition(0)
		}
		return err
	}
	if check := w.checkReads; check != nil {
		w.checkReads = nil
		if err := check(prep); err != nil {
			return err
		}
	}
	for i, t := range prep.ParamTypes {
		for len(w.paramTypes) <= i {
			w.paramTypes = append(w.paramTypes, 0)
		}
		if w.paramTypes[i] == 0 {
			w.paramTypes[i] = t.OID
		}
	}
	if w.describe {
		w.planned = append(w.planned, prep)
		vecs := make([]*exec.Vec, len(prep.Columns))
		for i, c := range prep.Columns {
			vecs[i] = exec.NewVec(exec.Type{OID: c.TypeOID, Mod: c.TypeMod}, 0)
		}
		return fn(vecs, prep.Columns)
	}
	// batches are kept as they stream, their strings copied out of the
	// scan's page buffers: a string value aliases its Arrow page, so
	// keeping 1% of a table's rows would otherwise keep every page
	var batches []*exec.Batch
	var held int64
	counted, finished := w.progressRows()
	defer finished()
	called := false
	var fnErr error
	flush := func() error {
		called = true
		vecs := concatBatches(batches, prep.Columns)
		batches, held = nil, 0
		fnErr = fn(vecs, prep.Columns)
		return fnErr
	}
	_, err = prep.Stream(w.ctx, w.s.execSession(), w.params, func(b *exec.Batch, _ *time.Location) error {
		counted(b.N)
		for _, v := range b.Cols {
			detachStrings(v, b.N)
		}
		batches = append(batches, b)
		held += exec.BatchBytes(b)
		if err := w.checkPendingBudget(held); err != nil {
			return err
		}
		if chunk > 0 && held >= chunk {
			return flush()
		}
		return nil
	})
	if err != nil {
		if fnErr != nil {
			return fnErr
		}
		return err
	}
	if len(batches) > 0 || !called {
		return flush()
	}
	return nil
}

// concatBatches joins result batches into one vector per column.
func concatBatches(batches []*exec.Batch, cols []exec.Column) []*exec.Vec {
	out := make([]*exec.Vec, len(cols))
	for c, col := range cols {
		t := exec.Type{OID: col.TypeOID, Mod: col.TypeMod}
		if len(batches) > 0 {
			t = batches[0].Cols[c].T
		}
		parts := make([]*exec.Vec, 0, len(batches))
		for _, b := range batches {
			if b.N > 0 {
				parts = append(parts, batchVec(b, c))
			}
		}
		if len(parts) == 0 {
			out[c] = exec.NewVec(t, 0)
			continue
		}
		out[c] = catVecs(t, parts)
	}
	return out
}

// typeSQL is the SQL name of the type a value is cast to before it is
// stored in a column of type t. Explicit casts to varchar(n)/char(n)
// truncate silently while assignment raises 22001, so those are cast to
// the unbounded type and their length is checked (checkLengths).
func typeSQL(t exec.Type) string {
	switch t.OID {
	case exec.OIDVarchar:
		return "character varying"
	case exec.OIDBpchar:
		return "bpchar"
	}
	return t.String()
}

// checkLengths enforces varchar(n)/char(n) on new rows as PostgreSQL's
// assignment does: too long is 22001 unless the excess is spaces (then
// truncated); char(n) is blank-padded.
func checkLengths(td *exec.TableDef, rows []*exec.Vec) error {
	for c, cd := range td.Columns {
		if c >= len(rows) || (cd.Type.OID != exec.OIDVarchar && cd.Type.OID != exec.OIDBpchar) || cd.Type.Mod < 4 {
			continue
		}
		n := int(cd.Type.Mod - 4)
		v := rows[c]
		for i := 0; i < v.N; i++ {
			if v.IsNull(i) {
				continue
			}
			r := []rune(v.S[i])
			if len(r) > n {
				if strings.TrimRight(string(r[n:]), " ") != "" {
					return wire.Errorf(pgerr.StringDataRightTruncation, "value too long for type %s", cd.Type)
				}
				v.S[i] = string(r[:n])
				r = r[:n]
			}
			if cd.Type.OID == exec.OIDBpchar && len(r) < n {
				v.S[i] += strings.Repeat(" ", n-len(r))
			}
		}
	}
	return nil
}

// assignNode is expr stored into column cd: exec.AssignFunc's call
// around it, which converts it with PostgreSQL's assignment casts, as
// INSERT, UPDATE and MERGE convert the values they store. A 42804 points
// where the client wrote the value (its location in w.sql).
func (w *writer) assignNode(expr *sqlparse.Node, cd exec.ColumnDef) (*sqlparse.Node, error) {
	return w.assignCallNode(expr, cd, false, nodeLocation(expr))
}

// assignFromSubqueryNode is assignNode for a column of INSERT … SELECT's
// source subquery, where an untyped literal was resolved as text; loc is
// where the client wrote the value.
func (w *writer) assignFromSubqueryNode(expr *sqlparse.Node, cd exec.ColumnDef, loc int32) (*sqlparse.Node, error) {
	return w.assignCallNode(expr, cd, true, loc)
}

func (w *writer) assignCallNode(expr *sqlparse.Node, cd exec.ColumnDef, fromSubquery bool, loc int32) (*sqlparse.Node, error) {
	pos := 0
	if loc >= 0 && int(loc) <= len(w.sql) {
		pos = w.charPos(int(loc)) + 1
	}
	tmpl, err := assignTemplate(cd, fromSubquery)
	if err != nil {
		return nil, err
	}
	return &sqlparse.Node{Node: &sqlparse.Node_FuncCall{FuncCall: &sqlparse.FuncCall{Funcname: tmpl.Funcname,
		Args:       []*sqlparse.Node{expr, tmpl.Args[1], tmpl.Args[2], tmpl.Args[3], intConst(int64(pos))},
		Funcformat: tmpl.Funcformat, Location: -1}}}, nil
}

// charPos is the number of characters of w.sql before byte offset loc.
// A VALUES list asks for every value's position in text order, so it
// counts on from the previous answer: counting from the start each time
// made an n-row VALUES list cost O(n²) (20,000 rows took most of a
// minute).
func (w *writer) charPos(loc int) int {
	if w.posSQL != w.sql || loc < w.posAt {
		w.posSQL, w.posAt, w.posRun = w.sql, 0, 0
	}
	w.posRun += utf8.RuneCountInString(w.sql[w.posAt:loc])
	w.posAt = loc
	return w.posRun
}

// assignKey names a column's assignment call (assignTemplate).
type assignKey struct {
	t            exec.Type
	name         string
	fromSubquery bool
}

var assignTemplates sync.Map // assignKey -> *sqlparse.FuncCall (read-only, shared)

// assignTemplate is exec.AssignFunc's call for a column with the value
// and position left out — AssignFunc(NULL, NULL::type, 'name',
// fromSubquery, NULL) — built once per column shape: a 1-row INSERT
// builds one call per column.
func assignTemplate(cd exec.ColumnDef, fromSubquery bool) (*sqlparse.FuncCall, error) {
	key := assignKey{cd.Type, cd.Name, fromSubquery}
	if fc, ok := assignTemplates.Load(key); ok {
		return fc.(*sqlparse.FuncCall), nil
	}
	tn, err := typeNameNode(cd.Type)
	if err != nil {
		return nil, err
	}
	schema, name, _ := strings.Cut(exec.AssignFunc, ".")
	aconst := func(c *sqlparse.A_Const) *sqlparse.Node {
		c.Location = -1
		return &sqlparse.Node{Node: &sqlparse.Node_AConst{AConst: c}}
	}
	null := &sqlparse.Node{Node: &sqlparse.Node_TypeCast{TypeCast: &sqlparse.TypeCast{
		Arg: aconst(&sqlparse.A_Const{Isnull: true}), TypeName: tn, Location: -1}}}
	fc := &sqlparse.FuncCall{
		Funcname: []*sqlparse.Node{pgString(schema), pgString(name)},
		Args: []*sqlparse.Node{nil, null,
			aconst(&sqlparse.A_Const{Val: &sqlparse.A_Const_Sval{Sval: &sqlparse.String{Sval: cd.Name}}}),
			boolConst(fromSubquery), nil},
		Funcformat: sqlparse.CoercionForm_COERCE_EXPLICIT_CALL, Location: -1}
	assignTemplates.Store(key, fc)
	return fc, nil
}

// defaultNode is the value a column gets from DEFAULT (w.defaultFor)
// cast to its type.
func (w *writer) defaultNode(cd exec.ColumnDef) (*sqlparse.Node, error) {
	return castNode(w.defaultFor(cd), cd.Type)
}

// castNode is the expression text expr (a stored default: parsed once,
// nodeCache) cast to the type values of a column of type t are cast to
// (typeSQL).
func castNode(expr string, t exec.Type) (*sqlparse.Node, error) {
	key := castKey{expr, t}
	if n, ok := castNodes.Load(key); ok {
		return n.(*sqlparse.Node), nil
	}
	e, err := cachedExpr(expr)
	if err != nil {
		return nil, err
	}
	tn, err := typeNameNode(t)
	if err != nil {
		return nil, err
	}
	n := &sqlparse.Node{Node: &sqlparse.Node_TypeCast{TypeCast: &sqlparse.TypeCast{Arg: e, TypeName: tn, Location: -1}}}
	castNodes.Store(key, n)
	return n, nil
}

// castKey names a cast default (castNode).
type castKey struct {
	expr string
	t    exec.Type
}

var castNodes sync.Map // castKey -> *sqlparse.Node (read-only, shared)

// defaultSQL is a column's default expression (NULL when none).
func defaultSQL(c exec.ColumnDef) string {
	if c.Default == "" {
		return "NULL"
	}
	return c.Default
}

// apply records the statement's row changes in the pending state: rows
// removed by address, then new rows appended — after they passed the
// validators.
func (w *writer) apply(ti *tableInfo, removed []uint64, added []*exec.Vec) error {
	p := w.v.pend.table(ti.def, ti.schema)
	built, err := p.remove(removed)
	if err != nil {
		return err
	}
	w.v.pend.bytes += built
	if len(added) > 0 && added[0].N > 0 {
		rec, err := recordFromVecs(ti.schema, ti.def.Columns, added)
		if err != nil {
			return err
		}
		if err := w.checkPendingBudget(recordBytes(rec)); err != nil {
			return err
		}
		w.v.pend.addInsert(p, rec)
	}
	// past the threshold the transaction's rows go to its staged file
	// (pending_staged.go)
	if err := w.v.pend.spillOver(stagedSpillBytes(w.s.memLimit)); err != nil {
		return err
	}
	w.v.pend.bump()
	w.v.refresh()
	return nil
}

// returningVecs evaluates a RETURNING list over the given rows (in
// table order) as the relation named alias, with MERGE's per-row action
// (merge_action()) when actions is not nil; the caller holds the rows
// (holdReturning), which spills them past the statement's share of
// memory.
func (w *writer) returningVecs(ti *tableInfo, alias string, list []*sqlparse.Node, rows []*exec.Vec, actions []string) ([]wire.Column, []*exec.Vec, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	cols := ti.def.Columns
	if actions != nil {
		list = withMergeAction(list, alias, cols)
		cols = append(slices.Clip(cols), exec.ColumnDef{Name: mergeActionColumn, Type: exec.TText})
		av := exec.NewVec(exec.TText, len(actions))
		copy(av.S, actions)
		rows = append(slices.Clip(rows), av)
	}
	mt := exec.MemTableFromVecs(cols, rows)
	td := &exec.TableDef{OID: ti.def.OID, Schema: "public", Name: alias, Columns: cols, Source: mt}
	saved, had := w.v.extra[alias]
	w.v.extra[alias] = td
	defer func() {
		if had {
			w.v.extra[alias] = saved
		} else {
			delete(w.v.extra, alias)
		}
	}()
	vecs, ecols, err := w.queryTree(selectTree(nil, list, []*sqlparse.Node{relationNode(alias)}, nil))
	if err != nil {
		return nil, nil, err
	}
	return columns(ecols), vecs, nil
}

// emptyVecs returns zero-row vectors for a table's columns.
func emptyVecs(cols []exec.ColumnDef) []*exec.Vec {
	out := make([]*exec.Vec, len(cols))
	for i, c := range cols {
		out[i] = exec.NewVec(c.Type, 0)
	}
	return out
}

// gatherVecs keeps rows idx of every vector.
func gatherVecs(vs []*exec.Vec, idx []int32) []*exec.Vec {
	out := make([]*exec.Vec, len(vs))
	for i, v := range vs {
		out[i] = v.Gather(idx)
	}
	return out
}

// appendVecs concatenates rows of b after a (same types).
func appendVecs(a, b []*exec.Vec) []*exec.Vec {
	if a == nil {
		return b
	}
	out := make([]*exec.Vec, len(a))
	for c := range a {
		out[c] = catVecs(a[c].T, []*exec.Vec{a[c], b[c]})
	}
	return out
}

func (o *writeOut) result() wire.Result {
	if o.spill != nil {
		return &spilledResult{rowsResult: rowsResult{cols: o.cols, rows: o.rows, tag: o.tag}, spill: o.spill, cc: o.cc}
	}
	return &rowsResult{cols: o.cols, rows: o.rows, tag: o.tag}
}

// rowsResult is a materialized result.
type rowsResult struct {
	cols []wire.Column
	rows [][]any
	i    int
	tag  string
}

func (r *rowsResult) Columns() []wire.Column { return r.cols }
func (r *rowsResult) Next(context.Context) ([]any, bool, error) {
	if r.i >= len(r.rows) {
		return nil, false, nil
	}
	r.i++
	return r.rows[r.i-1], true, nil
}
func (r *rowsResult) Tag() string  { return r.tag }
func (r *rowsResult) Close() error { return nil }

// failingRow formats a row as PostgreSQL's "Failing row contains (…)".
func failingRow(vecs []*exec.Vec, i int, s *session) string {
	parts := make([]string, len(vecs))
	for c, v := range vecs {
		if t, ok := exec.FormatText(v, i, s.location()); ok {
			parts[c] = t
		} else {
			parts[c] = "null"
		}
	}
	return "Failing row contains (" + strings.Join(parts, ", ") + ")."
}

// quoteLiteral is s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
