package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// figureColname assigns an output column name the way PostgreSQL's
// FigureColname does: column and function names, type names of casts,
// keywords of special forms, "?column?" otherwise.
func figureColname(n *q.Node) string {
	name, _ := figure(n)
	if name == "" {
		return "?column?"
	}
	return name
}

// figure returns a name and its strength (2 = strong, 1 = weak, 0 = none).
func figure(n *q.Node) (string, int) {
	if n == nil {
		return "", 0
	}
	switch x := n.GetNode().(type) {
	case *q.Node_ColumnRef:
		f := x.ColumnRef.Fields
		for i := len(f) - 1; i >= 0; i-- {
			if s := f[i].GetString_(); s != nil {
				return s.Sval, 2
			}
		}
	case *q.Node_AIndirection:
		ind := x.AIndirection.Indirection
		for i := len(ind) - 1; i >= 0; i-- {
			if s := ind[i].GetString_(); s != nil {
				return s.Sval, 2
			}
		}
		return figure(x.AIndirection.Arg)
	case *q.Node_GroupingFunc:
		return "grouping", 2
	case *q.Node_FuncCall:
		f := x.FuncCall.Funcname
		return f[len(f)-1].GetString_().Sval, 2
	case *q.Node_AExpr:
		if x.AExpr.Kind == q.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *q.Node_TypeCast:
		name, s := figure(x.TypeCast.Arg)
		if s <= 1 {
			tn := x.TypeCast.TypeName.Names
			return tn[len(tn)-1].GetString_().Sval, 1
		}
		return name, s
	case *q.Node_CollateClause:
		return figure(x.CollateClause.Arg)
	case *q.Node_SubLink:
		switch x.SubLink.SubLinkType {
		case q.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2
		case q.SubLinkType_ARRAY_SUBLINK:
			return "array", 2
		case q.SubLinkType_EXPR_SUBLINK:
			if sel := x.SubLink.Subselect.GetSelectStmt(); sel != nil {
				for sel.Op != q.SetOperation_SETOP_NONE && sel.Larg != nil {
					sel = sel.Larg
				}
				if len(sel.TargetList) > 0 {
					rt := sel.TargetList[0].GetResTarget()
					if rt.Name != "" {
						return rt.Name, 2
					}
					return figure(rt.Val)
				}
			}
		}
	case *q.Node_CaseExpr:
		// a strong name of the ELSE result wins (FigureColnameInternal)
		if name, s := figure(x.CaseExpr.Defresult); s > 1 {
			return name, s
		}
		return "case", 1
	case *q.Node_AArrayExpr:
		return "array", 2
	case *q.Node_RowExpr:
		return "row", 2
	case *q.Node_CoalesceExpr:
		return "coalesce", 2
	case *q.Node_MinMaxExpr:
		if x.MinMaxExpr.Op == q.MinMaxOp_IS_GREATEST {
			return "greatest", 2
		}
		return "least", 2
	case *q.Node_SqlvalueFunction:
		switch x.SqlvalueFunction.Op {
		case q.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			return "current_date", 2
		case q.SQLValueFunctionOp_SVFOP_CURRENT_TIME, q.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
			return "current_time", 2
		case q.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, q.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
			return "current_timestamp", 2
		case q.SQLValueFunctionOp_SVFOP_LOCALTIME, q.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
			return "localtime", 2
		case q.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, q.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
			return "localtimestamp", 2
		case q.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
			return "current_role", 2
		case q.SQLValueFunctionOp_SVFOP_CURRENT_USER:
			return "current_user", 2
		case q.SQLValueFunctionOp_SVFOP_USER:
			return "user", 2
		case q.SQLValueFunctionOp_SVFOP_SESSION_USER:
			return "session_user", 2
		case q.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
			return "current_catalog", 2
		case q.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
			return "current_schema", 2
		}
	case *q.Node_BooleanTest, *q.Node_NullTest:
		return "", 0
	}
	return "", 0
}
