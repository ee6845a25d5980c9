package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Variables of DO blocks (do.go). A variable holds its value as text in
// its type's output form; where an expression or SQL statement reads it
// (a column reference of that name, as PL/pgSQL resolves it), the text
// goes in as a typed literal — the value PL/pgSQL would pass as a
// parameter. Assignments convert to the declared type when they run, as
// PL/pgSQL's do. Records (FOR r IN query, SELECT … INTO r) keep their
// fields with the result's types.

// plValue is one variable's value.
type plValue struct {
	typ     string // declared type ("" for a record)
	val     string
	null    bool
	notNull bool
	rec     *plRecord // a record variable (nil until assigned)
	isRec   bool
	// nullOf gives a NULL record its row type: a trigger's OLD on INSERT
	// or NEW on DELETE is NULL, and its fields read as NULL (PostgreSQL
	// 11 and later), where an unassigned record's are an error
	nullOf *plRecord
}

// plRecord is a record's row: field names, types and values.
type plRecord struct {
	names, types, vals []string
	nulls              []bool
}

// literal is the value as SQL text of its type.
func (v *plValue) literal() string {
	if v.null {
		return "(NULL::" + v.typ + ")"
	}
	return "(" + sqlString(v.val) + "::" + v.typ + ")"
}

// declare initializes the outermost block's variables in order (a
// default may read the ones before it).
func (r *doRun) declare(ctx context.Context, decls []plVarDecl) error {
	for _, d := range decls {
		if rec, ok, err := r.rowTypeVariable(ctx, d); err != nil || ok {
			if err != nil {
				return err
			}
			r.vars[d.name] = &plValue{isRec: true, rec: rec}
			continue
		}
		v := &plValue{typ: d.typ, null: true, notNull: d.notNull, isRec: d.rec}
		if d.def != "" {
			val, null, err := r.valueAs(ctx, d.def, d.typ, d.line, kindInit)
			if err != nil {
				return err
			}
			v.val, v.null = val, null
		}
		if v.notNull && v.null {
			return r.where(wire.Errorf(pgerr.NullValueNotAllowed, "null value cannot be assigned to variable \"%s\" declared NOT NULL", d.name), d.line, kindInit)
		}
		r.vars[d.name] = v
	}
	return nil
}

// rowTypeVariable reads a variable declared with a table's row type
// (name table or name table%ROWTYPE): a record of the table's columns,
// all NULL until assigned, as PL/pgSQL's row variables start.
func (r *doRun) rowTypeVariable(ctx context.Context, d plVarDecl) (*plRecord, bool, error) {
	name := strings.TrimSpace(d.typ)
	if i := strings.Index(strings.ToLower(name), "%rowtype"); i > 0 && i == len(name)-len("%rowtype") {
		name = strings.TrimSpace(name[:i])
	}
	if d.rec || name == "" || strings.ContainsAny(name, " .()[]%\"") {
		return nil, false, nil
	}
	_, cat, _, err := r.s.readCatalog(ctx)
	if err != nil {
		return nil, false, err
	}
	td := cat.Table("", strings.ToLower(name))
	if td == nil {
		return nil, false, nil
	}
	if d.def != "" {
		return nil, false, r.where(plRefuse("a default for a variable of a table's row type"), d.line, kindInit)
	}
	rec := &plRecord{}
	for _, c := range td.Columns {
		rec.names = append(rec.names, c.Name)
		rec.types = append(rec.types, exec.FormatType(c.Type.OID, c.Type.Mod))
		rec.vals, rec.nulls = append(rec.vals, ""), append(rec.nulls, true)
	}
	return rec, true, nil
}

// set stores a value into a scalar variable, converting it to the
// variable's type.
func (r *doRun) set(ctx context.Context, name, val, srcType string, null bool, line int, kind string) error {
	v := r.vars[name]
	if v == nil || v.isRec {
		return r.where(plRefuse(fmt.Sprintf("assigning to %s", name)), line, kind)
	}
	if !null && srcType != v.typ {
		conv, cnull, _, err := r.eval(ctx, "SELECT ("+sqlString(val)+"::"+srcType+")::"+v.typ, "", line, kind, "")
		if err != nil {
			return err
		}
		val, null = conv, cnull
	}
	if null && v.notNull {
		return r.where(wire.Errorf(pgerr.NullValueNotAllowed, "null value cannot be assigned to variable \"%s\" declared NOT NULL", name), line, kind)
	}
	v.val, v.null = val, null
	return nil
}

func (r *doRun) assign(ctx context.Context, x *plAssign) error {
	v := r.vars[x.name]
	if x.field != "" {
		return r.assignField(ctx, x, v)
	}
	if v == nil || v.isRec {
		return r.where(plRefuse("assignment to a record"), x.lineno, "assignment")
	}
	r.assignText = x.text
	val, null, err := r.valueAs(ctx, x.expr, v.typ, x.lineno, "assignment")
	if err != nil {
		return err
	}
	return r.set(ctx, x.name, val, v.typ, null, x.lineno, "assignment")
}

// store puts one row into a target: a record takes the whole row, a
// list of variables the columns in order (missing ones NULL).
func (r *doRun) store(ctx context.Context, t plTarget, cols []wire.Column, vals []string, nulls []bool, line int, kind string) error {
	if len(t.names) == 1 {
		if v := r.vars[t.names[0]]; v != nil && v.isRec {
			rec := &plRecord{}
			for i, c := range cols {
				rec.names = append(rec.names, c.Name)
				rec.types = append(rec.types, exec.FormatType(c.TypeOID, c.TypeMod))
				if vals != nil {
					rec.vals, rec.nulls = append(rec.vals, vals[i]), append(rec.nulls, nulls[i])
				} else {
					rec.vals, rec.nulls = append(rec.vals, ""), append(rec.nulls, true)
				}
			}
			v.rec = rec
			return nil
		}
	}
	for i, name := range t.names {
		if i >= len(cols) || vals == nil {
			if err := r.set(ctx, name, "", "", true, line, kind); err != nil {
				return err
			}
			continue
		}
		if err := r.set(ctx, name, vals[i], exec.FormatType(cols[i].TypeOID, cols[i].TypeMod), nulls[i], line, kind); err != nil {
			return err
		}
	}
	return nil
}

// selectInto runs a statement … INTO target: its first row goes into the
// target (NULLs when there is none); STRICT wants exactly one row.
func (r *doRun) selectInto(ctx context.Context, x *plSQL) error {
	sql, err := r.substitute(ctx, x.sql)
	if err != nil {
		return r.inner(err, x.sql, x.lineno, "SQL statement", "SQL statement")
	}
	var (
		cols  []wire.Column
		first []string
		nulls []bool
		n     int
	)
	err = r.run(ctx, x.sql, sql, x.lineno, "SQL statement", "SQL statement", false, func(c []wire.Column, v []string, nl []bool) error {
		n++
		if n == 1 {
			cols, first, nulls = c, v, nl
		}
		if n > 1 && x.strict {
			return r.where(wire.Errorf(pgerr.TooManyRows, "query returned more than one row").
				WithHint("Make sure the query returns a single row, or use LIMIT 1."), x.lineno, "SQL statement")
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 && x.strict {
		return r.where(wire.Errorf(pgerr.NoDataFound, "query returned no rows"), x.lineno, "SQL statement")
	}
	return r.store(ctx, *x.into, cols, first, nulls, x.lineno, "SQL statement")
}

// iterate runs a loop body once; done reports EXIT (or RETURN or an
// error, in err).
func (r *doRun) iterate(ctx context.Context, body []plStmt, n *int, line int, label string) (done bool, err error) {
	if *n++; *n > maxDoIterations {
		return true, r.where(wire.Errorf(pgerr.ProgramLimitExceeded, "loop ran more than %d times", maxDoIterations), line, "loop")
	}
	switch err := r.stmts(ctx, body); err {
	case nil, errDoContinue:
		return false, nil
	case errDoExit:
		return true, nil
	default:
		if j, ok := err.(*plJump); ok && label != "" && j.label == label {
			// EXIT label / CONTINUE label naming this loop
			return j.exit, nil
		}
		return true, err
	}
}

func (r *doRun) loop(ctx context.Context, x *plLoop) error {
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if x.cond != "" {
			v, null, err := r.value(ctx, x.cond, x.lineno, "WHILE")
			if err != nil {
				return err
			}
			ok, berr := boolInput(v)
			if berr != nil && !null {
				return r.where(berr, x.lineno, "WHILE")
			}
			if null || !ok {
				return nil
			}
		}
		if done, err := r.iterate(ctx, x.body, &n, x.lineno, x.label); done {
			return err
		}
	}
}

// forInt runs FOR i IN [REVERSE] lower..upper [BY step].
func (r *doRun) forInt(ctx context.Context, x *plForInt) error {
	bound := func(expr, what string) (int64, error) {
		v, null, err := r.valueAs(ctx, expr, "integer", x.lineno, "FOR with integer loop variable")
		if err != nil {
			return 0, err
		}
		if null {
			return 0, r.where(wire.Errorf(pgerr.NullValueNotAllowed, "%s of FOR loop cannot be null", what), x.lineno, "FOR with integer loop variable")
		}
		return strconv.ParseInt(v, 10, 64)
	}
	lo, err := bound(x.lower, "lower bound")
	if err != nil {
		return err
	}
	hi, err := bound(x.upper, "upper bound")
	if err != nil {
		return err
	}
	step, err := bound(x.step, "BY value")
	if err != nil {
		return err
	}
	if step <= 0 {
		return r.where(wire.Errorf(pgerr.InvalidParameterValue, "BY value of FOR loop must be greater than zero"), x.lineno, "FOR with integer loop variable")
	}
	if x.reverse {
		step = -step
	}
	// the loop's variable hides one of the same name until it ends
	outer := *r.vars[x.name]
	defer func() { *r.vars[x.name] = outer }()
	n := 0
	r.found = false
	for i := lo; x.reverse && i >= hi || !x.reverse && i <= hi; i += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.found = true
		if err := r.set(ctx, x.name, strconv.FormatInt(i, 10), r.vars[x.name].typ, false, x.lineno, "FOR with integer loop variable"); err != nil {
			return err
		}
		if done, err := r.iterate(ctx, x.body, &n, x.lineno, x.label); done {
			return err
		}
	}
	return nil
}

// forQuery runs FOR target IN query: the body runs for each row while
// the query's result streams.
func (r *doRun) forQuery(ctx context.Context, x *plForQuery) error {
	sql, err := r.substitute(ctx, x.query)
	if err != nil {
		return r.inner(err, x.query, x.lineno, "FOR over SELECT rows", "SQL statement")
	}
	n := 0
	r.found = false
	err = r.run(ctx, x.query, sql, x.lineno, "FOR over SELECT rows", "SQL statement", false, func(cols []wire.Column, vals []string, nulls []bool) error {
		if err := r.store(ctx, x.target, cols, vals, nulls, x.lineno, "FOR over SELECT rows"); err != nil {
			return err
		}
		done, err := r.iterate(ctx, x.body, &n, x.lineno, x.label)
		if done && err == nil {
			return errDoExit
		}
		return err
	})
	r.found = n > 0
	if err == errDoExit {
		return nil
	}
	return err
}

// substitute puts the values of the variables sql reads in place of
// their names: declared variables and record fields, FOUND, and
// SQLSTATE and SQLERRM of the error the innermost running handler
// caught. Only the grammar's column references are names of variables
// (not aliases, column lists, function or table names), as in PL/pgSQL.
func (r *doRun) substitute(ctx context.Context, sql string) (string, error) {
	refs, err := sqlparse.ColumnRefs(sql)
	if err != nil {
		return "", err
	}
	var visible map[string]bool
	for i := len(refs) - 1; i >= 0; i-- {
		ref := refs[i]
		name := ref.Names[0]
		v := r.vars[name]
		if name == "tg_argv" && len(ref.Names) == 1 && r.tgArgv != nil {
			// TG_ARGV[n]: the trigger's n-th argument, from 0
			if end, idx, ok := subscriptAfter(sql, ref.End); ok {
				items := make([]string, len(r.tgArgv))
				for k, a := range r.tgArgv {
					items[k] = sqlString(a)
				}
				sql = sql[:ref.Start] + "((ARRAY[" + strings.Join(items, ", ") + "]::text[])[(" + idx + ") + 1])" + sql[end:]
				continue
			}
		}
		var lit string
		switch {
		case v != nil && v.isRec && len(ref.Names) == 2 && ref.Names[1] == "*":
			// rec.*: its fields in order
			if lit, err = v.row(name); err != nil {
				return "", err
			}
			lit = strings.TrimSuffix(strings.TrimPrefix(lit, "ROW("), ")")
			sql = sql[:ref.Start] + lit + sql[ref.End:]
			continue
		case len(ref.Names) == 2 && ref.Names[1] == "*":
			continue
		case v != nil && v.isRec && len(ref.Names) == 2:
			if lit, err = v.field(name, ref.Names[1]); err != nil {
				return "", err
			}
		case len(ref.Names) != 1:
			continue
		case v != nil && v.isRec:
			if lit, err = v.row(name); err != nil {
				return "", err
			}
		case v != nil && !v.isRec:
			lit = v.literal()
		case name == "found":
			lit = map[bool]string{true: "true", false: "false"}[r.found]
		case name == "sqlstate" && len(r.caught) > 0:
			lit = sqlString(r.caught[len(r.caught)-1].Code) + "::text"
		case name == "sqlerrm" && len(r.caught) > 0:
			lit = sqlString(r.caught[len(r.caught)-1].Message) + "::text"
		default:
			continue
		}
		if len(ref.Names) == 1 {
			// PL/pgSQL's default variable_conflict = error: a name that
			// is also a column the statement can see is ambiguous
			if visible == nil {
				if visible, err = r.visibleColumns(ctx, sql); err != nil {
					return "", err
				}
			}
			if visible[name] {
				// positioned: the error points into the statement
				return "", wire.Errorf(pgerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", name).
					WithDetail("It could refer to either a PL/pgSQL variable or a table column.").
					WithPosition(int32(utf8.RuneCountInString(sql[:ref.Start]) + 1))
			}
		}
		sql = sql[:ref.Start] + "(" + lit + ")" + sql[ref.End:]
	}
	return sql, nil
}

// subscriptAfter reads a subscript [expr] following position at in sql
// (blanks allowed before it): its expression and where it ends.
func subscriptAfter(sql string, at int) (end int, expr string, ok bool) {
	i := at
	for i < len(sql) && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r') {
		i++
	}
	if i >= len(sql) || sql[i] != '[' {
		return 0, "", false
	}
	depth := 0
	for j := i; j < len(sql); j++ {
		switch sql[j] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return j + 1, sql[i+1 : j], true
			}
		}
	}
	return 0, "", false
}

// visibleColumns are the column names of the relations sql names — a
// superset of the columns in scope where it reads a variable: the
// target of a plain INSERT is left out, its columns are in scope only
// in ON CONFLICT and RETURNING.
func (r *doRun) visibleColumns(ctx context.Context, sql string) (map[string]bool, error) {
	out := map[string]bool{}
	tree, err := sqlparse.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return out, err
	}
	n := tree.Stmts[0].Stmt
	skip := ""
	if ins := n.GetInsertStmt(); ins != nil && len(ins.ReturningList) == 0 && ins.OnConflictClause == nil {
		skip = ins.Relation.GetRelname()
	}
	_, cat, _, err := r.s.readCatalog(ctx)
	if err != nil {
		return nil, err
	}
	for _, rv := range rangeVars(n) {
		if rv.Relname == skip {
			skip = ""
			continue
		}
		if td := cat.Table(rv.Schemaname, rv.Relname); td != nil {
			for _, c := range td.Columns {
				out[c.Name] = true
			}
		}
	}
	return out, nil
}

// row is the whole record as a row value.
func (v *plValue) row(rec string) (string, error) {
	if v.rec == nil && v.nullOf != nil {
		return "NULL", nil
	}
	if v.rec == nil {
		return "", wire.Errorf(pgerr.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", rec).
			WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
	}
	parts := make([]string, len(v.rec.names))
	for j := range v.rec.names {
		parts[j] = (&plValue{typ: v.rec.types[j], val: v.rec.vals[j], null: v.rec.nulls[j]}).literal()
	}
	return "ROW(" + strings.Join(parts, ", ") + ")", nil
}

// field is record field f as SQL text of its type.
func (v *plValue) field(rec, f string) (string, error) {
	if v.rec == nil && v.nullOf != nil {
		for j, name := range v.nullOf.names {
			if name == f {
				return (&plValue{typ: v.nullOf.types[j], null: true}).literal(), nil
			}
		}
		return "", wire.Errorf(pgerr.UndefinedColumn, "record \"%s\" has no field \"%s\"", rec, f)
	}
	if v.rec == nil {
		return "", wire.Errorf(pgerr.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", rec).
			WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
	}
	for j, name := range v.rec.names {
		if name == f {
			return (&plValue{typ: v.rec.types[j], val: v.rec.vals[j], null: v.rec.nulls[j]}).literal(), nil
		}
	}
	return "", wire.Errorf(pgerr.UndefinedColumn, "record \"%s\" has no field \"%s\"", rec, f)
}

// getDiag runs GET DIAGNOSTICS (ROW_COUNT) and GET STACKED DIAGNOSTICS
// (the caught error's SQLSTATE, message, detail and hint).
func (r *doRun) getDiag(ctx context.Context, x *plGetDiag) error {
	for _, it := range x.items {
		if it.target < 0 || it.target >= len(r.names) || r.vars[r.names[it.target]] == nil {
			return r.where(plRefuse("GET DIAGNOSTICS into this target"), x.lineno, "GET DIAGNOSTICS")
		}
		var val string
		switch {
		case it.kind == "ROW_COUNT":
			if err := r.set(ctx, r.names[it.target], strconv.FormatInt(r.rowCount, 10), "bigint", false, x.lineno, "GET DIAGNOSTICS"); err != nil {
				return err
			}
			continue
		case len(r.caught) == 0:
			return r.where(wire.Errorf(pgerr.StackedDiagnosticsAccessedWithoutActiveHandler, "GET STACKED DIAGNOSTICS cannot be used outside an exception handler"), x.lineno, "GET STACKED DIAGNOSTICS")
		case it.kind == "RETURNED_SQLSTATE":
			val = r.caught[len(r.caught)-1].Code
		case it.kind == "MESSAGE_TEXT":
			val = r.caught[len(r.caught)-1].Message
		case it.kind == "PG_EXCEPTION_DETAIL":
			val = r.caught[len(r.caught)-1].Detail
		case it.kind == "PG_EXCEPTION_HINT":
			val = r.caught[len(r.caught)-1].Hint
		}
		if err := r.set(ctx, r.names[it.target], val, "text", false, x.lineno, "GET STACKED DIAGNOSTICS"); err != nil {
			return err
		}
	}
	return nil
}

// assignField runs rec.field := expr: the value converted to the field's
// type.
func (r *doRun) assignField(ctx context.Context, x *plAssign, v *plValue) error {
	if v == nil || !v.isRec {
		return r.where(plRefuse("assignment to a field of a non-record variable"), x.lineno, "assignment")
	}
	if v.rec == nil {
		return r.where(wire.Errorf(pgerr.ObjectNotInPrerequisiteState, "record \"%s\" is not assigned yet", x.name).
			WithDetail("The tuple structure of a not-yet-assigned record is indeterminate."), x.lineno, "assignment")
	}
	j := -1
	for k, n := range v.rec.names {
		if n == x.field {
			j = k
		}
	}
	if j < 0 {
		return r.where(wire.Errorf(pgerr.UndefinedColumn, "record \"%s\" has no field \"%s\"", x.name, x.field), x.lineno, "assignment")
	}
	r.assignText = x.text
	val, null, err := r.valueAs(ctx, x.expr, v.rec.types[j], x.lineno, "assignment")
	if err != nil {
		return err
	}
	v.rec.vals[j], v.rec.nulls[j] = val, null
	return nil
}
