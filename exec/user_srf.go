package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Set-returning and record-returning user functions (docs/sql.md,
// "Functions"). In FROM, a function returning SETOF a type, TABLE(…) or
// a record (OUT parameters, or a column definition list for RETURNS
// record) is a funcScanNode whose rows are its body's result rows: a
// scalar result is one column, a record one column per field, with
// aliases and WITH ORDINALITY as for the built-in set-returning
// functions. At the top level of a select list a set-returning user
// function joins the query's lockstep SRFs (projectSetNode). The body
// runs once per call (per outer row when correlated) and its rows are
// held in memory as text, as the session hands them back.

// userRoutineInFrom reports a FROM function that is a user function
// (built-ins of the name win, as calls bind after them).
func (b *binder) userRoutineInFrom(name string) bool {
	if _, ok := funcs[name]; ok || isSetReturning(name) || builtinSRF(name) {
		return false
	}
	return b.hasUserFunction(name, false)
}

// userSRFName reports a select-list call that may be a set-returning
// user function.
func (b *binder) userSRFName(name string) bool {
	if !b.userRoutineInFrom(name) {
		return false
	}
	for _, f := range b.cat.functions() {
		if f.Name == name && !f.Proc && f.RetSet {
			return true
		}
	}
	return false
}

// bindUserFromFunction binds a user function in FROM: user is nil when
// the call is one of a function returning a single scalar (bound as a
// one-row subquery, bindScalarFromFunction). t is a row's type.
func (b *binder) bindUserFromFunction(rf *q.RangeFunction, fc *q.FuncCall, name string, sc *scope) (user *FuncDef, t Type, args []Expr, err error) {
	ua, err := b.bindUserArgs(fc, sc)
	if err != nil {
		return nil, Type{}, nil, err
	}
	f, args, ok, err := b.resolveUser(name, ua, fc.FuncVariadic, false)
	if err != nil || !ok {
		return nil, Type{}, nil, err
	}
	if err := b.cat.checkExecute(f); err != nil {
		return nil, Type{}, nil, err // function_acl.go
	}
	coldefs := rf.Coldeflist
	if items := rf.Functions[0].GetList().GetItems(); len(items) > 1 {
		coldefs = append(coldefs, items[1].GetList().GetItems()...)
	}
	t = f.ResultType()
	switch {
	case t.OID == OIDRecord && t.Mod < 0:
		if len(coldefs) == 0 {
			return nil, Type{}, nil, b.at(errf(CodeSyntaxError, "a column definition list is required for functions returning \"record\""), fc.Location)
		}
		var fields []RecordField
		for _, n := range coldefs {
			cd := n.GetColumnDef()
			if cd == nil {
				return nil, Type{}, nil, unsupported("this column definition list is not supported")
			}
			ft, err := b.resolveType(cd.TypeName)
			if err != nil {
				return nil, Type{}, nil, err
			}
			fields = append(fields, RecordField{Name: cd.Colname, Type: ft})
		}
		t = RecordType(fields)
	case len(coldefs) > 0 && t.OID == OIDRecord:
		return nil, Type{}, nil, b.at(errf(CodeSyntaxError, "a column definition list is redundant for a function with OUT parameters"), coldefLocation(coldefs))
	case len(coldefs) > 0:
		return nil, Type{}, nil, b.at(errf(CodeSyntaxError, "a column definition list is only allowed for functions returning \"record\""), coldefLocation(coldefs))
	}
	if !f.RetSet && t.OID != OIDRecord {
		return nil, Type{}, nil, nil
	}
	if b.cat.callFn == nil {
		return nil, Type{}, nil, unsupported("calling function %s() outside a session is not supported", name)
	}
	if f.Volatility == "v" {
		b.volatile = true
	}
	return f, t, args, nil
}

// bindUserTargetSRF binds a set-returning user function at the top of a
// select list (nil call: the arguments chose a function that returns
// one value, e is its call).
func (b *binder) bindUserTargetSRF(fc *q.FuncCall, name string, sc *scope) (call *srfCall, e Expr, err error) {
	ua, err := b.bindUserArgs(fc, sc)
	if err != nil {
		return nil, nil, err
	}
	f, args, _, err := b.resolveUser(name, ua, fc.FuncVariadic, false)
	if err != nil {
		return nil, nil, err
	}
	if err := b.cat.checkExecute(f); err != nil {
		return nil, nil, err // function_acl.go
	}
	if !f.RetSet {
		e, err := b.userExpr(f, args)
		return nil, e, err
	}
	t := f.ResultType()
	if t.OID == OIDRecord && t.Mod < 0 {
		return nil, nil, unsupported("calling function %s(), which returns a record, outside FROM with a column definition list is not supported", name)
	}
	if b.cat.callFn == nil {
		return nil, nil, unsupported("calling function %s() outside a session is not supported", name)
	}
	if f.Volatility == "v" {
		b.volatile = true
	}
	return &srfCall{name: name, args: args, t: t, user: f, call: b.cat.callFn}, nil, nil
}

// runUser runs a user function's body once with the constant arguments
// vals and hands its rows to flush (a STRICT function with a NULL
// argument returns no rows; a function that is not set-returning always
// one, NULL when its body returned none).
func (f *funcScanNode) runUser(ec *evalCtx, vals []*Vec, flush func(*Vec) error) error {
	texts := make([]*string, len(vals))
	skip := false
	for i, v := range vals {
		if s, ok := FormatText(v, 0, ec.loc); ok {
			texts[i] = &s
		} else {
			skip = skip || f.user.Strict
		}
	}
	var rows [][]*string
	if !skip {
		var err error
		if rows, err = f.call(ec.run.ctx, f.user, texts); err != nil {
			return err
		}
	}
	if !f.user.RetSet && len(rows) == 0 {
		rows = [][]*string{nil}
	}
	t := f.recordType()
	for start := 0; start < len(rows); start += batchSize {
		part := rows[start:min(start+batchSize, len(rows))]
		v := NewVec(t, len(part))
		for i, row := range part {
			switch {
			case t.OID == OIDRecord && row == nil:
				v.SetNull(i)
			case t.OID == OIDRecord:
				v.A[i] = newRecord(t, row)
			case len(row) == 0 || row[0] == nil:
				v.SetNull(i)
			default:
				if err := parseText(v, i, *row[0], ec.loc); err != nil {
					return err
				}
			}
		}
		if err := flush(v); err != nil {
			return err
		}
	}
	return nil
}

// coldefLocation is where a column definition list starts.
func coldefLocation(coldefs []*q.Node) int32 {
	if cd := coldefs[0].GetColumnDef(); cd != nil {
		return cd.Location
	}
	return -1
}
