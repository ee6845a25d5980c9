package exec

import (
	"strings"
	"sync"
)

// pg_operator: the operators the engine implements. Every PostgreSQL 15
// operator over the engine's types (pg15/operators.tsv) is looked up in
// the operator table (op_table.go) or, for the operators binaryOp binds
// by rule, probed once per process by preparing it over typed NULL
// operands (polymorphic operands instantiated as integer / integer[]);
// it is listed, with
// PostgreSQL's OID and attributes, only when the engine binds it with
// PostgreSQL's result type. An operator's commutator and negator are
// named only when they are listed too.

// catalogOperators probes the engine once; the operator set is static.
func catalogOperators() []pgOperatorFact {
	operatorsOnce.Do(func() { operators = buildOperators() })
	return operators
}

var (
	operatorsOnce sync.Once
	operators     []pgOperatorFact
	// buildOperators is probeOperators, assigned in init (as
	// buildProcs: the probe binds through tables whose initializers
	// reach regoperator output)
	buildOperators func() []pgOperatorFact
)

func init() { buildOperators = probeOperators }

func probeOperators() []pgOperatorFact {
	eng := &Engine{Catalog: NewMemCatalog()}
	var out []pgOperatorFact
	listed := map[uint32]bool{}
	for _, o := range pgOperatorFacts() {
		if probeOperator(eng, o) {
			out = append(out, o)
			listed[o.oid] = true
		}
	}
	for i := range out {
		if !listed[out[i].com] {
			out[i].com = 0
		}
		if !listed[out[i].negate] {
			out[i].negate = 0
		}
	}
	return out
}

// probeOperator prepares l op r (op r for a prefix operator) over typed
// NULLs and reports whether it binds with o's result type.
func probeOperator(eng *Engine, o pgOperatorFact) bool {
	var parts []string
	if o.kind == 'b' {
		lt, ok := probeType(o.left)
		if !ok {
			return false
		}
		if rt, ok := probeType(o.right); ok {
			if res, ok := binaryOpResult(o.name, lt, rt); ok {
				// a tabled operator needs no probe (op_table.go)
				want, ok := probeType(o.result)
				return ok && res == want
			}
		}
		parts = append(parts, probeArg(lt))
	}
	rt, ok := probeType(o.right)
	if !ok {
		return false
	}
	parts = append(parts, "OPERATOR(pg_catalog."+o.name+")", probeArg(rt))
	p, err := prepareProbe(eng, "SELECT "+strings.Join(parts, " "))
	if err != nil || len(p.Columns) != 1 {
		return false
	}
	want, ok := probeType(o.result)
	return ok && p.Columns[0].TypeOID == want
}

// operatorByOID finds a listed operator.
func operatorByOID(oid uint32) (pgOperatorFact, bool) {
	for _, o := range catalogOperators() {
		if o.oid == oid {
			return o, true
		}
	}
	return pgOperatorFact{}, false
}

func init() {
	pgCatalogRels["pg_operator"] = &sysRelation{2617, "oid oid, oprname name, oprnamespace oid, oprowner oid, oprkind char, oprcanmerge bool, oprcanhash bool, oprleft oid, oprright oid, oprresult oid, oprcom oid, oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc", func(*catalogSet) [][]any {
		catalogProcs() // names the implementation functions (regproc output)
		var rows [][]any
		for _, o := range catalogOperators() {
			rows = append(rows, []any{o.oid, o.name, oidPgCatalog, oidPostgresRole, string(o.kind), o.canMerge, o.canHash, o.left, o.right, o.result,
				o.com, o.negate, o.code, o.rest, o.join})
		}
		return rows
	}}
	def("pg_operator_is_visible", sig(TBool, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		listed := map[int64]bool{}
		for _, o := range catalogOperators() {
			listed[int64(o.oid)] = true
		}
		for _, i := range sel {
			if listed[a[0].I[i]] {
				out.B[i] = true // pg_catalog is always searched
			} else {
				out.SetNull(int(i))
			}
		}
		return nil
	}, TOid))
}
