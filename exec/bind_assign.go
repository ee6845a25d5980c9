package exec

import (
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// AssignFunc is the call the planner writes around each value it stores
// into a column (INSERT, UPDATE SET, MERGE): AssignFunc(value,
// NULL::coltype, 'colname') converts value with PostgreSQL's assignment
// casts, not the explicit casts CAST(value AS coltype) would allow —
// INSERT INTO t(intcol) VALUES (true) is 42804 as in PostgreSQL, while
// 2.5 into an integer column rounds and 12345 into varchar(3) is 22001.
const AssignFunc = "pg_catalog.pggraph_assign"

// Its fourth and fifth arguments (optional) say whether the value comes
// from a subquery's output and where the client wrote it (the 1-based
// character position a 42804 points at, 0 unknown). The fourth argument true marks a value read from a subquery's output
// (INSERT … SELECT, rewritten as a SELECT over it): a literal there left
// untyped was resolved as text, where PostgreSQL converts it as the
// untyped literal it was, so text converts as by input there.
//
// bindAssign binds AssignFunc's call.
func (b *binder) bindAssign(fc *q.FuncCall, sc *scope) (Expr, error) {
	fromSubquery, pos := false, 0
	if len(fc.Args) == 5 {
		fromSubquery = fc.Args[3].GetAConst().GetBoolval().GetBoolval()
		pos = int(fc.Args[4].GetAConst().GetIval().GetIval())
		fc = &q.FuncCall{Funcname: fc.Funcname, Args: fc.Args[:3]}
	}
	if len(fc.Args) != 3 {
		return nil, errf(CodeUndefinedFunction, "function pggraph_assign does not exist")
	}
	tc := fc.Args[1].GetTypeCast()
	col := fc.Args[2].GetAConst().GetSval()
	if tc == nil || col == nil {
		return nil, errf(CodeUndefinedFunction, "function pggraph_assign does not exist")
	}
	t, err := b.resolveType(tc.TypeName)
	if err != nil {
		return nil, err
	}
	arg, err := b.bindExpr(fc.Args[0], sc)
	if err != nil {
		return nil, err
	}
	from := arg.Type()
	if fromSubquery && from.OID == OIDText {
		return b.coerce(arg, t, castExplicit, "")
	}
	if from.OID != OIDUnknown && from.OID != t.OID && !canCast(from, t, castAssignment) {
		e := &Error{Code: CodeDatatypeMismatch,
			Message: "column \"" + col.Sval + "\" is of type " + t.String() + " but expression is of type " + from.String(),
			Hint:    "You will need to rewrite or cast the expression.", Position: int32(pos)}
		if pos > 0 {
			e.Placement = pgerr.PlacedInClient
		}
		return nil, e
	}
	r, err := b.coerce(arg, t, castAssignment, "")
	if e, ok := err.(*Error); ok && pos > 0 && IsEnumOID(t.OID) && (e.Code == CodeInvalidTextRepr || e.Code == pgerr.UnsafeNewEnumValueUsage) {
		// a label that is not the enum's points at the value, as
		// PostgreSQL's enum_in does
		cp := *e
		cp.Position, cp.Placement = int32(pos), pgerr.PlacedInClient
		return nil, &cp
	}
	return r, err
}

// isAssignCall reports AssignFunc's call.
func isAssignCall(names []*q.Node) bool {
	if len(names) != 2 {
		return false
	}
	return names[0].GetString_().GetSval() == "pg_catalog" && names[1].GetString_().GetSval() == strings.TrimPrefix(AssignFunc, "pg_catalog.")
}
