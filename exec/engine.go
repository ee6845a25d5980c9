package exec

import (
	"context"
	"fmt"
	"github.com/pggraph/pggraph/access"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

// Engine runs queries against a catalog. It is safe for concurrent use;
// all per-execution state lives in the execution.
type Engine struct {
	Catalog Catalog
	// MemoryLimit bounds the bytes one query may buffer (sorts, hash
	// tables, materializations); 0 means unlimited. Exceeding it fails the
	// query with 53200.
	MemoryLimit int64
	// RecursionLimit caps WITH RECURSIVE iterations (0: DefaultRecursionLimit).
	RecursionLimit int
}

// Session carries the per-connection settings a query depends on.
type Session struct {
	TimeZone *time.Location // nil: UTC
	// DateStyle is the DateStyle and IntervalStyle text output and input
	// use (zero: ISO, MDY and postgres).
	DateStyle DateStyle
	User      string
	Database  string
	PID       int32
	// Setting reads other settings (current_setting, search_path).
	Setting func(name string) (string, bool)
	// Parameters lists every configuration parameter with its source
	// (pg_settings); nil: the engine's defaults, read through Setting.
	Parameters func() []Parameter
	// SessionUser is session_user when SET ROLE made User (current_user)
	// another role ("" = User).
	SessionUser string
	// Roles returns the role catalog for pg_roles, pg_user,
	// pg_auth_members, pg_has_role and owner names; called at most once
	// per statement, when one of them is used. nil, or a catalog in
	// bootstrap state, means the session user is the only role, a
	// superuser with OID 10.
	Roles func() *access.Catalog
	// Activity lists the server's sessions (pg_stat_activity); nil: none
	// listed. AdvisoryHolds lists the advisory locks held in the
	// session's lock space (pg_locks).
	Activity      func() []Activity
	AdvisoryHolds func() []AdvisoryHold
	// RowLocks lists the transactions holding or waiting for row locks
	// (pg_locks, pg_stat_activity; syscat_rowlocks.go); nil: none.
	RowLocks func() []RowLockHold
	// RelationFunc resolves schema-qualified functions in FROM the
	// executor does not know (nil: none; exec/relfunc.go).
	RelationFunc RelationFunc
	// CallFunction runs user functions' bodies (nil: a call of one is
	// refused; user_functions.go).
	CallFunction CallFunction
	// Replication lists the root's publications and slots
	// (syscat_replication.go); nil: none.
	Replication func() ReplicationObjects
	// Sequences serves nextval, currval, setval and lastval
	// (sequences.go); nil: they answer 0A000.
	Sequences SequenceFunctions
	// Advisory holds the session's advisory locks (advisory.go); nil:
	// locks are taken in a process-wide space owned by PID.
	Advisory *AdvisorySession
	// Signal serves pg_cancel_backend and pg_terminate_backend
	// (signal.go); nil: they answer 0A000.
	Signal SignalBackend
}

func (s *Session) sessionUser() string {
	if s.SessionUser != "" {
		return s.SessionUser
	}
	return s.User
}

// Column describes one result column (RowDescription).
type Column struct {
	Name     string
	TableOID uint32
	AttNum   int16
	TypeOID  uint32
	TypeLen  int16
	TypeMod  int32
}

// Prepared is a parsed and bound statement: parse once, describe, execute
// many times with parameters.
type Prepared struct {
	SQL        string
	ParamTypes []Type
	Columns    []Column
	plan       plan
	cols       []colInfo
	eng        *Engine
	uses       []RelationUse
	volatile   bool
	// paramEnums are the enum types of the parameters declared as an
	// enum or an array of one (nil elsewhere): their values are checked
	// against the labels as enum_in would (22P02).
	paramEnums []*EnumDef
}

// Volatile reports a binding that read more than its catalog (a
// RelationFunc): it must not be reused for a later execution.
func (p *Prepared) Volatile() bool { return p.volatile }

// Prepare parses and binds one statement. declared holds parameter type
// OIDs sent by the client (0 = infer).
func (e *Engine) Prepare(sql string, declared []uint32) (*Prepared, error) {
	return e.PrepareFor(nil, sql, declared)
}

// PrepareFor is Prepare for a session (catalog views show its database and
// user).
func (e *Engine) PrepareFor(sess *Session, sql string, declared []uint32) (p *Prepared, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, internalPanic(r)
		}
	}()
	tree, err := sqlparse.Parse(sql)
	if err != nil {
		return nil, ParseError(err)
	}
	if len(tree.Stmts) != 1 {
		return nil, errf(CodeSyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	return e.prepareStmt(sess, sql, tree.Stmts[0].Stmt, declared)
}

// PrepareStmtFor is PrepareFor for a statement the caller built as a
// parse tree (the planner's INSERT … VALUES source), so that it is not
// printed as SQL text only to be parsed again. The tree is only read
// (it may share nodes with cached parse trees). sql is the text error
// positions refer to ("" = none: an error then carries no position).
func (e *Engine) PrepareStmtFor(sess *Session, sql string, stmt *sqlparse.Node, declared []uint32) (p *Prepared, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, internalPanic(r)
		}
	}()
	return e.prepareStmt(sess, sql, stmt, declared)
}

// prepareStmt binds one parsed statement (PrepareFor, PrepareStmtFor).
func (e *Engine) prepareStmt(sess *Session, sql string, stmt *sqlparse.Node, declared []uint32) (*Prepared, error) {
	cs := &catalogSet{user: e.Catalog, loc: time.UTC}
	if sess != nil {
		cs.db, cs.user_, cs.setting, cs.params = sess.Database, sess.User, sess.Setting, sess.Parameters
		cs.style = sess.DateStyle
		cs.rolesFn, cs.sessUser = sess.Roles, sess.sessionUser()
		cs.activityFn, cs.locksFn, cs.rowLocksFn = sess.Activity, sess.AdvisoryHolds, sess.RowLocks
		cs.relFunc = sess.RelationFunc
		cs.callFn = sess.CallFunction
		cs.replicationFn = sess.Replication
	}
	b := &binder{cat: cs, sql: sql}
	for i, oid := range declared {
		t := Type{OID: oid, Mod: -1}
		if oid == 0 {
			t = TUnknown
		} else if _, ok := typeInfos[oid]; !ok && cs.enumByOID(oid&^1) == nil {
			return nil, unsupported("parameter type %d is not supported", oid)
		}
		_ = i
		b.params = append(b.params, &t)
	}
	bd, err := b.bindStmt(stmt)
	if err != nil {
		return nil, err
	}
	b.notePrivilegeColumns() // before pruning narrows what views' scans read
	b.pruneViews()
	markJoinNeeds(bd.plan, nil)
	p := &Prepared{SQL: sql, plan: bd.plan, cols: bd.cols, eng: e, uses: b.uses, volatile: b.volatile}
	for i, t := range b.params {
		if i < len(declared) && IsEnumOID(declared[i]) {
			if p.paramEnums == nil {
				p.paramEnums = make([]*EnumDef, len(b.params))
			}
			p.paramEnums[i] = cs.enumByOID(declared[i] &^ 1)
		}
		p.ParamTypes = append(p.ParamTypes, *t)
	}
	for _, c := range bd.cols {
		col := Column{Name: c.name, TableOID: c.tableOID, AttNum: c.attnum,
			TypeOID: c.t.OID, TypeLen: c.t.Len(), TypeMod: c.t.WireMod()}
		if c.arrayOf != 0 {
			col.TypeOID, col.TypeMod = c.arrayOf, -1 // domains.go
		}
		p.Columns = append(p.Columns, col)
	}
	return p, nil
}

// Result is a fully computed query result.
type Result struct {
	Columns []Column
	Batches []*Batch // dense (no selection vectors)
	Tag     string
	loc     *time.Location
	types   []Type
	rows    int
}

// NumRows returns the row count.
func (r *Result) NumRows() int { return r.rows }

// locate maps a row number to a batch and offset.
func (r *Result) locate(row int) (*Batch, int) {
	for _, b := range r.Batches {
		if row < b.N {
			return b, row
		}
		row -= b.N
	}
	return nil, 0
}

// Text renders a value in PostgreSQL's text format; ok=false for NULL.
func (r *Result) Text(row, col int) (string, bool) {
	b, i := r.locate(row)
	return FormatText(b.Cols[col], i, r.loc)
}

// Rows returns every row in text format (nil entries are NULL).
func (r *Result) Rows() [][]*string {
	out := make([][]*string, 0, r.rows)
	for _, b := range r.Batches {
		for i := 0; i < b.N; i++ {
			row := make([]*string, len(b.Cols))
			for c, v := range b.Cols {
				if s, ok := FormatText(v, i, r.loc); ok {
					row[c] = &s
				}
			}
			out = append(out, row)
		}
	}
	return out
}

// Records converts the result to Arrow record batches.
func (r *Result) Records() []arrow.RecordBatch {
	fields := make([]arrow.Field, len(r.Columns))
	for i, c := range r.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: ArrowType(r.types[i]), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	var out []arrow.RecordBatch
	for _, b := range r.Batches {
		arrs := make([]arrow.Array, len(b.Cols))
		for i, v := range b.Cols {
			arrs[i] = vecToArrow(memory.DefaultAllocator, v)
		}
		out = append(out, array.NewRecordBatch(schema, arrs, int64(b.N)))
	}
	return out
}

// Execute runs the statement with parameter values (Go values: nil, string
// (text form), int64, int, float64, bool, time.Time) and returns the whole
// result.
func (p *Prepared) Execute(ctx context.Context, sess *Session, params []any) (res *Result, err error) {
	res = &Result{Columns: p.Columns, types: typesOf(p.cols)}
	tag, err := p.Stream(ctx, sess, params, func(b *Batch, loc *time.Location) error {
		res.loc = loc
		res.Batches = append(res.Batches, b)
		res.rows += b.N
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.loc == nil {
		res.loc = time.UTC
		if sess != nil && sess.TimeZone != nil {
			res.loc = sess.TimeZone
		}
	}
	res.Tag = tag
	return res, nil
}

// Stream runs the statement and hands each result batch (dense, no
// selection vector; render values with FormatText/AppendBinary in loc) to
// fn as it is produced, so large results need not be held in memory. It
// returns the command tag. fn returning an error stops the query.
func (p *Prepared) Stream(ctx context.Context, sess *Session, params []any, fn func(b *Batch, loc *time.Location) error) (tag string, err error) {
	return p.streamWith(ctx, sess, params, nil, fn)
}

// streamWith is Stream recording the join methods used in joins (EXPLAIN
// ANALYZE; nil: not recorded).
func (p *Prepared) streamWith(ctx context.Context, sess *Session, params []any, joins map[*joinNode]*nodeStats, fn func(b *Batch, loc *time.Location) error) (tag string, err error) {
	defer func() {
		if r := recover(); r != nil {
			tag, err = "", internalPanic(r)
		}
	}()
	if sess == nil {
		sess = &Session{}
	}
	loc := sess.TimeZone
	if loc == nil {
		loc = time.UTC
	}
	if len(params) < len(p.ParamTypes) {
		return "", &Error{Code: CodeProtocolViolation, Message: fmt.Sprintf("bind message supplies %d parameters, but prepared statement requires %d", len(params), len(p.ParamTypes))}
	}
	// one allocation for the execution's state (a point lookup runs many
	// statements of little work each)
	st := &struct {
		rc     runCtx
		ec     evalCtx
		budget memBudget
		params [2]*Vec
	}{}
	rc := &st.rc
	*rc = runCtx{ctx: ctx, loc: loc, style: sess.DateStyle, recursion: p.eng.RecursionLimit, user: sess.User, sessionUser: sess.sessionUser(), rolesFn: sess.Roles,
		database: sess.Database, pid: sess.PID, settings: sess.Setting, joinStats: joins,
		seqs: sess.Sequences, advisory: sess.Advisory, signal: sess.Signal, rowLocks: sess.RowLocks}
	if p.eng.MemoryLimit > 0 {
		st.budget.limit = p.eng.MemoryLimit
		rc.budget = &st.budget
	}
	if serverBudget.limit.Load() > 0 {
		st.budget.shared = &serverBudget
		rc.budget = &st.budget
		defer st.budget.settle()
	}
	rc.now = time.Now()
	ec := &st.ec
	*ec = evalCtx{ctx: ctx, loc: loc, run: rc, params: st.params[:0]}
	for i, t := range p.ParamTypes {
		v, err := paramVec(params[i], t, loc, sess.DateStyle)
		if err != nil {
			return "", err
		}
		if i < len(p.paramEnums) && p.paramEnums[i] != nil {
			if err := checkEnumParam(p.paramEnums[i], v); err != nil {
				return "", err
			}
		}
		ec.params = append(ec.params, v)
	}
	rows := 0
	err = p.plan.run(ec, func(b *Batch) error {
		if err := checkCancel(ctx); err != nil {
			return err
		}
		b = b.Compact()
		if b.N == 0 {
			return nil
		}
		rows += b.N
		return fn(b, loc)
	})
	if err != nil {
		if err == errStop {
			err = nil
		} else {
			if ctx.Err() != nil && Code(err) == "" {
				return "", checkCancel(ctx)
			}
			return "", err
		}
	}
	return "SELECT " + strconv.Itoa(rows), nil
}

// Query prepares and executes sql in one step.
func (e *Engine) Query(ctx context.Context, sess *Session, sql string, params ...any) (*Result, error) {
	p, err := e.PrepareFor(sess, sql, nil)
	if err != nil {
		return nil, err
	}
	return p.Execute(ctx, sess, params)
}

func paramVec(x any, t Type, loc *time.Location, st DateStyle) (*Vec, error) {
	if t.OID == OIDUnknown {
		t = TText
	}
	if pv, ok := x.(*Vec); ok && pv.N == 1 {
		// DecodeParam's binary value, already of the parameter's type
		if pv.T.OID == t.OID {
			return pv, nil
		}
		v := NewVec(t, 1)
		if err := castRows(&evalCtx{loc: loc}, pv, v, []int32{0}, true); err != nil {
			return nil, err
		}
		return v, nil
	}
	v := NewVec(t, 1)
	switch y := x.(type) {
	case nil:
		v.SetNull(0)
	case string:
		if t.Kind() == KStr && t.OID != OIDBytea && t.OID != OIDUUID && t.OID != OIDJSONB && t.OID != OIDJSON {
			v.S[0] = y
			return v, nil
		}
		if err := parseTextStyle(v, 0, y, loc, st); err != nil {
			return nil, err
		}
	case []byte:
		if t.OID == OIDBytea {
			v.S[0] = string(y)
			return v, nil
		}
		if err := parseTextStyle(v, 0, string(y), loc, st); err != nil {
			return nil, err
		}
	case int:
		return paramVec(int64(y), t, loc, st)
	case int32:
		return paramVec(int64(y), t, loc, st)
	case int64, float64, bool:
		if iv, ok := y.(int64); ok && t.OID == OIDInt8 {
			v.I[0] = iv
			return v, nil
		}
		st := TBool
		switch y.(type) {
		case int64:
			st = TInt8
		case float64:
			st = TFloat8
		}
		src := NewVec(st, 1)
		src.SetDatum(0, y)
		if err := castRows(&evalCtx{loc: loc}, src, v, []int32{0}, true); err != nil {
			return nil, err
		}
	case time.Time:
		s := y.UTC().Format("2006-01-02 15:04:05.999999") + "+00"
		if t.OID == OIDDate {
			s = y.Format("2006-01-02")
		}
		if err := parseText(v, 0, s, loc); err != nil {
			return nil, err
		}
	default:
		return nil, unsupported("parameter value of Go type %T is not supported", x)
	}
	return v, nil
}

// catalogSet resolves relation names: system catalogs first (pg_catalog is
// searched before the search path, as in PostgreSQL), then user tables.
type catalogSet struct {
	roles   *access.Catalog // roles(): the role catalog, read on first use
	rolesFn func() *access.Catalog
	user    Catalog
	loc     *time.Location
	style   DateStyle // DateStyle, IntervalStyle of the binding session
	sys     map[string]*TableDef
	db      string
	user_   string
	// sessUser is session_user (user_ is current_user)
	sessUser string
	setting  func(string) (string, bool)
	params   func() []Parameter
	// activityFn and locksFn serve pg_stat_activity and pg_locks
	activityFn func() []Activity
	locksFn    func() []AdvisoryHold
	rowLocksFn func() []RowLockHold
	relFunc    RelationFunc
	callFn     CallFunction // user functions' bodies (user_functions.go)
	// usage caches schemaUsable("public") (schema_usage.go): 0 not yet
	// asked, 1 usable, 2 not
	usage uint8
	// replicationFn serves the replication catalogs, read once per
	// statement into replicationObjs
	replicationFn   func() ReplicationObjects
	replicationObjs *ReplicationObjects
}

func (c *catalogSet) database() string {
	if c.db == "" {
		return "main"
	}
	return c.db
}

// userName is the owner of every object: the bootstrap superuser (the
// role with OID 10), which is the session user on a root without a role
// catalog.
func (c *catalogSet) userName() string {
	if r := c.roleCatalog().ByOID(access.BootstrapOID); r != nil {
		return r.Name
	}
	if c.user_ == "" {
		return "postgres"
	}
	return c.user_
}

func (c *catalogSet) table(schema, name string) *TableDef {
	switch schema {
	case "", "pg_catalog", "information_schema":
		if t := c.system(schema, name); t != nil {
			return t
		}
		if schema != "" {
			return nil
		}
	}
	if c.user == nil {
		return nil
	}
	if schema == "" {
		return c.userTableOnPath(name)
	}
	if schema == "pg_temp" { // the session's temporary schema (temp_schema.go)
		if schema = c.tempSchema(); schema == "" {
			return nil
		}
	}
	return c.user.Table(schema, storageName(schema, name))
}

var _ = strings.ToLower

// grammarErrorCode is the SQLSTATE of an error PostgreSQL's grammar raises:
// most are syntax errors, the window frame checks are 42P20.
// ParseError gives a sqlparse error its SQLSTATE: 42601 (or 42P20 for a
// window frame the grammar refuses) with the position, 54001 for a
// statement nested too deeply.
func ParseError(err error) error {
	if se, ok := err.(*sqlparse.SyntaxError); ok {
		return &Error{Code: grammarErrorCode(se.Message), Message: se.Message, Position: int32(se.Position)}
	}
	if ge := graphError(err); ge != err {
		return ge
	}
	if sqlparse.IsStackDepthError(err) {
		return &Error{Code: CodeStackDepthExceeded, Message: err.Error(), Hint: sqlparse.StackDepthHint}
	}
	return err
}

func grammarErrorCode(msg string) string {
	if strings.HasPrefix(msg, "invalid byte sequence for encoding") {
		// the scanner's check of an escape string (E'\xff', E'\000'):
		// PostgreSQL raises it as 22021, not as a syntax error
		return CodeCharacterNotInRepertoire
	}
	if strings.HasPrefix(msg, "frame start cannot be") || strings.HasPrefix(msg, "frame end cannot be") ||
		strings.HasPrefix(msg, "frame starting from") {
		return CodeWindowingError
	}
	return CodeSyntaxError
}
