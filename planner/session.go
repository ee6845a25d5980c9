package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"slices"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/sqllex"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/planner/seq"
	"github.com/pggraph/pggraph/wire"
)

// session is one connection's SQL session.
type session struct {
	g            *adapters.Graph
	root         *graph.Root
	advisory     *exec.AdvisorySession
	info         wire.SessionInfo
	memLimit     int64
	analyze      AnalyzeFunc // ANALYZE's statistics collector (nil: none)
	maxReprepare int
	cats         *catalogCache // the Backend's built catalogs (catalog_cache.go)
	tx           *txState      // nil outside a transaction
	// temp is the session's temporary schema and tables, tempOnCommit
	// their ON COMMIT actions by storage name (temp_tables.go)
	temp         *tempStore
	tempOnCommit map[string]sqlparse.OnCommitAction
	// branchSet: SET graph.branch was used (until then the database
	// name is the branch)
	branchSet bool
	asOf      *asOfState
	seqs      *seq.Allocator
	access    *access.Store // the root's role catalog (roles.go)
	// lastRoles is the role catalog the latest statement read
	// (roleCatalog): exec's lookups use it while no newer version was
	// seen, instead of probing the store once more per binding
	lastRoles atomic.Pointer[access.Catalog]
	backend   *Backend
	// releaseLogin gives back the session's place under its role's
	// CONNECTION LIMIT (login.go)
	releaseLogin func()
	seqSess      *seq.Session
	tables       *tableCache              // shared by the backend's sessions
	views        *graphViewsCache         // the branches' graph.* views, shared likewise
	runner       *queryRunner             // idle coroutine for the next query (runner.go)
	sequences    *sessionSequences        // exec's sequence functions (sessionSeqs)
	shapes       map[string]*literalShape // the literal cache (literal_cache.go)
	execSess     *exec.Session            // the exec view of the session (execSession)
	types        *pgtype.Map              // result cells' codecs (typeMap)
	closed       bool
	tz           struct { // the TimeZone setting's location (location)
		name string
		loc  *time.Location
	}
	sqlStmts map[string]*sqlPrepared // SQL-level PREPARE (prepare_sql.go)
	doDepth  int                     // DO blocks running (do.go)
	cursors  map[string]*cursor      // DECLARE … CURSOR (cursor.go)

	// pendBound are the plans bound to the transaction's pending state
	// (forgotten when it ends: endPending)
	pendBound map[*plan]bool
}

// stmtKind classifies a statement the session executes.
type stmtKind int

const (
	stmtQuery stmtKind = iota // SELECT, VALUES, TABLE, WITH … SELECT, COPY … TO
	stmtInsert
	stmtUpdate
	stmtDelete
	stmtMerge
	stmtTruncate
	stmtDDL         // planned by planner/ddl
	stmtGraph       // CALL graph.f(…) / SELECT graph.f(…)
	stmtExplain     // EXPLAIN [ANALYZE] of a query (explain.go)
	stmtMaintenance // VACUUM, ANALYZE, CHECKPOINT, REINDEX, CLUSTER, LOCK (maintenance.go)
	stmtRole        // CREATE/ALTER/DROP ROLE, GRANT/REVOKE role (roles.go)
	stmtPublication // CREATE/DROP PUBLICATION (publications.go)
	stmtSQLPrepare  // SQL-level PREPARE / EXECUTE (prepare_sql.go)
	stmtCursor      // DECLARE … CURSOR, FETCH, MOVE, CLOSE (cursor.go)
	stmtDo          // DO $$ … $$ (do.go)
)

// control reports statements that act outside the graph commit
// (procedures, role and publication changes): they never join a transaction's writes.
func (k stmtKind) control() bool { return k == stmtGraph || k == stmtRole || k == stmtPublication }

// plan is what Describe leaves on a Statement for Execute.
type plan struct {
	sql         string // what exec runs (the inner query of COPY … TO STDOUT)
	unsupported string // first keyword of a statement this slice refuses
	kind        stmtKind
	node        *sqlparse.Node // the statement's parse tree (DML)
	readsFrom   *sqlparse.Node // the tree readTables lists names of
	reads       []string       // readTables' answer, once asked
	readsDone   bool
	viewReads   []string // readTables plus what the views among them read, as of the last prepare in an explicit transaction
	locking     bool     // SELECT … FOR UPDATE/SHARE
	isCall      bool     // CALL: a one-row query tagged CALL (procedures.go)
	declared    []uint32
	prep        *exec.Prepared
	key         catKey // snapshot prep was bound against
	gen         uint64 // pending generation prep was bound against
	ddlName     string // leading keywords of a DDL statement (messages)
	// afterBegin: the statement belongs to a block wire opened from the
	// implicit transaction (a later BEGIN), or to a multi-statement query
	// with writes (one transaction in PostgreSQL)
	afterBegin bool
	call       *graphsql.Invocation
	callErr    error
	// lit: the query's literals as parameters (literal_cache.go); with
	// litMiss its shape has no plan yet and the plan was parsed as usual
	lit *literalUse
	// path is the search_path the binding resolved names with ("" when
	// the catalog has no created schemas)
	path    string
	litMiss bool
}

// Parse implements wire.Session: wire classifies utility statements; a
// query is kept when it reads, and marked for 0A000 otherwise.
func (s *session) Parse(_ context.Context, sql string) ([]*wire.Statement, error) {
	stmts, err := wire.ParseUtility(sql)
	if err != nil {
		return nil, err
	}
	// PostgreSQL's scanner truncates long identifiers with a NOTICE while
	// it reads the text, before anything runs (the parser here truncates
	// silently).
	for _, id := range sqllex.TruncatedIdentifiers(sql) {
		s.info.Notice(&wire.Error{Code: pgerr.NameTooLong, Message: fmt.Sprintf("identifier \"%s\" will be truncated to \"%s\"", id.Full, id.Truncated)})
	}
	// A BEGIN after other statements of one query string turns wire's
	// implicit transaction into the block without a Begin call: the
	// statements after it are marked so the session follows.
	inBlock := false
	for i, st := range stmts {
		switch st.Kind {
		case wire.KindBegin:
			inBlock = i > 0
		case wire.KindCommit, wire.KindRollback:
			inBlock = false
		case wire.KindQuery, wire.KindCopyTo:
			p := s.literalPlan(st)
			if p == nil || p.litMiss {
				parsed := newPlan(st)
				if p != nil {
					parsed.lit, parsed.litMiss = p.lit, true
				}
				p = parsed
			}
			p.afterBegin = inBlock
			st.Plan = p
		case wire.KindCopyFrom:
			st.Plan = &plan{afterBegin: inBlock, kind: stmtInsert}
		}
	}
	// Several statements of one query string with a write among them are
	// one implicit transaction in PostgreSQL (all or nothing): their
	// writes stay pending until the query ends and publish as one commit.
	writes, n := 0, 0
	for _, st := range stmts {
		switch st.Kind {
		case wire.KindQuery, wire.KindCopyFrom, wire.KindCopyTo:
			n++
			if p, ok := st.Plan.(*plan); ok && p.kind != stmtQuery && !p.kind.control() && p.kind != stmtExplain && p.kind != stmtMaintenance {
				writes++
			}
		}
	}
	if writes > 0 && n > 1 {
		for _, st := range stmts {
			if p, ok := st.Plan.(*plan); ok && !p.kind.control() {
				p.afterBegin = true
			}
		}
	}
	return stmts, nil
}

// promote makes the session's implicit transaction the explicit block a
// BEGIN inside the same query string opened.
func (s *session) promote(p *plan) {
	if p != nil && p.afterBegin && s.tx != nil && s.tx.implicit {
		s.tx.implicit = false
	}
}

func newPlan(st *wire.Statement) *plan {
	if st.Kind == wire.KindCopyTo {
		p := &plan{sql: copyQuery(st)}
		if tree, err := sqlparse.Parse(p.sql); err == nil && len(tree.Stmts) == 1 {
			p.readsFrom = tree.Stmts[0].Stmt
		}
		return p
	}
	p := &plan{sql: st.SQL}
	tree, err := sqlparse.Parse(st.SQL)
	if err != nil || len(tree.Stmts) != 1 {
		p.unsupported = unsupportedKeyword(st.SQL)
		return p
	}
	n := tree.Stmts[0].Stmt
	p.node = n
	p.readsFrom = n
	if graphsql.IsGraphCall(n) {
		p.kind = stmtGraph
		p.call, p.callErr = graphsql.Parse(st.SQL)
		if p.call == nil && p.callErr == nil {
			p.callErr = wire.Errorf(wire.CodeFeatureNotSupported, "this graph procedure call is not supported")
		}
		return p
	}
	switch {
	case isSQLPrepare(n):
		p.kind = stmtSQLPrepare
	case isCursorStmt(n):
		p.kind = stmtCursor
	case isDo(n):
		p.kind = stmtDo
	case isSelectInto(n):
		p.kind = stmtDDL // ctas.go
		p.ddlName = "SELECT INTO"
	case n.GetSelectStmt() != nil:
		p.kind = stmtQuery
		p.locking = len(n.GetSelectStmt().LockingClause) > 0
	case n.GetCallStmt() != nil:
		p.kind, p.isCall = stmtQuery, true
	case n.GetInsertStmt() != nil:
		p.kind = stmtInsert
	case n.GetUpdateStmt() != nil:
		p.kind = stmtUpdate
	case n.GetDeleteStmt() != nil:
		p.kind = stmtDelete
	case n.GetMergeStmt() != nil:
		p.kind = stmtMerge
	case n.GetTruncateStmt() != nil:
		p.kind = stmtTruncate
	case n.GetExplainStmt() != nil:
		p.kind = stmtExplain
	case isRoleStmt(n):
		p.kind = stmtRole
	case isPublicationStmt(n):
		p.kind = stmtPublication
	case isMaintenance(n):
		p.kind = stmtMaintenance
	case isDDL(n):
		p.kind = stmtDDL
		p.ddlName = unsupportedKeyword(st.SQL)
	case n.GetCopyStmt() != nil:
		// COPY … FROM STDIN / TO STDOUT never get here (wire runs them)
		p.unsupported = "COPY to or from a server file or program"
	default:
		p.unsupported = unsupportedKeyword(st.SQL)
		switch n.Node.(type) {
		case *sqlparse.Node_CompositeTypeStmt:
			p.unsupported = "CREATE TYPE … AS (…) (composite types)"
		case *sqlparse.Node_CreateRangeStmt:
			p.unsupported = "CREATE TYPE … AS RANGE (range types)"
		}
		if p.unsupported == "" {
			p.unsupported = "this statement"
		}
	}
	return p
}

// readTables is the statement's read set (tableNames of its tree),
// listed on first use: an autocommit query never needs it, and walking
// the tree was a sixth of a simple-protocol point lookup's CPU.
func (p *plan) readTables() []string {
	if !p.readsDone {
		p.readsDone = true
		if p.readsFrom != nil {
			p.reads = tableNames(p.readsFrom)
		}
	}
	return p.reads
}

// tableNames lists the relation names a tree mentions, as catalog names
// (a qualified one as "schema.name", how a created schema's relations
// are stored: ddl/schema.go): an over-approximation of what it reads
// (CTE names included; names that are no table are ignored later).
func tableNames(n *sqlparse.Node) []string {
	var out []string
	for _, rv := range rangeVars(n) {
		name := rv.Relname
		if rv.Schemaname != "" && rv.Schemaname != "public" {
			name = rv.Schemaname + "." + rv.Relname
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// Describe implements wire.Session.
func (s *session) Describe(ctx context.Context, st *wire.Statement, declared []uint32) (wire.Description, error) {
	p, _ := st.Plan.(*plan)
	if p == nil {
		p = newPlan(st)
		st.Plan = p
	}
	p.declared = declared
	if p.kind == stmtExplain {
		return s.describeExplain(ctx, p)
	}
	if p.kind == stmtMaintenance || p.kind == stmtSQLPrepare || p.kind == stmtCursor || p.kind == stmtDo {
		return wire.Description{}, nil
	}
	if p.kind != stmtQuery && p.unsupported == "" {
		return s.describeWrite(ctx, st, p)
	}
	p, err := s.prepare(ctx, st, declared, true)
	if err != nil {
		return wire.Description{}, err
	}
	d := wire.Description{Params: make([]uint32, len(p.prep.ParamTypes)), Columns: columns(p.prep.Columns)}
	if p.isCall && len(d.Columns) == 0 {
		d.Columns = nil // a procedure without INOUT parameters returns no row
	}
	for i, t := range p.prep.ParamTypes {
		d.Params[i] = t.OID
	}
	return d, nil
}

// Execute implements wire.Session.
func (s *session) Execute(ctx context.Context, st *wire.Statement, params []any) (wire.Result, error) {
	res, err := s.execute(ctx, st, params)
	if err != nil {
		err = s.unqualifyError(ctx, err)
	}
	if p, _ := st.Plan.(*plan); err == nil && p != nil && p.isCall {
		return callResult(ctx, res)
	}
	return res, err
}

func (s *session) execute(ctx context.Context, st *wire.Statement, params []any) (wire.Result, error) {
	s.sessionSeqs().newStatement()
	ctx = withCatalogMemo(ctx)
	s.statementSnapshot()
	if tx := s.tx; tx != nil && !tx.implicit && (tx.iso == isoSerializable || (tx.iso == "" && s.isolation() == isoSerializable)) {
		// the statement's reads are recorded row by row (readset.go);
		// what is marked read after it returns counts as a whole table
		log := lancesrc.NewReadLog()
		ctx = lancesrc.WithReadLog(ctx, log)
		tx.pend.stmtLog = log
		defer func() {
			if s.tx != nil {
				s.tx.pend.stmtLog = nil
			}
		}()
	}
	p, _ := st.Plan.(*plan)
	if p == nil {
		p = newPlan(st)
		st.Plan = p
	}
	s.promote(p)
	if p.kind == stmtExplain {
		return s.executeExplain(ctx, p, params)
	}
	if p.kind == stmtMaintenance {
		return s.executeMaintenance(ctx, p)
	}
	if p.kind == stmtSQLPrepare {
		return s.executeSQLPrepare(ctx, st, p)
	}
	if p.kind == stmtCursor {
		return s.executeCursor(ctx, st, p)
	}
	if p.kind == stmtDo {
		return s.executeDo(ctx, p)
	}
	if p.kind != stmtQuery && p.unsupported == "" {
		if !p.kind.control() && wire.InPipeline(ctx) && s.tx != nil && s.tx.implicit {
			// one of several statements before Sync: its writes wait for
			// the Sync (Commit) and roll back with an error before it
			s.tx.implicit = false
		}
		return s.executeWrite(ctx, st, p, params)
	}
	if p.lit != nil && !p.litMiss {
		if res, ok := s.executeLiteral(ctx, st, p); ok {
			return res, nil
		}
		// the shape's plan does not serve: run the statement as written
		parsed := newPlan(st)
		parsed.afterBegin, parsed.lit, parsed.litMiss = p.afterBegin, p.lit, true
		p = parsed
		st.Plan = p
	}
	p, err := s.prepare(ctx, st, nil, false)
	if err != nil {
		return nil, err
	}
	if p.locking && s.tx != nil && !s.tx.implicit && p.node != nil {
		// SELECT … FOR UPDATE/SHARE of one table locks its rows (forupdate.go)
		if res, ok, err := s.lockingSelect(ctx, p, params); ok {
			if err != nil && len(s.tx.saves) == 0 {
				s.backend.rows.releaseAll(s.tx.owner)
			}
			return res, err
		}
	}
	if s.tx != nil && !s.tx.implicit {
		for _, t := range p.viewReads {
			s.tx.pend.markRead(t)
			if p.locking {
				s.tx.pend.markLock(t)
			}
		}
	}
	res, err := s.startResult(ctx, st, p.prep, params)
	if err != nil {
		return nil, err
	}
	if p.lit != nil && len(params) == 0 {
		s.learnLiteral(ctx, p, p.prep)
	}
	return res, nil
}

// prepare binds st against the statement's catalog (the branch head, or
// the transaction's snapshot with its pending writes), reusing an earlier
// binding when neither moved (a new head re-binds: a prepared statement
// always reads the current snapshot). fromDescribe records declared types.
func (s *session) prepare(ctx context.Context, st *wire.Statement, declared []uint32, fromDescribe bool) (*plan, error) {
	p, _ := st.Plan.(*plan)
	if p == nil {
		p = newPlan(st)
		st.Plan = p
	}
	if fromDescribe {
		p.declared = declared
	}
	key, cat, gen, err := s.readCatalog(ctx)
	if err != nil {
		return nil, err
	}
	if p.unsupported != "" {
		return nil, s.refuse(cat, st.SQL, p.unsupported)
	}
	if p.sql == "" && st.Kind == wire.KindCopyTo {
		return nil, wire.Errorf(wire.CodeSyntaxError, "syntax error in the query of COPY")
	}
	if err := copyViewError(cat, st); err != nil {
		return nil, err
	}
	if s.tx != nil && !s.tx.implicit {
		// an explicit transaction's read set holds what its views read
		p.viewReads = withViewReads(cat, p.readTables())
	}
	// names resolve through search_path once schemas exist, so a
	// binding is kept per path then (search_path.go)
	var path string
	if sc, ok := cat.(exec.SchemaCatalog); ok && len(sc.SchemaDefs()) > 0 {
		path = strings.Join(s.searchPath(), ",")
	}
	if p.prep != nil && p.key == key && p.gen == gen && p.path == path && !p.prep.Volatile() {
		return p, nil
	}
	eng := &exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}
	prep, err := eng.PrepareFor(s.execSession(), p.sql, p.declared)
	if err != nil {
		return nil, s.errFor(st, err)
	}
	// the binding is kept per role catalog version and current role
	// (withRoles), so a reused one passed these checks
	if err := s.checkQuery(ctx, p, prep); err != nil {
		return nil, err
	}
	p.prep, p.key, p.gen, p.path = prep, key, gen, path
	if gen != 0 {
		if s.pendBound == nil {
			s.pendBound = map[*plan]bool{}
		}
		s.pendBound[p] = true
	}
	return p, nil
}

// readCatalog is the catalog reads run against: inside a transaction its
// pinned snapshot plus pending writes, otherwise the branch head.
func (s *session) readCatalog(ctx context.Context) (catKey, exec.Catalog, uint64, error) {
	if s.tx != nil {
		base, err := s.txBase(ctx)
		if err != nil {
			return catKey{}, nil, 0, err
		}
		key := s.withRoles(snapKey(base.sn))
		if !s.tx.pend.hasWrites() {
			return key, base, 0, nil
		}
		return key, newView(base, s.tx.pend), s.tx.pend.gen, nil
	}
	key, cat, err := s.head(ctx)
	return s.withRoles(key), cat, 0, err
}

// withRoles marks a catalog key with the role catalog version this
// process has seen and the current role, so a plan bound before a role
// change (or SET ROLE) is bound again.
func (s *session) withRoles(k catKey) catKey {
	if s.access != nil {
		k.roles = s.access.Seen()
	}
	k.role = s.currentRole()
	k.head = s.asOfHeadVersion()
	k.temp = s.tempGen()
	if s.tx != nil {
		k.txRoles = len(s.tx.roles) // roles_txn.go
	}
	return k
}

// refuse answers a statement this slice does not run: a syntax error
// stays 42601 and a statement nested too deeply 54001 (as PostgreSQL
// reports them before anything else), everything
// else is 0A000 naming the statement.
func (s *session) refuse(cat exec.Catalog, sql, what string) error {
	eng := &exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}
	if _, err := eng.PrepareFor(s.execSession(), sql, nil); exec.Code(err) == wire.CodeSyntaxError || exec.Code(err) == exec.CodeStackDepthExceeded {
		return err
	}
	return notSupported(what)
}

// head returns the catalog of the branch's latest snapshot.
func (s *session) head(ctx context.Context) (catKey, *catalog, error) {
	if s.asOfActive() {
		sn, err := s.asOfSnapshot(ctx)
		if err != nil {
			return catKey{}, nil, err
		}
		key := snapKey(sn)
		key.asOf = true
		c, err := s.cats.get(ctx, key, func() (*catalog, error) {
			return buildCatalog(ctx, s.root, sn, s.graphViews(ctx, sn, true), s.tables)
		})
		if err != nil {
			return catKey{}, nil, err
		}
		return key, s.withTemp(c), nil
	}
	branch := s.branch()
	sn, err := s.root.Head(ctx, branch)
	if err != nil {
		if graph.IsUnknownBranch(err) {
			return catKey{}, nil, wire.Errorf(pgerr.InvalidCatalogName, "database %q does not exist", branch)
		}
		return catKey{}, nil, storageFailed(err, "could not read the head of branch %q", branch)
	}
	c, err := s.catalogOf(ctx, sn)
	return snapKey(sn), c, err
}

// catalogOf returns the (cached) catalog of a snapshot.
func (s *session) catalogOf(ctx context.Context, sn *graph.Snapshot) (*catalog, error) {
	c, err := s.cats.get(ctx, snapKey(sn), func() (*catalog, error) {
		return buildCatalog(ctx, s.root, sn, s.graphViews(ctx, sn, false), s.tables)
	})
	if err != nil {
		return nil, err
	}
	// the session's temporary tables (temp_tables.go)
	return s.withTemp(c), nil
}

func snapKey(sn *graph.Snapshot) catKey {
	return catKey{branch: sn.Branch, incarnation: sn.Incarnation, version: sn.Version}
}

// branch is the session's graph branch: SET graph.branch, else the
// connection's database name.
func (s *session) branch() string {
	if s.branchSet && s.info.Settings != nil {
		if b, ok := s.info.Settings.Get("graph.branch"); ok && b != "" {
			return b
		}
	}
	return s.info.Database
}

// execSession is the exec view of the session, made once; only its
// TimeZone follows the setting (exec reads it when a query starts, and
// queries run while the connection goroutine waits, so updating it in
// place races with nothing).
func (s *session) execSession() *exec.Session {
	if s.execSess == nil {
		settings := s.info.Settings
		s.execSess = &exec.Session{
			User:     s.info.User,
			Roles:    s.rolesForExec,
			Database: s.info.Database,
			PID:      int32(s.info.ProcessID),
			Activity: s.activityForExec,
			RowLocks: s.rowLockHolds, // rowlocks_catalog.go
			AdvisoryHolds: func() []exec.AdvisoryHold {
				if s.advisory == nil {
					return nil
				}
				return s.advisory.SpaceHolds()
			},
			RelationFunc: s.relationFunc,       // graph.at, graph.diff (relfuncs.go)
			CallFunction: s.callFunction,       // user functions (function_call.go)
			Replication:  s.replicationObjects, // replication.go
			Advisory:     s.advisory,           // advisory.go
			Signal:       s.info.Signal,        // pg_cancel_backend (wire/signal.go)
			Setting: func(name string) (string, bool) {
				if settings == nil {
					return "", false
				}
				return settings.Get(name)
			},
			Parameters: func() []exec.Parameter {
				if settings == nil {
					return nil
				}
				var out []exec.Parameter
				for _, p := range settings.Parameters() {
					out = append(out, exec.Parameter{Name: p.Name, Value: p.Value, Boot: p.Boot, Reset: p.Reset, Source: p.Source, Desc: p.Desc, ReadOnly: p.ReadOnly})
				}
				return out
			},
		}
		if s.backend != nil {
			// a client's session; the backend's own merge-time writers
			// (merge_check.go) have none, and their queries answer 0A000
			s.execSess.Sequences = s.sessionSeqs() // sequences.go
		}
	}
	s.execSess.TimeZone = s.location()
	s.execSess.DateStyle = s.dateStyle()
	if r := s.currentRole(); r != s.execSess.User {
		s.execSess.User, s.execSess.SessionUser = r, s.info.User
	}
	return s.execSess
}

// dateStyle is the session's DateStyle and IntervalStyle.
func (s *session) dateStyle() exec.DateStyle {
	if s.info.Settings == nil {
		return exec.DateStyle{}
	}
	ds, _ := s.info.Settings.Get("DateStyle")
	is, _ := s.info.Settings.Get("IntervalStyle")
	return exec.ParseDateStyle(ds, is)
}

// location is the session TimeZone (UTC when unset or unknown).
func (s *session) location() *time.Location {
	if s.info.Settings == nil {
		return time.UTC
	}
	tz, ok := s.info.Settings.Get("TimeZone")
	if !ok {
		return time.UTC
	}
	// time.LoadLocation reads the zone's file on every call (only UTC
	// and Local are built in): keep the last zone, read per statement.
	if s.tz.loc != nil && s.tz.name == tz {
		return s.tz.loc
	}
	loc, err := exec.LoadTimeZone(tz) // wire accepted it; POSIX offsets count west
	if err != nil {
		return time.UTC
	}
	s.tz.name, s.tz.loc = tz, loc
	return loc
}

func columns(cs []exec.Column) []wire.Column {
	out := make([]wire.Column, len(cs))
	for i, c := range cs {
		out[i] = wire.Column{Name: c.Name, TableOID: c.TableOID, AttrNum: uint16(c.AttNum), TypeOID: c.TypeOID, TypeSize: c.TypeLen, TypeMod: c.TypeMod}
	}
	return out
}

// errFor is err as st's client sees it; positions inside a COPY's inner
// query do not point into the client's text, so they are dropped.
func (s *session) errFor(st *wire.Statement, err error) error {
	var we *wire.Error
	if st.Kind == wire.KindCopyTo && errors.As(err, &we) {
		return we.WithPosition(0)
	}
	return err
}

func notSupported(what string) *wire.Error {
	return wire.Errorf(wire.CodeFeatureNotSupported, "%s is not supported yet", what).
		WithHint("pgproxy runs queries, INSERT/UPDATE/DELETE/MERGE/TRUNCATE, COPY, table and sequence DDL, transactions and the graph.* procedures; see the planner documentation for what is not supported yet.")
}

// readKeywords start statements this slice executes.
var readKeywords = map[string]bool{"SELECT": true, "VALUES": true, "WITH": true, "TABLE": true, "(": true}

// unsupportedKeyword returns the statement's leading keyword(s) when it is
// not a query, "" when it is. WITH is accepted: exec refuses
// data-modifying CTEs with 0A000 itself.
func unsupportedKeyword(sql string) string {
	f := strings.Fields(stripLeadingComments(sql))
	if len(f) == 0 {
		return ""
	}
	kw := strings.ToUpper(f[0])
	if strings.HasPrefix(kw, "(") || readKeywords[kw] {
		return ""
	}
	if kw != "CREATE" && kw != "DROP" && kw != "ALTER" {
		return kw
	}
	// DDL is named by its object: CREATE [OR REPLACE] [UNIQUE] INDEX, ...
	words := []string{kw}
	for _, w := range f[1:] {
		w = strings.ToUpper(w)
		words = append(words, w)
		if !ddlModifiers[w] {
			break
		}
	}
	return strings.Join(words, " ")
}

var ddlModifiers = map[string]bool{"OR": true, "REPLACE": true, "UNIQUE": true, "TEMP": true, "TEMPORARY": true,
	"UNLOGGED": true, "MATERIALIZED": true, "GLOBAL": true, "LOCAL": true, "RECURSIVE": true,
	"PROPERTY": true} // CREATE PROPERTY GRAPH (docs/sql.md)

// stripLeadingComments drops -- and /* */ comments before the first token.
func stripLeadingComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s, "*/")
			if i < 0 {
				return ""
			}
			s = s[i+2:]
		default:
			return s
		}
	}
}
