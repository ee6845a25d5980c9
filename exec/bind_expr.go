package exec

import (
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// bindExprCtx binds an expression in a clause; clause names the context
// for "aggregate functions are not allowed in ..." errors ("" = allowed).
func (b *binder) bindExprCtx(n *q.Node, sc *scope, clause string) (Expr, error) {
	saved := b.aggLevel
	b.aggLevel = clause
	defer func() { b.aggLevel = saved }()
	return b.bindExpr(n, sc)
}

func (b *binder) bindExpr(n *q.Node, sc *scope) (Expr, error) {
	if n == nil {
		return nil, errf(CodeInternalError, "missing expression")
	}
	switch x := n.GetNode().(type) {
	case *q.Node_ColumnRef:
		e, err := b.bindColumnRef(x.ColumnRef, sc)
		return e, b.at(err, x.ColumnRef.Location)
	case *q.Node_AConst:
		e, err := bindConst(x.AConst)
		if c, ok := e.(*constExpr); ok && x.AConst.Location >= 0 {
			c.loc = x.AConst.Location + 1
		}
		if c, ok := e.(*constExpr); ok && b.trace != nil && (c.t.OID == OIDUnknown || c.t.Kind() == KInt || c.t.OID == OIDNumeric) {
			c.src = x.AConst
		}
		return e, err
	case *q.Node_ParamRef:
		if b.noParams {
			return nil, b.at(errf(CodeUndefinedParameter, "there is no parameter $%d", x.ParamRef.Number), x.ParamRef.Location)
		}
		return b.bindParam(int(x.ParamRef.Number))
	case *q.Node_TypeCast:
		return b.bindTypeCast(x.TypeCast, sc)
	case *q.Node_AExpr:
		return b.bindAExpr(x.AExpr, sc)
	case *q.Node_BoolExpr:
		return b.bindBoolExpr(x.BoolExpr, sc)
	case *q.Node_NullTest:
		if row := x.NullTest.Arg.GetRowExpr(); row != nil {
			// a row IS NULL when every field is, IS NOT NULL when none is
			fields, err := b.bindList(row.Args, sc)
			if err != nil {
				return nil, err
			}
			not := x.NullTest.Nulltesttype == q.NullTestType_IS_NOT_NULL
			parts := make([]Expr, len(fields))
			for i, f := range fields {
				parts[i] = &nullTest{arg: f, not: not}
			}
			return &boolExpr{op: "AND", args: parts}, nil
		}
		arg, err := b.bindExpr(x.NullTest.Arg, sc)
		if err != nil {
			return nil, err
		}
		return &nullTest{arg: arg, not: x.NullTest.Nulltesttype == q.NullTestType_IS_NOT_NULL}, nil
	case *q.Node_BooleanTest:
		arg, err := b.bindExpr(x.BooleanTest.Arg, sc)
		if err != nil {
			return nil, err
		}
		if arg, err = b.coerceBool(arg, "IS TRUE"); err != nil {
			return nil, err
		}
		bt := &boolTest{arg: arg}
		switch x.BooleanTest.Booltesttype {
		case q.BoolTestType_IS_TRUE:
			bt.want = 1
		case q.BoolTestType_IS_NOT_TRUE:
			bt.want, bt.not = 1, true
		case q.BoolTestType_IS_FALSE:
			bt.want = 0
		case q.BoolTestType_IS_NOT_FALSE:
			bt.want, bt.not = 0, true
		case q.BoolTestType_IS_UNKNOWN:
			bt.want = -1
		case q.BoolTestType_IS_NOT_UNKNOWN:
			bt.want, bt.not = -1, true
		}
		return bt, nil
	case *q.Node_FuncCall:
		e, err := b.bindFuncCall(x.FuncCall, sc)
		if err != nil && Code(err) == CodeUndefinedFunction {
			err = b.at(err, x.FuncCall.Location)
		}
		return e, err
	case *q.Node_CaseExpr:
		return b.bindCase(x.CaseExpr, sc)
	case *q.Node_CoalesceExpr:
		args, err := b.bindList(x.CoalesceExpr.Args, sc)
		if err != nil {
			return nil, err
		}
		t, err := b.commonTypeCoerce(args, "COALESCE")
		if err != nil {
			return nil, err
		}
		return &coalesceExpr{t: t, args: args}, nil
	case *q.Node_MinMaxExpr:
		args, err := b.bindList(x.MinMaxExpr.Args, sc)
		if err != nil {
			return nil, err
		}
		name := "GREATEST"
		if x.MinMaxExpr.Op == q.MinMaxOp_IS_LEAST {
			name = "LEAST"
		}
		t, err := b.commonTypeCoerce(args, name)
		if err != nil {
			return nil, err
		}
		if IsEnumOID(t.OID) {
			// its kernel would order the labels as text (enums.go)
			return nil, unsupported("%s of an enum type is not supported", name)
		}
		return &opExpr{name: strings.ToLower(name), t: t, args: args, k: minMaxKernel(name == "GREATEST")}, nil
	case *q.Node_SubLink:
		return b.bindSubLink(x.SubLink, sc)
	case *q.Node_SqlvalueFunction:
		return b.bindSQLValueFunction(x.SqlvalueFunction)
	case *q.Node_AArrayExpr:
		return b.bindArrayExpr(x.AArrayExpr, sc, Type{})
	case *q.Node_AIndirection:
		return b.bindIndirection(x.AIndirection, sc)
	case *q.Node_CollateClause:
		arg, err := b.bindExpr(x.CollateClause.Arg, sc)
		if err != nil {
			return nil, err
		}
		name := ""
		for _, f := range x.CollateClause.Collname {
			name = f.GetString_().Sval
		}
		if name != "C" && name != "POSIX" && name != "default" {
			return nil, unsupported("collation \"%s\" is not supported (only \"C\")", name)
		}
		return arg, nil
	case *q.Node_RowExpr:
		return b.bindRowValue(x.RowExpr.Args, sc)
	case *q.Node_GroupingFunc:
		return b.bindGroupingFunc(x.GroupingFunc, sc)
	case *q.Node_List:
		return nil, unsupported("row comparisons are not supported")
	}
	return nil, unsupported("expression type %s is not supported", nodeName(n))
}

func (b *binder) bindList(ns []*q.Node, sc *scope) ([]Expr, error) {
	out := make([]Expr, len(ns))
	for i, n := range ns {
		e, err := b.bindExpr(n, sc)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func (b *binder) bindColumnRef(cr *q.ColumnRef, sc *scope) (Expr, error) {
	var parts []string
	for _, f := range cr.Fields {
		if f.GetAStar() != nil {
			return nil, unsupported("* is only supported at the top level of a select list")
		}
		parts = append(parts, f.GetString_().Sval)
	}
	table, name := "", parts[len(parts)-1]
	switch len(parts) {
	case 1:
	case 2:
		table = parts[0]
	case 3:
		table = parts[1]
	default:
		return nil, errf(CodeSyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(parts, "."))
	}
	c, level, err := sc.resolve(table, name)
	if err == nil {
		c.markUsed()
		if b.trace != nil {
			b.trace.column(cr, c, sc, table == "")
		}
	}
	if err != nil {
		if Code(err) == CodeUndefinedColumn && table == "" && len(parts) == 1 {
			// a whole-row reference to a table alias
			if sc.hasAlias(name) {
				if r, rerr := b.wholeRowRef(name, sc); rerr != nil || r != nil {
					return r, rerr
				}
				return nil, unsupported("whole-row references are not supported")
			}
		}
		return nil, err
	}
	if level == 0 {
		return &colRef{idx: c.idx, t: c.t, name: name}, nil
	}
	return &outerRef{level: level, idx: c.idx, t: c.t}, nil
}

// bindConst binds a literal: integers are int4/int8/numeric by size,
// decimals numeric, strings unknown (typed by context).
func bindConst(c *q.A_Const) (Expr, error) {
	if c.Isnull {
		return constNull(TUnknown), nil
	}
	switch v := c.Val.(type) {
	case *q.A_Const_Ival:
		vec := NewVec(TInt4, 1)
		vec.I[0] = int64(v.Ival.Ival)
		return newConst(vec), nil
	case *q.A_Const_Fval:
		s := v.Fval.Fval
		if n, err := parseInt(s, TInt8); err == nil && !strings.ContainsAny(s, ".eE") {
			t := TInt8
			if n >= -2147483648 && n <= 2147483647 {
				t = TInt4
			}
			vec := NewVec(t, 1)
			vec.I[0] = n
			return newConst(vec), nil
		}
		d, err := parseNumeric(s)
		if err != nil {
			return nil, err
		}
		vec := NewVec(TNumeric, 1)
		vec.D[0] = d
		return newConst(vec), nil
	case *q.A_Const_Sval:
		vec := NewVec(TUnknown, 1)
		vec.S[0] = v.Sval.Sval
		return newConst(vec), nil
	case *q.A_Const_Bsval:
		return nil, unsupported("bit string literals are not supported")
	case *q.A_Const_Boolval:
		vec := NewVec(TBool, 1)
		vec.B[0] = v.Boolval.Boolval
		return newConst(vec), nil
	}
	return nil, unsupported("literal is not supported")
}

func (b *binder) bindParam(n int) (Expr, error) {
	if n < 1 || n > 65535 {
		return nil, errf(CodeUndefinedParameter, "there is no parameter $%d", n)
	}
	for len(b.params) < n {
		t := TUnknown
		b.params = append(b.params, &t)
	}
	return &paramExpr{n: n, slot: b.params[n-1]}, nil
}

// resolveType turns a TypeName into a Type.
func (b *binder) resolveType(tn *q.TypeName) (Type, error) {
	var names []string
	for _, n := range tn.Names {
		names = append(names, n.GetString_().Sval)
	}
	if tn.PctType {
		return Type{}, unsupported("%%TYPE is not supported")
	}
	name := names[len(names)-1]
	if len(names) == 2 {
		if err := b.qualifiedDenied(names[0]); err != nil {
			return Type{}, err
		}
	}
	if len(names) == 2 && names[0] != "pg_catalog" && names[0] != "public" {
		return Type{}, errf(CodeUndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
	}
	oid, ok := typeNames[name]
	if !ok && (len(names) == 2 || !b.publicHidden()) { // enums live in public
		if e := b.cat.enumByName(name); e != nil {
			oid, ok = e.OID, true
		} else if e := b.cat.enumByName(strings.TrimPrefix(name, "_")); e != nil && strings.HasPrefix(name, "_") {
			oid, ok = e.ArrayOID(), true
		} else if d := b.cat.domainByName(name); d != nil {
			oid, ok = d.OID, true
		} else if d := b.cat.domainByName(strings.TrimPrefix(name, "_")); d != nil && strings.HasPrefix(name, "_") {
			oid, ok = d.ArrayOID(), true
		}
	}
	if !ok {
		if strings.HasPrefix(name, "_") {
			if e, ok2 := typeNames[name[1:]]; ok2 {
				oid = info(e).array
				ok = oid != 0
			}
		}
	}
	if !ok {
		if knownPostgresType(strings.TrimPrefix(name, "_")) {
			return Type{}, unsupported("type %s is not supported", name)
		}
		return Type{}, errf(CodeUndefinedObject, "type \"%s\" does not exist", name)
	}
	t := Type{OID: oid, Mod: -1}
	if len(tn.Typmods) > 0 {
		var mods []int64
		for _, m := range tn.Typmods {
			c := m.GetAConst()
			if c == nil {
				return Type{}, errf(CodeSyntaxError, "type modifiers must be simple constants or identifiers")
			}
			iv, ok := c.Val.(*q.A_Const_Ival)
			if !ok {
				return Type{}, errf(CodeSyntaxError, "type modifiers must be simple constants or identifiers")
			}
			mods = append(mods, int64(iv.Ival.Ival))
		}
		switch oid {
		case OIDNumeric:
			p, s := mods[0], int64(0)
			if len(mods) > 1 {
				s = mods[1]
			}
			if p < 1 || p > 1000 {
				return Type{}, errf(CodeInvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p)
			}
			if s < 0 || s > p {
				return Type{}, errf(CodeInvalidParameterValue, "NUMERIC scale %d must be between 0 and precision %d", s, p)
			}
			t.Mod = TypeModNumeric(int(p), int(s))
		case OIDVarchar, OIDBpchar:
			if mods[0] < 1 {
				return Type{}, errf(CodeInvalidParameterValue, "length for type %s must be at least 1", name)
			}
			t.Mod = int32(mods[0]) + 4
		case OIDTimestamp, OIDTimestamptz, OIDTime:
			t.Mod = int32(min(mods[0], 6))
		case OIDInterval:
			// interval field restrictions are accepted and ignored only when
			// they do not change the value: reject to stay honest
			return Type{}, unsupported("interval type modifiers are not supported")
		case OIDFloat8:
			if mods[0] <= 24 {
				t = TFloat4
			}
		case OIDVector:
			m, err := vectorTypmod(mods)
			if err != nil {
				return Type{}, err
			}
			t.Mod = m
		default:
			return Type{}, unsupported("type modifier on %s is not supported", name)
		}
	} else if oid == OIDBpchar && name != "bpchar" {
		t.Mod = 5 // char without length is char(1)
	}
	if len(tn.ArrayBounds) > 0 {
		at, ok := ArrayOf(t)
		if !ok {
			return Type{}, unsupported("arrays of %s are not supported", t)
		}
		t = at
	}
	return t, nil
}

func (b *binder) bindTypeCast(tc *q.TypeCast, sc *scope) (Expr, error) {
	if isIntervalTypmodCast(tc.TypeName) {
		return b.bindIntervalTypmodCast(tc, sc)
	}
	t, err := b.resolveType(tc.TypeName)
	if err != nil {
		if c := Code(err); c == pgerr.InsufficientPrivilege || c == CodeUndefinedObject {
			err = b.at(err, tc.TypeName.Location) // the type's name, as PostgreSQL points
		}
		return nil, err
	}
	if ae := tc.Arg.GetAArrayExpr(); ae != nil && t.IsArray() {
		return b.bindArrayExpr(ae, sc, t)
	}
	arg, err := b.bindExpr(tc.Arg, sc)
	if err != nil {
		return nil, err
	}
	if isRegNameType(t) {
		if c, ok := arg.(*constExpr); ok && arg.Type().OID == OIDUnknown && !c.isNull() && (t.OID == OIDRegclass || t.OID == OIDRegtype) {
			// PostgreSQL looks the literal up while analyzing the
			// statement: a missing or refused name points at it
			if _, err := b.cat.regLookup(t.OID, c.val.S[0]); err != nil {
				if c2 := Code(err); c2 == CodeUndefinedTable || c2 == CodeUndefinedObject || c2 == pgerr.InsufficientPrivilege {
					return nil, b.at(err, c.loc-1)
				}
			}
		}
		return b.regCast(arg, t)
	}
	return b.coerce(arg, t, castExplicit, "")
}

// coerce converts e to type t under context cc (binding-time rules).
func (b *binder) coerce(e Expr, t Type, cc castContext, what string) (Expr, error) {
	if IsEnumOID(t.OID) && e.Type().OID != t.OID {
		return b.coerceToEnum(e, t, cc, what) // enums.go
	}
	if IsDomainOID(t.OID) {
		return coerceToDomainFn(b, e, t, cc, what) // domains.go
	}
	return b.coerceBuiltin(e, t, cc, what)
}

// coerceBuiltin is coerce for every type but the enums.
func (b *binder) coerceBuiltin(e Expr, t Type, cc castContext, what string) (Expr, error) {
	from := e.Type()
	if from.OID == t.OID && (t.Mod < 0 || from.Mod == t.Mod) {
		return e, nil
	}
	if p, ok := e.(*paramExpr); ok && from.OID == OIDUnknown {
		p.setType(Type{OID: t.OID, Mod: -1})
		if t.Mod >= 0 {
			return &castExpr{arg: p, t: t, explicit: cc == castExplicit}, nil
		}
		return p, nil
	}
	if from.OID == OIDUnknown && isRegNameType(t) {
		r, err := b.regCast(e, t) // an object name, looked up ('person' as a regclass argument)
		if c, ok := e.(*constExpr); ok && err != nil {
			err = b.at(err, c.loc-1)
		}
		return r, err
	}
	if c, ok := e.(*constExpr); ok && from.OID == OIDUnknown {
		if b.trace != nil && c.src != nil {
			b.trace.consts[c.src] = t
		}
		out := NewVec(t, 1)
		if c.isNull() {
			out.SetNull(0)
			return newConst(out), nil
		}
		if (t.OID == OIDVarchar || t.OID == OIDBpchar) && cc == castExplicit {
			s, err := fitChar(c.val.S[0], t, true)
			if err != nil {
				return nil, err
			}
			out.S[0] = s
		} else if err := parseTextStyle(out, 0, c.val.S[0], b.cat.loc, b.cat.style); err != nil {
			return nil, b.at(err, c.loc-1)
		}
		if b.trace != nil && c.src != nil && !t.isTemporal() && t.OID != OIDVarchar && t.OID != OIDBpchar {
			// PostgreSQL keeps (and prints) the constant, in its type's
			// output form: '{"a": 1}'::jsonb
			if s, ok := FormatText(out, 0, b.cat.loc); ok {
				b.trace.text[c.src] = s
			}
		}
		k := newConst(out)
		if t.OID == OIDTimestamptz || t.OID == OIDTimestamp || t.OID == OIDDate {
			// time-zone dependent input is re-read at execution
			return &castExpr{arg: e, t: t, explicit: cc == castExplicit}, nil
		}
		return k, nil
	}
	if from.OID == OIDUnknown {
		return &castExpr{arg: e, t: t, explicit: cc == castExplicit}, nil
	}
	if t.OID == OIDRegclass && (from.OID == OIDText || from.OID == OIDVarchar) {
		return b.regCast(e, t) // a relation name, looked up (pg_cast's text → regclass)
	}
	if !canCast(from, t, cc) {
		if cc == castExplicit {
			return nil, errf(CodeCannotCoerce, "cannot cast type %s to %s", from, t)
		}
		if what != "" {
			return nil, errf(CodeDatatypeMismatch, "%s must be type %s, not type %s", what, t, from)
		}
		return nil, errf(CodeDatatypeMismatch, "column is of type %s but expression is of type %s", t, from)
	}
	if cc != castImplicit {
		// implicit casts are checked by the operator that needs them
		// (checkOperatorExecute)
		if err := b.cat.checkCastExecute(from, t); err != nil { // builtin_function_acl.go
			return nil, err
		}
	}
	if c, ok := e.(*constExpr); ok && !(t.isTemporal() || from.isTemporal()) {
		if b.trace != nil && c.src != nil && (t.OID == OIDNumeric || t.OID == OIDFloat4 || t.OID == OIDFloat8) {
			// a number PostgreSQL converts to the other operand's type
			// (there is no cross-type operator): it prints 2::numeric
			b.trace.consts[c.src] = t
		}
		out := NewVec(t, 1)
		if c.isNull() {
			out.SetNull(0)
			return newConst(out), nil
		}
		if err := castRows(&evalCtx{loc: b.cat.loc, style: b.cat.style}, c.val, out, []int32{0}, cc == castExplicit); err != nil {
			return nil, err
		}
		k := newConst(out)
		return &foldedCast{constExpr: k, orig: &castExpr{arg: e, t: t, explicit: cc == castExplicit}}, nil
	}
	return &castExpr{arg: e, t: t, explicit: cc == castExplicit}, nil
}

// foldedCast is a constant-folded cast that still prints like the cast (so
// GROUP BY / ORDER BY matching sees the same key).
type foldedCast struct {
	*constExpr
	orig *castExpr
}

func (f *foldedCast) String() string { return f.orig.String() }

func (b *binder) coerceBool(e Expr, clause string) (Expr, error) {
	if e.Type().OID == OIDBool {
		return e, nil
	}
	if e.Type().OID == OIDUnknown {
		return b.coerce(e, TBool, castImplicit, "")
	}
	return nil, errf(CodeDatatypeMismatch, "argument of %s must be type boolean, not type %s", clause, e.Type())
}

// commonType is select_common_type: unknowns defer to the first known
// type; within a category the preferred or more general type wins.
func (b *binder) commonType(es []Expr, ctx string) (Type, error) {
	var cand Type
	have := false
	sameMod := true
	for _, e := range es {
		t := e.Type()
		if t.OID == OIDUnknown {
			continue
		}
		if !have {
			cand, have = t, true
			continue
		}
		if t.OID != cand.OID || t.Mod != cand.Mod {
			sameMod = false
		}
		if t.OID == cand.OID {
			continue
		}
		if t.category() != cand.category() {
			return Type{}, errf(CodeDatatypeMismatch, "%s types %s and %s cannot be matched", ctx, cand, t)
		}
		if !cand.preferred() && canCast(cand, t, castImplicit) && !canCast(t, cand, castImplicit) {
			cand = t
		}
	}
	if !have {
		return TText, nil
	}
	if !sameMod {
		cand.Mod = -1
	}
	return cand, nil
}

func (b *binder) commonTypeCoerce(es []Expr, ctx string) (Type, error) {
	t, err := b.commonType(es, ctx)
	if err != nil {
		return Type{}, err
	}
	for i := range es {
		if es[i], err = b.coerce(es[i], t, castImplicit, ""); err != nil {
			return Type{}, err
		}
	}
	return t, nil
}

func (b *binder) bindBoolExpr(x *q.BoolExpr, sc *scope) (Expr, error) {
	args, err := b.bindList(x.Args, sc)
	if err != nil {
		return nil, err
	}
	op := map[q.BoolExprType]string{q.BoolExprType_AND_EXPR: "AND", q.BoolExprType_OR_EXPR: "OR", q.BoolExprType_NOT_EXPR: "NOT"}[x.Boolop]
	for i := range args {
		if args[i], err = b.coerceBool(args[i], op); err != nil {
			return nil, err
		}
	}
	return &boolExpr{op: op, args: args}, nil
}

func (b *binder) bindCase(c *q.CaseExpr, sc *scope) (Expr, error) {
	var arg Expr
	var err error
	if c.Arg != nil {
		if arg, err = b.bindExpr(c.Arg, sc); err != nil {
			return nil, err
		}
	}
	ce := &caseExpr{}
	results := []Expr{}
	for _, wn := range c.Args {
		w := wn.GetCaseWhen()
		var cond Expr
		if arg != nil {
			rhs, err := b.bindExpr(w.Expr, sc)
			if err != nil {
				return nil, err
			}
			if cond, err = b.binaryOp("=", arg, rhs); err != nil {
				return nil, err
			}
		} else {
			if cond, err = b.bindExpr(w.Expr, sc); err != nil {
				return nil, err
			}
			if cond, err = b.coerceBool(cond, "CASE/WHEN"); err != nil {
				return nil, err
			}
		}
		r, err := b.bindExpr(w.Result, sc)
		if err != nil {
			return nil, err
		}
		ce.whens = append(ce.whens, cond)
		results = append(results, r)
	}
	if c.Defresult != nil {
		d, err := b.bindExpr(c.Defresult, sc)
		if err != nil {
			return nil, err
		}
		results = append(results, d)
	}
	// PostgreSQL resolves the ELSE result's type first (it heads the list
	// select_common_type sees): CASE ... THEN text ELSE varchar is varchar
	order := results
	if c.Defresult != nil {
		order = append([]Expr{results[len(results)-1]}, results[:len(results)-1]...)
	}
	t, err := b.commonType(order, "CASE")
	if err != nil {
		return nil, err
	}
	for i := range results {
		if results[i], err = b.coerce(results[i], t, castImplicit, ""); err != nil {
			return nil, err
		}
	}
	ce.t = t
	if b.trace != nil {
		b.trace.cases[c] = t
	}
	ce.thens = results[:len(ce.whens)]
	if c.Defresult != nil {
		ce.els = results[len(results)-1]
	}
	return ce, nil
}

func (b *binder) bindSQLValueFunction(f *q.SQLValueFunction) (Expr, error) {
	switch f.Op {
	case q.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return b.funcByName("current_date", nil)
	case q.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, q.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return b.funcByName("now", nil)
	case q.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, q.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return b.funcByName("localtimestamp", nil)
	case q.SQLValueFunctionOp_SVFOP_CURRENT_USER, q.SQLValueFunctionOp_SVFOP_USER, q.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return b.funcByName("current_user", nil)
	case q.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return b.funcByName("session_user", nil)
	case q.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return b.funcByName("current_database", nil)
	case q.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return b.funcByName("current_schema", nil)
	}
	return nil, unsupported("this SQL value function is not supported")
}

// inListExpr is x [NOT] IN (a, b, ...) with SQL's NULL rules.
type inListExpr struct {
	arg  Expr
	list []Expr
	not  bool
}

func (e *inListExpr) Type() Type { return TBool }
func (e *inListExpr) String() string {
	s := e.arg.String() + " IN ("
	for i, x := range e.list {
		if i > 0 {
			s += ","
		}
		s += x.String()
	}
	if e.not {
		return "NOT " + s + ")"
	}
	return s + ")"
}

func (e *inListExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	x, err := e.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	out := NewVec(TBool, b.N)
	out.Nulls = make([]bool, b.N)
	found := make([]bool, b.N)
	sawNull := make([]bool, b.N)
	live := nonNull(b.N, sel, out, x)
	for _, item := range e.list {
		v, err := item.Eval(ec, b, live)
		if err != nil {
			return nil, err
		}
		for _, i := range live {
			if found[i] {
				continue
			}
			if v.IsNull(int(i)) {
				sawNull[i] = true
				continue
			}
			if cmpRows(x, int(i), v, int(i)) == 0 {
				found[i] = true
			}
		}
	}
	for _, i := range live {
		switch {
		case found[i]:
			out.B[i] = !e.not
		case sawNull[i]:
			out.Nulls[i] = true
		default:
			out.B[i] = e.not
		}
	}
	return out, nil
}
