package planner

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// PL/pgSQL control statements beyond IF and the loops of do_vars.go
// (docs/sql.md, "DO blocks"): CASE (simple and searched), FOREACH over an
// array, EXIT/CONTINUE naming a labeled loop or block, and EXECUTE with
// INTO and USING.

// plCase is CASE [expr] WHEN … THEN … [ELSE …] END CASE. A simple CASE
// compares through a hidden variable the compiler names (its WHEN
// expressions read it), holding expr's value.
type plCase struct {
	lineno  int
	expr    string // the simple CASE's expression ("" for a searched CASE)
	varName string // the hidden variable expr's value goes to
	arms    []plArm
	hasElse bool
	els     []plStmt
}

// plForeach is FOREACH var IN ARRAY expr LOOP.
type plForeach struct {
	lineno int
	label  string
	name   string
	expr   string
	body   []plStmt
}

// plJump is EXIT label or CONTINUE label: it travels up to the loop (or,
// for EXIT, the block) of that label.
type plJump struct {
	exit  bool
	label string
}

func (j *plJump) Error() string {
	if j.exit {
		return "EXIT " + j.label
	}
	return "CONTINUE " + j.label
}

// plCall is CALL proc(…) inside a body.
type plCall struct {
	lineno int
	sql    string
}

func (s *plCall) line() int    { return s.lineno }
func (s *plCase) line() int    { return s.lineno }
func (s *plForeach) line() int { return s.lineno }

// plControl reads CASE and FOREACH from the compiler's output.
func plControl(kind string, raw json.RawMessage) (plStmt, error) {
	var x struct {
		Lineno int             `json:"lineno"`
		Label  string          `json:"label"`
		TExpr  json.RawMessage `json:"t_expr"`
		TVarno int             `json:"t_varno"`
		Whens  []struct {
			When struct {
				Expr  json.RawMessage              `json:"expr"`
				Stmts []map[string]json.RawMessage `json:"stmts"`
			} `json:"PLpgSQL_case_when"`
		} `json:"case_when_list"`
		HaveElse bool                         `json:"have_else"`
		Else     []map[string]json.RawMessage `json:"else_stmts"`
		Varno    int                          `json:"varno"`
		Slice    int                          `json:"slice"`
		Expr     json.RawMessage              `json:"expr"`
		Body     []map[string]json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, err
	}
	var err error
	if kind == "PLpgSQL_stmt_foreach_a" {
		if x.Slice != 0 {
			return nil, plRefuse("FOREACH … SLICE")
		}
		f := &plForeach{lineno: x.Lineno, label: x.Label, name: strconv.Itoa(x.Varno)}
		if f.expr, err = plExpr(x.Expr); err != nil {
			return nil, err
		}
		f.body, err = plStmts(x.Body)
		return f, err
	}
	c := &plCase{lineno: x.Lineno, hasElse: x.HaveElse}
	if x.TExpr != nil {
		if c.expr, err = plExpr(x.TExpr); err != nil {
			return nil, err
		}
		c.varName = strconv.Itoa(x.TVarno) // a datum number until resolveControlNames
	}
	for _, w := range x.Whens {
		cond, err := plExpr(w.When.Expr)
		if err != nil {
			return nil, err
		}
		body, err := plStmts(w.When.Stmts)
		if err != nil {
			return nil, err
		}
		c.arms = append(c.arms, plArm{cond: cond, body: body})
	}
	c.els, err = plStmts(x.Else)
	return c, err
}

// resolveControlNames turns the datum numbers CASE and FOREACH name
// their variables by into the variables' names.
func resolveControlNames(b *plBlock, names []string) {
	name := func(s string) string {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < len(names) {
			return names[n]
		}
		return s
	}
	walkPL([]plStmt{b}, func(st plStmt) {
		switch x := st.(type) {
		case *plCase:
			if x.expr != "" {
				x.varName = name(x.varName)
			}
		case *plForeach:
			x.name = name(x.name)
		}
	})
}

// caseStmt runs CASE: the first WHEN whose condition holds runs, else
// ELSE; with neither, PostgreSQL's case_not_found.
func (r *doRun) caseStmt(ctx context.Context, x *plCase) error {
	if x.expr != "" {
		val, null, typ, err := r.eval(ctx, "SELECT ("+x.expr+"\n)", x.expr, x.lineno, "CASE", "SQL expression")
		if err != nil {
			return err
		}
		if typ == "unknown" || typ == "" {
			typ = "text"
		}
		// the hidden variable takes the expression's own type
		r.vars[x.varName] = &plValue{typ: typ, val: val, null: null}
	}
	for _, arm := range x.arms {
		v, null, err := r.value(ctx, arm.cond, x.lineno, "CASE")
		if err != nil {
			return err
		}
		ok, err := boolInput(v)
		if err != nil && !null {
			return r.where(err, x.lineno, "CASE")
		}
		if ok && !null {
			return r.stmts(ctx, arm.body)
		}
	}
	if !x.hasElse {
		return r.where(wire.Errorf(pgerr.CaseNotFound, "case not found").WithHint("CASE statement is missing ELSE part."), x.lineno, "CASE")
	}
	return r.stmts(ctx, x.els)
}

// foreach runs FOREACH var IN ARRAY expr: the body once per element, in
// storage order (every dimension's elements, as PostgreSQL without
// SLICE).
func (r *doRun) foreach(ctx context.Context, x *plForeach) error {
	const kind = "FOREACH over array"
	val, null, typ, err := r.eval(ctx, "SELECT ("+x.expr+"\n)", x.expr, x.lineno, kind, "SQL expression")
	if err != nil {
		return err
	}
	if null {
		return r.where(wire.Errorf(pgerr.NullValueNotAllowed, "FOREACH expression must not be null"), x.lineno, kind)
	}
	if !strings.HasSuffix(typ, "[]") {
		return r.where(wire.Errorf(pgerr.DatatypeMismatch, "FOREACH expression must yield an array, not type %s", typ), x.lineno, kind)
	}
	elem := strings.TrimSuffix(typ, "[]")
	var items []*string
	q := "SELECT x FROM unnest(" + sqlString(val) + "::" + typ + ") x"
	if err := r.run(ctx, q, q, x.lineno, kind, "SQL statement", false, func(_ []wire.Column, vals []string, nulls []bool) error {
		if nulls[0] {
			items = append(items, nil)
		} else {
			v := vals[0]
			items = append(items, &v)
		}
		return nil
	}); err != nil {
		return err
	}
	if r.vars[x.name] == nil {
		return r.where(plRefuse("FOREACH into this target"), x.lineno, kind)
	}
	n := 0
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, isNull := "", it == nil
		if it != nil {
			v = *it
		}
		if err := r.set(ctx, x.name, v, elem, isNull, x.lineno, kind); err != nil {
			return err
		}
		if done, err := r.iterate(ctx, x.body, &n, x.lineno, x.label); done {
			return err
		}
	}
	return nil
}

// execute runs EXECUTE: the string's statement, with USING's values in
// place of $1, $2, … (typed literals of the values' types), its first
// row INTO the target (STRICT: exactly one).
func (r *doRun) execute(ctx context.Context, x *plExecute) error {
	const kind = "EXECUTE"
	v, null, err := r.value(ctx, x.expr, x.lineno, kind)
	if err != nil {
		return err
	}
	if null {
		return r.where(wire.Errorf(pgerr.NullValueNotAllowed, "query string argument of EXECUTE is null"), x.lineno, kind)
	}
	sql := v
	if len(x.params) > 0 {
		vals := make([]plValue, len(x.params))
		for i, p := range x.params {
			val, null, typ, err := r.eval(ctx, "SELECT ("+p+"\n)", p, x.lineno, kind, "SQL expression")
			if err != nil {
				return err
			}
			if typ == "unknown" || typ == "" {
				typ = "text"
			}
			vals[i] = plValue{typ: typ, val: val, null: null}
		}
		refs, err := sqlparse.ParamRefs(sql)
		if err != nil {
			return r.inner(err, v, x.lineno, kind, "SQL statement")
		}
		for i := len(refs) - 1; i >= 0; i-- {
			p := refs[i]
			if p.N < 1 || p.N > len(vals) {
				return r.where(wire.Errorf(pgerr.UndefinedParameter, "there is no parameter $%d", p.N), x.lineno, kind)
			}
			sql = sql[:p.Start] + vals[p.N-1].literal() + sql[p.End:]
		}
	}
	if x.into == nil {
		return r.run(ctx, v, sql, x.lineno, kind, "SQL statement", true, nil)
	}
	var (
		cols  []wire.Column
		first []string
		nulls []bool
		n     int
	)
	err = r.run(ctx, v, sql, x.lineno, kind, "SQL statement", false, func(c []wire.Column, vals []string, nl []bool) error {
		n++
		if n == 1 {
			cols, first, nulls = c, vals, nl
		}
		if n > 1 && x.strict {
			return r.where(wire.Errorf(pgerr.TooManyRows, "query returned more than one row"), x.lineno, kind)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 && x.strict {
		return r.where(wire.Errorf(pgerr.NoDataFound, "query returned no rows"), x.lineno, kind)
	}
	if cols == nil && n == 0 {
		// no row: the target's variables become NULL
		return r.store(ctx, *x.into, nil, nil, nil, x.lineno, kind)
	}
	return r.store(ctx, *x.into, cols, first, nulls, x.lineno, kind)
}

// call runs CALL inside a body: the procedure runs in the same
// transaction. Its INOUT parameters' values would be assigned back to
// the variables passed for them; that form is refused.
func (r *doRun) call(ctx context.Context, x *plCall) error {
	sql, err := r.substitute(ctx, x.sql)
	if err != nil {
		return r.inner(err, x.sql, x.lineno, "CALL", "SQL statement")
	}
	return r.run(ctx, x.sql, sql, x.lineno, "CALL", "SQL statement", false, func([]wire.Column, []string, []bool) error {
		return r.where(plRefuse("CALL of a procedure with INOUT parameters"), x.lineno, "CALL")
	})
}
