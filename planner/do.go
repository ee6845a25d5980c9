package planner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/pgq"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// DO blocks (docs/sql.md, "DO blocks"). The body is compiled first
// (plpgsql.go: PostgreSQL's PL/pgSQL grammar, then the subset check), so
// a body outside the subset changes nothing. It then runs statement by
// statement through the session itself (Parse and Execute, as if the
// client had sent each one), inside the statement's transaction: an
// autocommit DO turns its implicit transaction into a pending one, so
// everything it does publishes as one graph commit when it ends, or
// nothing when it fails. A block with EXCEPTION handlers runs its body
// under an internal savepoint: a matching error rolls the body's changes
// back (as PostgreSQL's subtransaction does) and runs the handler.

// maxDoDepth bounds DO blocks nested through EXECUTE 'DO …' (54001 past
// it, as PostgreSQL's stack guard would stop runaway recursion).
const maxDoDepth = 32

// errDoReturn ends the block's execution (RETURN); errDoExit and
// errDoContinue leave or continue the innermost loop.
var (
	errDoReturn   = errors.New("RETURN")
	errDoExit     = errors.New("EXIT")
	errDoContinue = errors.New("CONTINUE")
)

// maxDoIterations bounds how often one loop of a DO block may run, so a
// block that never leaves its loop ends with an error rather than
// running until someone cancels it.
var maxDoIterations = 10_000_000 // a variable for tests

type doRun struct {
	names      []string // variable names by datum number
	rowCount   int64    // ROW_COUNT: rows the last SQL command processed
	s          *session
	assignText string              // the assignment running ("n := n + 1"), for CONTEXT
	vars       map[string]*plValue // the block's variables by name
	found      bool                // FOUND: the last SQL statement or PERFORM touched a row
	saves      int                 // internal savepoints taken (their names)
	caught     []*wire.Error       // errors whose handlers are running (RAISE;)
	// fn is the function whose body runs (nil for a DO block);
	// result collects what it returns (function_call.go)
	fn     *exec.FuncDef
	result *plResult
	// tgArgv: a trigger's arguments (TG_ARGV[n], counted from 0; nil
	// outside a trigger)
	tgArgv []string
}

// isDo reports a DO statement — not the property graph statements that
// pgq.Splice hands over as DO LANGUAGE pgq.DDLLanguage, which are DDL
// (planner/ddl/propgraph.go).
func isDo(n *sqlparse.Node) bool {
	d := n.GetDoStmt()
	if d == nil {
		return false
	}
	for _, a := range d.Args {
		if e := a.GetDefElem(); e != nil && e.Defname == "language" && e.Arg.GetString_().GetSval() == pgq.DDLLanguage {
			return false
		}
	}
	return true
}

func (s *session) executeDo(ctx context.Context, p *plan) (wire.Result, error) {
	lang := "plpgsql"
	for _, a := range p.node.GetDoStmt().Args {
		if d := a.GetDefElem(); d != nil && d.Defname == "language" {
			lang = d.Arg.GetString_().GetSval()
		}
	}
	switch lang {
	case "plpgsql":
	case "sql", "c", "internal":
		return nil, wire.Errorf(wire.CodeFeatureNotSupported, "language \"%s\" does not support inline code execution", lang)
	default:
		return nil, wire.Errorf(pgerr.UndefinedObject, "language \"%s\" does not exist", lang)
	}
	body := ""
	for _, a := range p.node.GetDoStmt().Args {
		if d := a.GetDefElem(); d != nil && d.Defname == "as" {
			body = d.Arg.GetString_().GetSval()
		}
	}
	prog, err := compileDo(p.sql, body)
	if err != nil {
		var se *sqlparse.SyntaxError
		if errors.As(err, &se) {
			code := wire.CodeSyntaxError
			if strings.HasPrefix(se.Message, "unrecognized exception condition") {
				code = pgerr.UndefinedObject // PostgreSQL's code; the grammar reports no SQLSTATE
			}
			return nil, &wire.Error{Code: code, Message: se.Message, Where: se.Context}
		}
		return nil, err
	}
	if s.doDepth >= maxDoDepth {
		return nil, wire.Errorf(pgerr.StatementTooComplex, "stack depth limit exceeded").WithHint(sqlparse.StackDepthHint)
	}
	s.doDepth++
	defer func() { s.doDepth-- }()
	if s.tx != nil && s.tx.implicit {
		// what the block does publishes when the statement ends, as
		// one commit (or not at all)
		s.tx.implicit = false
	}
	r := &doRun{s: s, vars: map[string]*plValue{}, names: prog.names}
	if err := r.declare(ctx, prog.vars); err != nil {
		return nil, err
	}
	switch err := r.block(ctx, prog.body); err {
	case nil, errDoReturn:
	case errDoExit, errDoContinue:
		return nil, wire.Errorf(wire.CodeSyntaxError, "%s cannot be used outside a loop", map[bool]string{true: "EXIT", false: "CONTINUE"}[err == errDoExit])
	default:
		if _, ok := err.(*plJump); !ok {
			return nil, err
		}
	}
	return &tagResult{tag: "DO"}, nil
}

func (r *doRun) stmts(ctx context.Context, list []plStmt) error {
	for _, st := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.stmt(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

func (r *doRun) stmt(ctx context.Context, st plStmt) error {
	switch x := st.(type) {
	case *plBlock:
		return r.block(ctx, x)
	case *plSQL:
		if x.into != nil {
			return r.selectInto(ctx, x)
		}
		sql, err := r.substitute(ctx, x.sql)
		if err != nil {
			return r.inner(err, x.sql, x.lineno, "SQL statement", "SQL statement")
		}
		return r.run(ctx, x.sql, sql, x.lineno, "SQL statement", "SQL statement", false, nil)
	case *plPerform:
		sql, err := r.substitute(ctx, x.sql)
		if err != nil {
			return r.inner(err, x.sql, x.lineno, "PERFORM", "SQL statement")
		}
		return r.run(ctx, x.sql, sql, x.lineno, "PERFORM", "SQL statement", true, nil)
	case *plAssign:
		return r.assign(ctx, x)
	case *plLoop:
		return r.loop(ctx, x)
	case *plForInt:
		return r.forInt(ctx, x)
	case *plForQuery:
		return r.forQuery(ctx, x)
	case *plExit:
		if x.cond != "" {
			v, null, err := r.value(ctx, x.cond, x.lineno, map[bool]string{true: "EXIT", false: "CONTINUE"}[x.exit])
			if err != nil {
				return err
			}
			if ok, err := boolInput(v); null || err != nil || !ok {
				if err != nil && !null {
					return r.where(err, x.lineno, "EXIT")
				}
				return nil
			}
		}
		if x.label != "" {
			return &plJump{exit: x.exit, label: x.label}
		}
		if x.exit {
			return errDoExit
		}
		return errDoContinue
	case *plExecute:
		return r.execute(ctx, x) // plpgsql_control.go
	case *plCase:
		return r.caseStmt(ctx, x)
	case *plCall:
		return r.call(ctx, x)
	case *plForeach:
		return r.foreach(ctx, x)
	case *plIf:
		for _, arm := range x.arms {
			v, null, err := r.value(ctx, arm.cond, x.lineno, "IF")
			if err != nil {
				return err
			}
			ok, err := boolInput(v)
			if err != nil && !null {
				return r.where(err, x.lineno, "IF")
			}
			if ok && !null {
				return r.stmts(ctx, arm.body)
			}
		}
		return r.stmts(ctx, x.els)
	case *plRaise:
		return r.raise(ctx, x)
	case *plReturn:
		if r.fn != nil {
			return r.functionReturn(ctx, x)
		}
		return errDoReturn
	case *plReturnNext:
		return r.returnNext(ctx, x)
	case *plGetDiag:
		return r.getDiag(ctx, x)
	}
	return fmt.Errorf("DO: statement %T", st)
}

// block runs a block; with handlers, under an internal savepoint.
func (r *doRun) block(ctx context.Context, b *plBlock) error {
	if len(b.decls) > 0 {
		// a nested block's variables: declared on entry, hiding outer
		// ones of the same name until the block ends
		saved := map[string]*plValue{}
		for _, d := range b.decls {
			if _, ok := saved[d.name]; !ok {
				saved[d.name] = r.vars[d.name]
			}
		}
		defer func() {
			for name, v := range saved {
				if v == nil {
					delete(r.vars, name)
				} else {
					r.vars[name] = v
				}
			}
		}()
		if err := r.declare(ctx, b.decls); err != nil {
			return err
		}
	}
	if b.label != "" {
		// EXIT label leaves the labeled block
		err := r.unlabeledBlock(ctx, b)
		if j, ok := err.(*plJump); ok && j.exit && j.label == b.label {
			return nil
		}
		return err
	}
	return r.unlabeledBlock(ctx, b)
}

func (r *doRun) unlabeledBlock(ctx context.Context, b *plBlock) error {
	if len(b.handlers) == 0 {
		return r.stmts(ctx, b.body)
	}
	r.saves++
	name := fmt.Sprintf("\x00do %d block %d", r.s.doDepth, r.saves) // no client can name it
	if err := r.s.Savepoint(ctx, name); err != nil {
		return err
	}
	err := r.stmts(ctx, b.body)
	if _, jump := err.(*plJump); err == nil || err == errDoReturn || err == errDoExit || err == errDoContinue || jump {
		// leaving the block by RETURN, EXIT or CONTINUE keeps its work
		if rerr := r.s.ReleaseSavepoint(ctx, name); rerr != nil {
			return rerr
		}
		return err
	}
	var we *wire.Error
	if !errors.As(err, &we) || we.Severity == wire.SeverityFatal {
		return err
	}
	for _, h := range b.handlers {
		if !conditionsMatch(h.conds, we.Code) {
			continue
		}
		if rerr := r.s.RollbackToSavepoint(ctx, name); rerr != nil {
			return rerr
		}
		if rerr := r.s.ReleaseSavepoint(ctx, name); rerr != nil {
			return rerr
		}
		r.caught = append(r.caught, we)
		defer func() { r.caught = r.caught[:len(r.caught)-1] }()
		return r.stmts(ctx, h.body)
	}
	return err
}

// conditionsMatch reports whether code is one of conds: a condition
// name, a class name (its SQLSTATE ends in 000 and covers the class),
// WHEN SQLSTATE '…', or OTHERS (all but query_canceled and
// assert_failure, as in PostgreSQL).
func conditionsMatch(conds []string, code string) bool {
	for _, c := range conds {
		if c == "others" {
			if code != pgerr.QueryCanceled && code != pgerr.AssertFailure {
				return true
			}
			continue
		}
		codes := pgerr.ConditionCodes(c)
		if isSQLState(c) {
			codes = []string{c}
		}
		for _, want := range codes {
			if want == code || strings.HasSuffix(want, "000") && want[:2] == code[:2] {
				return true
			}
		}
	}
	return false
}

// run executes sql (one or more statements; text is how the block
// wrote it, for CONTEXT) as the session would. discard: rows are read
// and dropped (PERFORM, EXECUTE); otherwise a statement returning rows
// fails as in PostgreSQL, unless onRow takes them. kind names the
// PL/pgSQL statement and what for the CONTEXT line.
func (r *doRun) run(ctx context.Context, text, sql string, line int, kind, what string, discard bool, onRow rowFunc) error {
	sts, err := r.s.Parse(ctx, sql)
	if err != nil {
		return r.inner(err, text, line, kind, what)
	}
	for _, st := range sts {
		shown := st.SQL
		if len(sts) == 1 {
			shown = text
		}
		// the statement's notices carry the CONTEXT its errors would
		restore := r.noticeContext(shown, line, kind, what)
		each := onRow
		if onRow != nil {
			// a FOR loop's body runs between rows: its notices are its own
			each = func(cols []wire.Column, vals []string, nulls []bool) error {
				wrapped := r.s.info.Notice
				restore()
				defer func() { r.s.info.Notice = wrapped }()
				return onRow(cols, vals, nulls)
			}
		}
		err := r.runOne(ctx, st, shown, line, kind, what, discard, each)
		restore()
		if err != nil {
			return err
		}
	}
	return nil
}

// rowFunc takes one row of a statement's result, in text form (a NULL is
// nulls[i]); an error stops the statement.
type rowFunc func(cols []wire.Column, vals []string, nulls []bool) error

// noticeContext makes the session's notices carry the CONTEXT lines of
// the statement the block runs, until restore.
func (r *doRun) noticeContext(sql string, line int, kind, what string) (restore func()) {
	prev := r.s.info.Notice
	if prev == nil {
		return func() {}
	}
	r.s.info.Notice = func(e *wire.Error) {
		c := *e
		where := fmt.Sprintf("%s \"%s\"\n%s", what, sql, r.plContext(line, kind))
		if c.Where != "" {
			where = c.Where + "\n" + where
		}
		c.Where = where
		prev(&c)
	}
	return func() { r.s.info.Notice = prev }
}

func (r *doRun) runOne(ctx context.Context, st *wire.Statement, text string, line int, kind, what string, discard bool, onRow rowFunc) error {
	if st.Kind != wire.KindQuery {
		return r.where(plRefuse(strings.ToUpper(strings.Fields(st.SQL)[0])), line, kind)
	}
	res, err := r.s.Execute(ctx, st, nil)
	if err != nil {
		return r.inner(err, text, line, kind, what)
	}
	if res.Columns() != nil && !discard && onRow == nil {
		res.Close()
		e := wire.Errorf(wire.CodeSyntaxError, "query has no destination for result data")
		if p, _ := st.Plan.(*plan); p != nil && p.kind == stmtQuery {
			e = e.WithHint("If you want to discard the results of a SELECT, use PERFORM instead.")
		}
		return r.where(e, line, kind)
	}
	rows := 0
	if onRow != nil {
		tr, ok := res.(wire.TextRows)
		if !ok {
			tr = &encodedRows{res: res, m: r.s.typeMap()}
		}
		cols := res.Columns()
		var (
			buf  []byte
			ends []int
		)
		for {
			var more bool
			buf, ends, more, err = tr.NextText(ctx, buf[:0], ends[:0])
			if err != nil {
				res.Close()
				return r.inner(err, text, line, kind, what)
			}
			if !more {
				break
			}
			rows++
			vals, nulls := make([]string, len(ends)), make([]bool, len(ends))
			from := 0
			for i, e := range ends {
				if e < 0 {
					nulls[i] = true
					continue
				}
				vals[i], from = string(buf[from:e]), e
			}
			if err := onRow(cols, vals, nulls); err != nil {
				res.Close()
				return err
			}
		}
	} else {
		for {
			_, ok, err := res.Next(ctx)
			if err != nil {
				res.Close()
				return r.inner(err, text, line, kind, what)
			}
			if !ok {
				break
			}
			rows++
		}
	}
	tag := res.Tag()
	if err := res.Close(); err != nil {
		return r.inner(err, text, line, kind, what)
	}
	// ROW_COUNT: the rows a write touched (its tag), else the rows read
	r.rowCount = int64(rows)
	if f := strings.Fields(tag); len(f) > 0 && rows == 0 {
		if n, err := strconv.ParseInt(f[len(f)-1], 10, 64); err == nil {
			r.rowCount = n
		}
	}
	// FOUND, as PL/pgSQL sets it: PERFORM by its rows, INSERT, UPDATE,
	// DELETE and MERGE by the rows they touched; EXECUTE and other
	// statements leave it
	switch p, _ := st.Plan.(*plan); {
	case kind == "PERFORM" || onRow != nil && kind == "SQL statement":
		r.found = rows > 0
	case kind == "SQL statement" && p != nil && (p.kind == stmtInsert || p.kind == stmtUpdate || p.kind == stmtDelete || p.kind == stmtMerge):
		f := strings.Fields(tag)
		r.found = len(f) > 0 && f[len(f)-1] != "0"
	}
	return nil
}

// value evaluates a PL/pgSQL expression to its text (the value's output
// function's form, as PL/pgSQL converts a value for RAISE and EXECUTE,
// and, by boolean's input function, for IF).
func (r *doRun) value(ctx context.Context, expr string, line int, kind string) (string, bool, error) {
	return r.valueAs(ctx, expr, "", line, kind)
}

// valueAs is value of the expression converted to typ ("" = as it is),
// as PL/pgSQL assigns: the expression is evaluated, then its value cast
// (so a bad conversion is the assignment's error, not the expression's).
func (r *doRun) valueAs(ctx context.Context, expr, typ string, line int, kind string) (string, bool, error) {
	what, shown := "SQL expression", expr
	if kind == "assignment" {
		what, shown = "PL/pgSQL assignment", r.assignText
	}
	val, null, src, err := r.eval(ctx, "SELECT ("+expr+"\n)", shown, line, kind, what)
	if err != nil || null || typ == "" || src == typ {
		return val, null, err
	}
	val, null, _, err = r.eval(ctx, "SELECT ("+sqlString(val)+"::"+src+")::"+typ, "", line, kind, "")
	return val, null, err
}

// eval runs a one-value query and returns its value as text, and its
// type; errors name shown as what in CONTEXT (or only the PL/pgSQL line
// when what is "").
func (r *doRun) eval(ctx context.Context, sql, shown string, line int, kind, what string) (string, bool, string, error) {
	fail := func(err error) error {
		if what == "" {
			return r.where(err, line, kind)
		}
		return r.inner(err, shown, line, kind, what)
	}
	sql, err := r.substitute(ctx, sql)
	if err != nil {
		return "", false, "", fail(err)
	}
	sts, err := r.s.Parse(ctx, sql)
	if err != nil || len(sts) != 1 || sts[0].Kind != wire.KindQuery {
		if err == nil {
			err = wire.Errorf(wire.CodeSyntaxError, "syntax error in PL/pgSQL expression \"%s\"", shown)
		}
		return "", false, "", fail(err)
	}
	res, err := r.s.Execute(ctx, sts[0], nil)
	if err != nil {
		return "", false, "", fail(err)
	}
	defer res.Close()
	tr, ok := res.(wire.TextRows)
	if !ok {
		tr = &encodedRows{res: res, m: r.s.typeMap()}
	}
	var (
		buf, out []byte
		ends     []int
		null     bool
	)
	for n := 0; ; n++ {
		var more bool
		buf, ends, more, err = tr.NextText(ctx, buf[:0], ends[:0])
		if err != nil {
			return "", false, "", fail(err)
		}
		if !more {
			if n == 0 {
				null = true // no row: NULL, as in PL/pgSQL
			}
			break
		}
		if n > 0 {
			return "", false, "", r.where(wire.Errorf(pgerr.CardinalityViolation, "query returned more than one row"), line, kind)
		}
		null = ends[0] < 0
		out = append(out[:0], buf[:max(ends[0], 0)]...)
	}
	src := ""
	if cols := res.Columns(); len(cols) == 1 {
		src = exec.FormatType(cols[0].TypeOID, cols[0].TypeMod)
	}
	return string(out), null, src, nil
}

// plContext is the PL/pgSQL line of a CONTEXT: the function's
// signature, or inline_code_block for a DO body.
func (r *doRun) plContext(line int, kind string) string {
	name := "inline_code_block"
	if r.fn != nil {
		name = r.fn.Signature()
	}
	if kind == kindInit {
		return fmt.Sprintf("PL/pgSQL function %s line %d during statement block local variable initialization", name, line)
	}
	return fmt.Sprintf("PL/pgSQL function %s line %d at %s", name, line, kind)
}

// kindInit is the "statement" of a variable's default.
const kindInit = "\x00init"

// inner places an error of a statement the block ran: PostgreSQL's
// CONTEXT names the statement (unless the error points into it, when it
// travels as the internal query) and the PL/pgSQL line.
func (r *doRun) inner(err error, sql string, line int, kind, what string) error {
	if kind == "" {
		return err // a SQL function's statement: sqlContext places it
	}
	var we *wire.Error
	if !errors.As(err, &we) {
		return err
	}
	e := *we
	where := r.plContext(line, kind)
	if e.Position == 0 {
		where = fmt.Sprintf("%s \"%s\"\n%s", what, sql, where)
	}
	if e.Where != "" {
		where = e.Where + "\n" + where
	}
	e.Where, e.Position = where, 0
	return &e
}

// where adds the PL/pgSQL line to an error raised by the block itself.
func (r *doRun) where(err error, line int, kind string) error {
	var we *wire.Error
	if !errors.As(err, &we) {
		return err
	}
	e := *we
	e.Where = r.plContext(line, kind)
	return &e
}

// raise runs RAISE: a message at a level below ERROR is a notice (the
// session's client_min_messages filter applies), at ERROR it fails the
// block.
func (r *doRun) raise(ctx context.Context, x *plRaise) error {
	if x.reraise {
		if len(r.caught) == 0 {
			return r.where(wire.Errorf(pgerr.StackedDiagnosticsAccessedWithoutActiveHandler, "RAISE without parameters cannot be used outside an exception handler"), x.lineno, "RAISE")
		}
		return r.caught[len(r.caught)-1]
	}
	e := &wire.Error{}
	if x.condname != "" {
		e.Message = x.condname
		if e.Code = x.condname; !isSQLState(x.condname) {
			e.Code = pgerr.ConditionCodes(x.condname)[0]
		}
	}
	var params []string
	for _, p := range x.params {
		v, null, err := r.value(ctx, p, x.lineno, "RAISE")
		if err != nil {
			return err
		}
		if null {
			v = "<NULL>"
		}
		params = append(params, v)
	}
	if x.message != "" || x.condname == "" && len(x.params) == 0 {
		e.Message = raiseFormat(x.message, params)
	}
	for _, o := range x.options {
		v, null, err := r.value(ctx, o.expr, x.lineno, "RAISE")
		if err != nil {
			return err
		}
		if null {
			return r.where(wire.Errorf(pgerr.NullValueNotAllowed, "RAISE statement option cannot be null"), x.lineno, "RAISE")
		}
		switch o.kind {
		case raiseErrcode:
			if isSQLState(v) {
				e.Code = v
			} else if codes := pgerr.ConditionCodes(v); codes != nil {
				e.Code = codes[0]
			} else {
				return r.where(wire.Errorf(pgerr.UndefinedObject, "unrecognized exception condition \"%s\"", v), x.lineno, "RAISE")
			}
		case raiseMessage:
			e.Message = v
		case raiseDetail:
			e.Detail = v
		case raiseHint:
			e.Hint = v
		}
	}
	if e.Message == "" && e.Code != "" {
		e.Message = e.Code
	}
	if x.level >= elogError {
		if e.Code == "" {
			e.Code = pgerr.RaiseException // raise_exception
		}
		e.Severity = wire.SeverityError
		return r.where(e, x.lineno, "RAISE")
	}
	switch {
	case x.level >= elogWarning:
		e.Severity = wire.SeverityWarning
		if e.Code == "" {
			e.Code = pgerr.Warning
		}
	case x.level >= elogNotice:
		e.Severity = wire.SeverityNotice
	case x.level >= elogInfo:
		e.Severity = "INFO"
	case x.level >= elogLog:
		e.Severity = "LOG"
	default:
		e.Severity = "DEBUG"
	}
	if e.Code == "" {
		e.Code = wire.CodeSuccessfulCompletion
	}
	e.Where = r.plContext(x.lineno, "RAISE")
	if r.s.info.Notice != nil {
		r.s.info.Notice(e)
	}
	return nil
}

// raiseFormat puts params in the "%" places of format ("%%" is a
// percent sign); the grammar has checked their number.
func raiseFormat(format string, params []string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if len(params) > 0 {
			b.WriteString(params[0])
			params = params[1:]
		}
	}
	return b.String()
}

// boolInput reads a value as boolean's input function does.
func boolInput(v string) (bool, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	prefixOf := func(word string) bool { return s != "" && strings.HasPrefix(word, s) }
	switch {
	case s == "1" || s == "on" || prefixOf("true") || prefixOf("yes"):
		return true, nil
	case s == "0" || s == "off" || s == "of" || prefixOf("false") || prefixOf("no"):
		return false, nil
	}
	return false, wire.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type boolean: \"%s\"", v)
}

// sqlString is s as a string literal (standard_conforming_strings: only
// quotes are doubled).
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// encodedRows is wire.TextRows of a result that offers only Go values
// (a write's RETURNING rows): each value in its type's text form.
type encodedRows struct {
	res wire.Result
	m   *pgtype.Map
}

func (e *encodedRows) NextText(ctx context.Context, buf []byte, ends []int) ([]byte, []int, bool, error) {
	row, ok, err := e.res.Next(ctx)
	if err != nil || !ok {
		return buf, ends, false, err
	}
	cols := e.res.Columns()
	for i, v := range row {
		if v == nil {
			ends = append(ends, -1)
			continue
		}
		if buf, err = e.m.Encode(cols[i].TypeOID, pgtype.TextFormatCode, v, buf); err != nil {
			return buf, ends, false, err
		}
		ends = append(ends, len(buf))
	}
	return buf, ends, true, nil
}
