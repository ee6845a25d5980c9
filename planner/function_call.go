package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Calls of user functions (docs/sql.md, "Functions"). The executor binds
// a call and hands each row's arguments here as text
// (exec.Session.CallFunction); the body runs through the session like a
// DO block's statements, inside the calling statement's transaction, so
// what it writes publishes with that statement's graph commit (an
// autocommit statement becomes pending, as a DO does). A PL/pgSQL body
// runs on the DO interpreter with the parameters as its first
// variables; a SQL body runs its statements with $n and the parameter
// names replaced by typed literals (a column of the same name wins, as
// in PostgreSQL's SQL functions), and the last statement's rows are the
// result.

// plResult collects a function's result: its rows as text.
type plResult struct {
	rows     [][]*string
	returned bool
	rec      *plRecord // a trigger function's row (nil: NULL)
}

// callFunction implements exec.CallFunction.
func (s *session) callFunction(ctx context.Context, f *exec.FuncDef, args []*string) ([][]*string, error) {
	if s.doDepth >= maxDoDepth {
		return nil, wire.Errorf(pgerr.StatementTooComplex, "stack depth limit exceeded").WithHint(sqlparse.StackDepthHint)
	}
	s.doDepth++
	defer func() { s.doDepth-- }()
	if s.tx != nil && s.tx.implicit {
		// what the body writes publishes with the calling statement
		s.tx.implicit = false
	}
	r := &doRun{s: s, vars: map[string]*plValue{}, fn: f, result: &plResult{}}
	ins := f.Inputs()
	for i, a := range ins {
		v := &plValue{typ: exec.FormatType(a.Type.OID, a.Type.Mod), null: true}
		if i < len(args) && args[i] != nil {
			v.val, v.null = *args[i], false
		}
		if a.Name != "" {
			r.vars[a.Name] = v
		}
	}
	switch f.Language {
	case "sql":
		return r.sqlFunction(ctx, args)
	case "plpgsql":
		return r.plpgsqlFunction(ctx)
	}
	return nil, wire.Errorf(wire.CodeFeatureNotSupported, "LANGUAGE %s functions are not supported", f.Language)
}

// sqlFunction runs a SQL function's body: its last statement's rows are
// the result (none: NULL).
func (r *doRun) sqlFunction(ctx context.Context, args []*string) ([][]*string, error) {
	f := r.fn
	ins := f.Inputs()
	body, err := r.sqlParams(f.Body, ins, args)
	if err != nil {
		return nil, r.sqlContext(err)
	}
	sts, err := r.s.Parse(ctx, body)
	if err != nil {
		return nil, r.sqlContext(err)
	}
	var rows [][]*string
	for i, st := range sts {
		text, err := r.substituteColumnsFirst(ctx, st.SQL)
		if err != nil {
			return nil, r.sqlContext(err)
		}
		one, err := r.s.Parse(ctx, text)
		if err != nil || len(one) != 1 {
			if err == nil {
				err = wire.Errorf(wire.CodeSyntaxError, "syntax error in SQL function \"%s\"", f.Name)
			}
			return nil, r.sqlContext(err)
		}
		last := i == len(sts)-1
		var onRow rowFunc
		if last && f.Ret.OID != exec.OIDVoid {
			onRow = func(_ []wire.Column, vals []string, nulls []bool) error {
				row := make([]*string, len(vals))
				for j := range vals {
					if !nulls[j] {
						v := vals[j]
						row[j] = &v
					}
				}
				if len(rows) == 0 || f.RetSet {
					rows = append(rows, row)
				}
				return nil
			}
		}
		if err := r.runSQLStatement(ctx, one[0], onRow); err != nil {
			return nil, r.sqlContext(err)
		}
	}
	return rows, nil
}

// runSQLStatement runs one statement of a SQL function's body; its rows
// go to onRow (nil: read and dropped).
func (r *doRun) runSQLStatement(ctx context.Context, st *wire.Statement, onRow rowFunc) error {
	if st.Kind != wire.KindQuery {
		return wire.Errorf(wire.CodeFeatureNotSupported, "%s in a SQL function is not supported", strings.ToUpper(strings.Fields(st.SQL)[0]))
	}
	if onRow == nil {
		onRow = func([]wire.Column, []string, []bool) error { return nil }
	}
	return r.runOne(ctx, st, st.SQL, 0, "", "", true, onRow)
}

// sqlContext is PostgreSQL's CONTEXT of an error in a SQL function.
func (r *doRun) sqlContext(err error) error {
	var we *wire.Error
	if !errors.As(err, &we) {
		return err
	}
	e := *we
	where := fmt.Sprintf("SQL function \"%s\" statement 1", r.fn.Name)
	if e.Where != "" {
		where = e.Where + "\n" + where
	}
	e.Where, e.Position = where, 0
	return &e
}

// sqlParams replaces $n with the argument as a typed literal.
func (r *doRun) sqlParams(body string, ins []exec.FuncArg, args []*string) (string, error) {
	refs, err := sqlparse.ParamRefs(body)
	if err != nil {
		return "", err
	}
	for i := len(refs) - 1; i >= 0; i-- {
		p := refs[i]
		if p.N < 1 || p.N > len(ins) {
			return "", wire.Errorf(pgerr.UndefinedParameter, "there is no parameter $%d", p.N)
		}
		v := plValue{typ: exec.FormatType(ins[p.N-1].Type.OID, ins[p.N-1].Type.Mod), null: true}
		if p.N-1 < len(args) && args[p.N-1] != nil {
			v.val, v.null = *args[p.N-1], false
		}
		body = body[:p.Start] + v.literal() + body[p.End:]
	}
	return body, nil
}

// substituteColumnsFirst puts the parameters named in sql in, except
// where a column of that name is visible (SQL functions resolve columns
// first).
func (r *doRun) substituteColumnsFirst(ctx context.Context, sql string) (string, error) {
	refs, err := sqlparse.ColumnRefs(sql)
	if err != nil {
		return "", err
	}
	var visible map[string]bool
	for i := len(refs) - 1; i >= 0; i-- {
		ref := refs[i]
		var v *plValue
		switch {
		case len(ref.Names) == 1:
			v = r.vars[ref.Names[0]]
		case len(ref.Names) == 2 && ref.Names[0] == r.fn.Name:
			v = r.vars[ref.Names[1]] // function_name.parameter
		}
		if v == nil {
			continue
		}
		if len(ref.Names) == 1 {
			if visible == nil {
				if visible, err = r.visibleColumns(ctx, sql); err != nil {
					return "", err
				}
			}
			if visible[ref.Names[0]] {
				continue
			}
		}
		sql = sql[:ref.Start] + v.literal() + sql[ref.End:]
	}
	return sql, nil
}

// plpgsqlFunction runs a PL/pgSQL function's body.
func (r *doRun) plpgsqlFunction(ctx context.Context) ([][]*string, error) {
	f := r.fn
	prog, err := compileFunction(f)
	if err != nil {
		return nil, err
	}
	var decls []plVarDecl
	for _, d := range prog.vars {
		if _, isParam := r.vars[d.name]; !isParam {
			decls = append(decls, d)
		}
	}
	r.names = prog.names
	if err := r.declare(ctx, decls); err != nil {
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
	if !r.result.returned && f.Ret.OID == exec.OIDTrigger {
		return nil, &wire.Error{Code: pgerr.FunctionExecutedNoReturnStatement, Message: "control reached end of trigger procedure without RETURN", Where: fmt.Sprintf("PL/pgSQL function %s", f.Signature())}
	}
	if !r.result.returned && !f.RetSet && len(outParams(f)) > 0 {
		// control may fall off the end of a function with OUT
		// parameters: their values are the result
		r.result.rows = [][]*string{r.outRow()}
		return r.result.rows, nil
	}
	if !r.result.returned && !f.RetSet && f.Ret.OID != exec.OIDVoid {
		return nil, &wire.Error{Code: pgerr.FunctionExecutedNoReturnStatement, Message: "control reached end of function without RETURN", Where: fmt.Sprintf("PL/pgSQL function %s", f.Signature())}
	}
	return r.result.rows, nil
}

// functionReturn runs RETURN in a function: its value is the result
// (a set-returning function ends).
func (r *doRun) functionReturn(ctx context.Context, x *plReturn) error {
	f := r.fn
	if x.lineno == 0 {
		return errDoReturn // the body's end (plpgsqlFunction checks for a RETURN)
	}
	r.result.returned = true
	if f.RetSet || f.Ret.OID == exec.OIDVoid {
		return errDoReturn
	}
	if f.Ret.OID == exec.OIDTrigger {
		return r.triggerReturn(ctx, x)
	}
	if len(outParams(f)) > 0 {
		r.result.rows = [][]*string{r.outRow()}
		return errDoReturn
	}
	if f.RowOf != "" {
		// a table's row: a record variable's fields
		v := r.vars[strings.ToLower(strings.TrimSpace(x.expr))]
		if x.expr == "" && x.varno >= 0 && x.varno < len(r.names) {
			v = r.vars[r.names[x.varno]]
		}
		if v == nil || !v.isRec {
			return r.where(wire.Errorf(wire.CodeFeatureNotSupported, "RETURN of an expression other than a record variable in a function returning a table's row type is not supported"), x.lineno, "RETURN")
		}
		if v.rec == nil {
			r.result.rows = [][]*string{nil}
			return errDoReturn
		}
		row := make([]*string, len(v.rec.vals))
		for i := range v.rec.vals {
			if !v.rec.nulls[i] {
				s := v.rec.vals[i]
				row[i] = &s
			}
		}
		r.result.rows = [][]*string{row}
		return errDoReturn
	}
	expr := x.expr
	if expr == "" && x.varno >= 0 && x.varno < len(r.names) {
		expr = r.names[x.varno]
	}
	if expr == "" {
		return errDoReturn // OUT parameters: not reached (refused at compile)
	}
	val, null, err := r.valueAs(ctx, expr, exec.FormatType(f.Ret.OID, f.Ret.Mod), x.lineno, "RETURN")
	if err != nil {
		return err
	}
	if null {
		r.result.rows = [][]*string{{nil}}
	} else {
		r.result.rows = [][]*string{{&val}}
	}
	return errDoReturn
}

// returnNext runs RETURN NEXT and RETURN QUERY: rows added to a
// set-returning function's result.
func (r *doRun) returnNext(ctx context.Context, x *plReturnNext) error {
	f := r.fn
	if f == nil || !f.RetSet {
		return r.where(wire.Errorf(pgerr.DatatypeMismatch, "cannot use RETURN NEXT in a non-SETOF function"), x.lineno, "RETURN NEXT")
	}
	if x.query != "" {
		sql, err := r.substitute(ctx, x.query)
		if err != nil {
			return r.inner(err, x.query, x.lineno, "RETURN QUERY", "SQL statement")
		}
		return r.run(ctx, x.query, sql, x.lineno, "RETURN QUERY", "SQL statement", false, func(_ []wire.Column, vals []string, nulls []bool) error {
			row := make([]*string, len(vals))
			for i := range vals {
				if !nulls[i] {
					v := vals[i]
					row[i] = &v
				}
			}
			r.result.rows = append(r.result.rows, row)
			return nil
		})
	}
	if len(outParams(f)) > 0 {
		// RETURN NEXT without an expression: the OUT parameters' values
		r.result.rows = append(r.result.rows, r.outRow())
		return nil
	}
	expr := x.expr
	if expr == "" && x.varno >= -2 {
		n := max(x.varno, 0)
		if n < len(r.names) {
			expr = r.names[n]
		}
	}
	if v := r.vars[strings.ToLower(strings.TrimSpace(expr))]; v != nil && v.isRec && f.Ret.OID == exec.OIDRecord {
		// RETURN NEXT of a record variable: its fields are the row
		if v.rec == nil {
			return r.where(wire.Errorf(pgerr.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", expr).WithDetail("The tuple structure of a not-yet-assigned record is indeterminate."), x.lineno, "RETURN NEXT")
		}
		row := make([]*string, len(v.rec.vals))
		for i := range v.rec.vals {
			if !v.rec.nulls[i] {
				s := v.rec.vals[i]
				row[i] = &s
			}
		}
		r.result.rows = append(r.result.rows, row)
		return nil
	}
	val, null, err := r.valueAs(ctx, expr, exec.FormatType(f.Ret.OID, f.Ret.Mod), x.lineno, "RETURN NEXT")
	if err != nil {
		return err
	}
	if null {
		r.result.rows = append(r.result.rows, []*string{nil})
	} else {
		r.result.rows = append(r.result.rows, []*string{&val})
	}
	return nil
}

// outParams lists f's result parameters (OUT, INOUT, TABLE).
func outParams(f *exec.FuncDef) []exec.FuncArg {
	var outs []exec.FuncArg
	for _, a := range f.Args {
		if a.Mode == "o" || a.Mode == "b" || a.Mode == "t" {
			outs = append(outs, a)
		}
	}
	return outs
}

// outRow is the result row of the OUT parameters' current values.
func (r *doRun) outRow() []*string {
	outs := outParams(r.fn)
	row := make([]*string, len(outs))
	for i, a := range outs {
		if v := r.vars[a.Name]; v != nil && !v.null {
			s := v.val
			row[i] = &s
		}
	}
	return row
}

// functionSource is a CREATE FUNCTION statement for f, the form
// PostgreSQL's PL/pgSQL grammar compiles (the parameters become its
// first variables).
func functionSource(f *exec.FuncDef) string {
	var params, table []string
	for _, a := range f.Args {
		t := exec.FormatType(a.Type.OID, a.Type.Mod)
		name := quoteIdentIfNeeded(a.Name)
		switch a.Mode {
		case "t":
			table = append(table, name+" "+t)
			continue
		case "o":
			name = "OUT " + name
		case "b":
			name = "INOUT " + name
		}
		params = append(params, strings.TrimSpace(name+" "+t))
	}
	ret := exec.FormatType(f.Ret.OID, f.Ret.Mod)
	switch {
	case len(table) > 0:
		ret = "TABLE(" + strings.Join(table, ", ") + ")"
	case f.RetSet:
		ret = "SETOF " + ret
	}
	tag := "$pggraph$"
	for strings.Contains(f.Body, tag) {
		tag = "$pggraph" + tag[1:]
	}
	if f.Proc {
		return fmt.Sprintf("CREATE PROCEDURE %s(%s) LANGUAGE plpgsql AS %s%s%s", quoteIdentIfNeeded(f.Name), strings.Join(params, ", "), tag, f.Body, tag)
	}
	return fmt.Sprintf("CREATE FUNCTION %s(%s) RETURNS %s LANGUAGE plpgsql AS %s%s%s", quoteIdentIfNeeded(f.Name), strings.Join(params, ", "), ret, tag, f.Body, tag)
}

func quoteIdentIfNeeded(s string) string {
	if s == "" {
		return ""
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// compileFunction compiles a PL/pgSQL function's body and checks its
// RETURN statements against the declared result, as PostgreSQL's
// compiler does.
func compileFunction(f *exec.FuncDef) (*plProgram, error) {
	prog, err := compilePL(functionSource(f), f.Body, f)
	if err != nil {
		var se *sqlparse.SyntaxError
		if errors.As(err, &se) {
			code := wire.CodeSyntaxError
			if strings.HasPrefix(se.Message, "unrecognized exception condition") {
				code = pgerr.UndefinedObject
			}
			where := strings.ReplaceAll(se.Context, "\"inline_code_block\"", "\""+f.Name+"\"")
			if strings.HasPrefix(se.Message, "cannot use RETURN") || strings.HasPrefix(se.Message, "RETURN cannot have a parameter") {
				// PostgreSQL's compiler reports these with a position
				// into the statement and no CONTEXT
				code, where = pgerr.DatatypeMismatch, ""
			}
			return nil, &wire.Error{Code: code, Message: se.Message, Where: where}
		}
		return nil, err
	}
	return prog, nil
}

// checkReturns refuses RETURN forms the function's result does not allow
// (fn nil: a DO block, which returns void).
func checkReturns(list []plStmt, fn *exec.FuncDef) error {
	void := fn == nil || fn.Ret.OID == exec.OIDVoid
	setof := fn != nil && fn.RetSet
	outs := false
	if fn != nil {
		for _, a := range fn.Args {
			outs = outs || a.Mode == "o" || a.Mode == "b" || a.Mode == "t"
		}
	}
	var err error
	var walk func([]plStmt)
	walk = func(l []plStmt) {
		for _, st := range l {
			if err != nil {
				return
			}
			switch x := st.(type) {
			case *plBlock:
				walk(x.body)
				for _, h := range x.handlers {
					walk(h.body)
				}
			case *plLoop:
				walk(x.body)
			case *plForInt:
				walk(x.body)
			case *plForQuery:
				walk(x.body)
			case *plIf:
				for _, a := range x.arms {
					walk(a.body)
				}
				walk(x.els)
			case *plCase:
				for _, a := range x.arms {
					walk(a.body)
				}
				walk(x.els)
			case *plForeach:
				walk(x.body)
			case *plReturn:
				if x.lineno == 0 {
					continue // the compiler's own RETURN at the body's end
				}
				hasValue := x.expr != "" || x.varno >= 0
				switch {
				case hasValue && setof:
					err = wire.Errorf(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in function returning set").WithHint("Use RETURN NEXT or RETURN QUERY.")
				case hasValue && void:
					err = wire.Errorf(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in function returning void")
				case hasValue && outs:
					err = wire.Errorf(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in function with OUT parameters")
				case !hasValue && !void && !setof && !outs:
					err = wire.Errorf(wire.CodeSyntaxError, "missing expression at or near \";\"")
				}
			case *plReturnNext:
				switch {
				case !setof && x.query != "":
					err = wire.Errorf(pgerr.DatatypeMismatch, "cannot use RETURN QUERY in a non-SETOF function")
				case !setof:
					err = wire.Errorf(pgerr.DatatypeMismatch, "cannot use RETURN NEXT in a non-SETOF function")
				}
			}
		}
	}
	walk(list)
	return err
}

// checkFunctionBodies compiles the PL/pgSQL bodies CREATE FUNCTION
// stores, so a body PostgreSQL's compiler refuses is refused at CREATE
// (as with check_function_bodies on).
func checkFunctionBodies(changes []ddl.Change) error {
	for _, ch := range changes {
		var name string
		var m ddl.TableMeta
		switch c := ch.(type) {
		case *ddl.CreateTable:
			name, m = c.Name, c.Meta
		case *ddl.AlterTable:
			name, m = c.Name, c.Meta
		default:
			continue
		}
		fn, ok := ddl.FuncName(name)
		if !ok || m.Function == nil || m.Function.Language != "plpgsql" {
			continue
		}
		if _, err := compileFunction(ddl.ExecFunction(graph.TableEntry{}, fn, m)); err != nil {
			return err
		}
	}
	return nil
}

// triggerReturn runs a trigger function's RETURN: NEW, OLD or another
// record variable is the row, NULL skips it.
func (r *doRun) triggerReturn(ctx context.Context, x *plReturn) error {
	expr := strings.ToLower(strings.TrimSpace(x.expr))
	if expr == "" && x.varno >= 0 && x.varno < len(r.names) {
		expr = r.names[x.varno]
	}
	if v := r.vars[expr]; v != nil && v.isRec {
		if v.rec != nil {
			c := *v.rec
			c.vals, c.nulls = slices.Clone(v.rec.vals), slices.Clone(v.rec.nulls)
			r.result.rec = &c
		}
		return errDoReturn
	}
	_, null, err := r.value(ctx, x.expr, x.lineno, "RETURN")
	if err != nil {
		return err
	}
	if !null {
		return r.where(wire.Errorf(wire.CodeFeatureNotSupported, "a trigger function returning a row other than NEW, OLD or a record variable is not supported"), x.lineno, "RETURN")
	}
	return errDoReturn
}
