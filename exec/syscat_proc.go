package exec

import (
	"sort"
	"strings"
	"sync"
)

// pg_proc: the functions the engine implements, described as PostgreSQL
// 15 describes them.
//
// Every PostgreSQL 15 overload of a name the engine binds (pg15/procs.tsv)
// is probed once per process: the engine prepares a call with typed NULL
// arguments of exactly that overload's argument types (polymorphic ones
// instantiated as integer / integer[]) and the overload is listed, with
// PostgreSQL's OID and attributes, only when the call binds and yields
// PostgreSQL's result type. An overload the engine cannot call, or calls
// with another result type, is not listed (probeMismatches names the
// latter for tests). Functions other catalogs reference — a type's
// input/output functions, a cast's or an operator's implementation, an
// access method's or language's handler — are listed as PostgreSQL has
// them, so pg_type, pg_cast, pg_operator, pg_am and pg_language join to
// real rows. The engine's own functions without a PostgreSQL counterpart
// (pgvector's) are listed from their signatures with OIDs from 900000.

// engineFunctionNames is every name the engine binds as a function call:
// scalar functions, aggregates, window functions and the set-returning
// functions FROM accepts.
func engineFunctionNames() map[string]bool {
	out := map[string]bool{}
	for _, n := range FunctionNames() {
		out[n] = true
	}
	for _, n := range windowFunctionNames {
		out[n] = true
	}
	for n := range setFuncs {
		out[n] = true
	}
	out["string_to_table"] = true // unnest(string_to_array(...)), bind_query.go
	return out
}

// windowFunctionNames are the window functions bindWindowCall knows
// besides the aggregates.
var windowFunctionNames = []string{"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value"}

// oidEngineProcBase numbers the engine-only functions' pg_proc rows.
const oidEngineProcBase = 900_000

// procSet is what pg_proc lists.
type procSet struct {
	rows   []*pgProcFact // OID order
	byOID  map[uint32]*pgProcFact
	byName map[string][]*pgProcFact
	// mismatches are PostgreSQL overloads the engine binds with another
	// result type ("name(args) → PostgreSQL's, engine's")
	mismatches []string
}

// catalogProcs probes the engine once per process; the function set is
// static. (Probing only binds, and binding never reads pg_proc, so the
// probe's statements cannot re-enter this.)
func catalogProcs() *procSet {
	procsOnce.Do(func() { procs = buildProcs() })
	return procs
}

var (
	procsOnce sync.Once
	procs     *procSet
	// buildProcs is buildProcSet, assigned in init: the probe binds
	// through the aggregate table, whose initializer reaches
	// catalogProcs (coerce → regCast → procOID), so a direct reference
	// would be an initialization cycle
	buildProcs func() *procSet
)

func init() { buildProcs = buildProcSet }

func buildProcSet() *procSet {
	ps := &procSet{byOID: map[uint32]*pgProcFact{}, byName: map[string][]*pgProcFact{}}
	names := engineFunctionNames()
	ref := referencedProcs()
	prober := &Engine{Catalog: NewMemCatalog()}
	have := map[string]bool{}
	for _, f := range pgProcFacts() {
		have[f.name] = true
		switch {
		case ref[f.oid]:
		case names[f.name]:
			ok, mismatch := probeProc(prober, f)
			if mismatch != "" {
				ps.mismatches = append(ps.mismatches, mismatch)
			}
			if !ok {
				continue
			}
		default:
			continue
		}
		ps.add(f)
	}
	// the engine's own functions, one row per signature
	next := uint32(oidEngineProcBase)
	var own []string
	for n := range names {
		if !have[n] {
			own = append(own, n)
		}
	}
	sort.Strings(own)
	for _, n := range own {
		d := funcs[n]
		if d == nil {
			continue // SQL keywords bound as functions (current_date, localtimestamp)
		}
		for _, s := range d.sigs {
			f := &pgProcFact{oid: next, nsp: "pg_catalog", name: n, kind: 'f', lang: 12, cost: 1, variadic: 0,
				strict: !s.nonStrict, volatile: 'i', parallel: 's', ret: s.ret.OID, src: n}
			for _, a := range s.args {
				f.args = append(f.args, a.OID)
			}
			f.nargs = int16(len(f.args))
			f.argsText = typeSQLList(f.args)
			f.identArgsText = f.argsText
			f.resultText = typeSQLName(f.ret)
			ps.add(f)
			next++
		}
	}
	for _, io := range engineTypeIOProcs(&next) {
		ps.add(io)
	}
	sort.Slice(ps.rows, func(i, j int) bool { return ps.rows[i].oid < ps.rows[j].oid })
	return ps
}

func (ps *procSet) add(f *pgProcFact) {
	ps.rows = append(ps.rows, f)
	ps.byOID[f.oid] = f
	ps.byName[f.name] = append(ps.byName[f.name], f)
	rememberRegName(OIDRegproc, f.oid, f.name)
}

// engineTypeIOProcs are the input/output functions of the engine's types
// PostgreSQL 15 does not have (pgvector's vector).
func engineTypeIOProcs(next *uint32) []*pgProcFact {
	var out []*pgProcFact
	mk := func(name string, ret uint32, args ...uint32) {
		out = append(out, &pgProcFact{oid: *next, nsp: "pg_catalog", name: name, kind: 'f', lang: 12, cost: 1, strict: true,
			volatile: 'i', parallel: 's', ret: ret, args: args, nargs: int16(len(args)), src: name,
			argsText: typeSQLList(args), identArgsText: typeSQLList(args), resultText: typeSQLName(ret)})
		*next++
	}
	mk("vector_in", OIDVector, OIDCstring, OIDOid, OIDInt4)
	mk("vector_out", OIDCstring, OIDVector)
	mk("vector_recv", OIDVector, OIDInternal, OIDOid, OIDInt4)
	mk("vector_send", OIDBytea, OIDVector)
	return out
}

// referencedProcs are the functions the listed casts, operators, types,
// access methods and languages name, and their support functions: listed
// as PostgreSQL has them (a type's I/O functions take cstring or
// internal and are not called from SQL; an operator's or cast's function
// binds as that operator or cast, bind_implfunc.go).
func referencedProcs() map[uint32]bool {
	out := map[uint32]bool{}
	add := func(oids ...uint32) {
		for _, o := range oids {
			if o != 0 {
				out[o] = true
			}
		}
	}
	for _, c := range catalogCasts() {
		add(c.fn)
	}
	for _, o := range catalogOperators() {
		add(o.code, o.rest, o.join)
	}
	for oid := range typeInfos {
		if t := pgTypeFacts()[oid]; t != nil {
			add(t.input, t.output, t.receive, t.send, t.modIn, t.modOut, t.analyze, t.subscript)
		}
	}
	for _, a := range pgAMFacts() {
		add(a.handler)
	}
	for _, l := range pgLanguageFacts() {
		add(l.handler, l.inline, l.validator)
	}
	for _, f := range pgProcFacts() {
		if out[f.oid] {
			add(f.support)
		}
	}
	return out
}

// probeTypes instantiates polymorphic types for a probe: element-like
// ones as integer, array-like ones as integer[].
func probeType(oid uint32) (uint32, bool) {
	switch oid {
	case OIDAnyElement, OIDAnyNonArray, OIDAnyCompatible, OIDAnyCompatibleNonArr, OIDAny:
		return OIDInt4, true
	case OIDAnyArray, OIDAnyCompatibleArray:
		return info(OIDInt4).array, true
	case OIDRecord:
		return OIDRecord, true
	case OIDCstring, OIDInternal, OIDAnyEnum, OIDAnyRange, OIDAnyMultirange, OIDLanguageHandler, OIDTableAMHandler,
		OIDIndexAMHandler, OIDTrigger, OIDEventTrigger, OIDVoid, OIDUnknown:
		return 0, false
	}
	if _, ok := typeInfos[oid]; !ok {
		return 0, false
	}
	return oid, true
}

// probeArg is an expression of type oid: a typed NULL, a row for record,
// and for the catalog-only types without an SQL spelling (pg_node_tree,
// xid, aclitem[]) a catalog column of that type.
func probeArg(oid uint32) string {
	if oid == OIDRecord {
		return "ROW(1, 'a'::text)"
	}
	if col, ok := catalogColumnOfType()[oid]; ok {
		return "(SELECT " + col + " LIMIT 1)"
	}
	return "CAST(NULL AS " + typeSQLName(oid) + ")"
}

// catalogColumnOfType maps the types that have no SQL spelling to a
// catalog column of that type ("col FROM schema.rel").
var catalogColumnOfType = sync.OnceValue(func() map[uint32]string {
	out := map[uint32]string{}
	for _, r := range providedRelations() {
		for _, c := range sysCols(r.rel.cols) {
			if _, spelled := typeNames[c.Type.Name()]; spelled || c.Type.IsArray() && typeNames[c.Type.Elem().Name()] != 0 {
				continue
			}
			if _, seen := out[c.Type.OID]; !seen {
				out[c.Type.OID] = quoteIdent(c.Name) + " FROM " + r.schema + "." + quoteIdent(r.name)
			}
		}
	}
	return out
})

// probeProc prepares a call of f and reports whether the engine binds it
// with f's result type; mismatch describes a call that binds with
// another result type.
func probeProc(eng *Engine, f *pgProcFact) (ok bool, mismatch string) {
	if f.kind == 'p' || f.lang != 12 && f.lang != 14 {
		return false, ""
	}
	in := append([]uint32(nil), f.args...)
	if f.variadic != 0 && len(in) > 0 {
		// VARIADIC arguments are passed one by one; two of them, as
		// json_build_object wants pairs
		in[len(in)-1] = f.variadic
		in = append(in, f.variadic)
	}
	args := make([]string, len(in))
	for i, t := range in {
		pt, ok := probeType(t)
		if !ok {
			return false, ""
		}
		args[i] = probeArg(pt)
	}
	call := quoteIdent(f.nsp) + "." + quoteIdent(f.name)
	var sql string
	switch {
	case f.kind == 'a' && len(args) == 0:
		sql = "SELECT " + call + "(*)"
	case f.kind == 'a' && f.aggKind != 'n' && f.aggKind != 0:
		d := int(f.aggDirect)
		if d > len(args) {
			return false, ""
		}
		sql = "SELECT " + call + "(" + strings.Join(args[:d], ", ") + ") WITHIN GROUP (ORDER BY " + strings.Join(args[d:], ", ") + ")"
	case f.kind == 'w':
		sql = "SELECT " + call + "(" + strings.Join(args, ", ") + ") OVER ()"
	case f.retset:
		sql = "SELECT * FROM " + call + "(" + strings.Join(args, ", ") + ")"
	default:
		sql = "SELECT " + call + "(" + strings.Join(args, ", ") + ")"
	}
	p, err := prepareProbe(eng, sql)
	if err != nil {
		return false, ""
	}
	var want []uint32
	if f.retset && f.allArgs != nil {
		for i, m := range f.modes {
			if m == "o" || m == "b" || m == "t" {
				want = append(want, f.allArgs[i])
			}
		}
	} else {
		want = []uint32{f.ret}
	}
	got := make([]uint32, len(p.Columns))
	for i, c := range p.Columns {
		got[i] = c.TypeOID
	}
	if len(want) == 1 && want[0] == OIDRecord {
		return true, "" // a record of any shape
	}
	same := len(got) == len(want)
	for i := 0; same && i < len(want); i++ {
		w, _ := probeType(want[i])
		if w == 0 {
			w = want[i]
		}
		same = got[i] == w
	}
	if !same {
		return false, f.name + "(" + f.identArgsText + ") returns " + typeSQLList(want) + " in PostgreSQL, " + typeSQLList(got) + " here"
	}
	return true, ""
}

// prepareProbe prepares sql, treating a panic in a binder as a failure
// (Prepare converts panics into XX000 errors already; this keeps the
// probe independent of that).
func prepareProbe(eng *Engine, sql string) (p *Prepared, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, errf(CodeInternalError, "probe panicked")
		}
	}()
	return eng.Prepare(sql, nil)
}

// typeSQLList is a comma-separated list of format_type names.
func typeSQLList(oids []uint32) string {
	parts := make([]string, len(oids))
	for i, o := range oids {
		parts[i] = typeSQLName(o)
	}
	return strings.Join(parts, ", ")
}

// procOID resolves a function name to its pg_proc OID (the lowest OID
// among its overloads, as regproc input picks one).
func procOID(name string) (uint32, bool) {
	ps := catalogProcs()
	if fs := ps.byName[name]; len(fs) > 0 {
		best := fs[0].oid
		for _, f := range fs[1:] {
			best = min(best, f.oid)
		}
		return best, true
	}
	return 0, false
}

// procByOID describes pg_proc's row oid.
func procByOID(oid uint32) (*pgProcFact, bool) {
	f, ok := catalogProcs().byOID[oid]
	return f, ok
}

// probeMismatches lists the PostgreSQL overloads the engine binds with a
// different result type (and so does not list).
func probeMismatches() []string { return catalogProcs().mismatches }

// nspOID is a built-in namespace's OID.
func nspOID(name string) uint32 {
	switch name {
	case "information_schema":
		return oidInformationSchema
	case "public":
		return oidPublic
	}
	return oidPgCatalog
}

func init() {
	// no function has an SQL-standard body here (PostgreSQL's SQL-bodied
	// built-ins are implemented natively), so there is none to show
	def("pg_get_function_sqlbody", sig(TText, nullKernel, TOid))
	pgCatalogRels["pg_proc"] = &sysRelation{1255, "oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost float4, prorows float4, provariadic oid, prosupport regproc, prokind char, prosecdef bool, proleakproof bool, proisstrict bool, proretset bool, provolatile char, proparallel char, pronargs int2, pronargdefaults int2, prorettype oid, proargtypes oidvector, proallargtypes oid[], proargmodes char[], proargnames text[], proargdefaults pg_node_tree, protrftypes oid[], prosrc text, probin text, prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]", func(c *catalogSet) [][]any {
		var rows [][]any
		procs := catalogProcs().rows
		for _, u := range c.functions() {
			procs = append(procs[:len(procs):len(procs)], u.procFact())
		}
		for _, f := range procs {
			var all, modes, names any
			if f.allArgs != nil {
				all = f.allArgs
			}
			if f.modes != nil {
				modes = f.modes
			}
			if f.argNames != nil {
				names = f.argNames
			}
			args := f.args
			if args == nil {
				args = []uint32{}
			}
			// proargdefaults (a node tree) is not reproduced: NULL, with
			// pronargdefaults and pg_get_function_arguments as PostgreSQL's
			owner := uint32(oidPostgresRole)
			if f.nsp == "public" {
				owner = userProcOwner(f.oid)
			}
			rows = append(rows, []any{f.oid, f.name, nspOID(f.nsp), owner, f.lang, f.cost, f.rows, f.variadic, f.support,
				string(f.kind), f.secdef, f.leakproof, f.strict, f.retset, string(f.volatile), string(f.parallel), f.nargs, f.nargdefaults,
				f.ret, args, all, modes, names, nil, nil, f.src, nil, nil, nil, c.procACL(f)})
		}
		return rows
	}}
}
