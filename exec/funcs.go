package exec

import (
	"sort"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// fnSig is one overload of a scalar function.
type fnSig struct {
	args      []Type
	variadic  bool // the last argument type repeats
	ret       Type
	k         kernel
	nonStrict bool // NULL arguments reach the kernel
}

// fnDef is a named function: overloads, or a custom binder for
// polymorphic ones.
type fnDef struct {
	sigs   []fnSig
	custom func(b *binder, args []Expr) (Expr, error)
}

var funcs = map[string]*fnDef{}

func def(name string, sigs ...fnSig) {
	d := funcs[name]
	if d == nil {
		d = &fnDef{}
		funcs[name] = d
	}
	d.sigs = append(d.sigs, sigs...)
}

func defCustom(name string, f func(b *binder, args []Expr) (Expr, error)) {
	funcs[name] = &fnDef{custom: f}
}

func sig(ret Type, k kernel, args ...Type) fnSig { return fnSig{args: args, ret: ret, k: k} }

// funcName extracts the function name, accepting pg_catalog qualification.
func funcName(names []*q.Node) (string, error) {
	var parts []string
	for _, n := range names {
		parts = append(parts, n.GetString_().Sval)
	}
	switch {
	case len(parts) == 1:
		return parts[0], nil
	case len(parts) == 2 && (parts[0] == "pg_catalog" || parts[0] == "public" || parts[0] == "information_schema"):
		return parts[1], nil
	}
	return "", errf(CodeUndefinedFunction, "function %s does not exist", strings.Join(parts, "."))
}

func (b *binder) bindFuncCall(fc *q.FuncCall, sc *scope) (Expr, error) {
	if isAssignCall(fc.Funcname) {
		return b.bindAssign(fc, sc)
	}
	if len(fc.Funcname) == 2 {
		if err := b.qualifiedDenied(fc.Funcname[0].GetString_().GetSval()); err != nil {
			return nil, b.at(err, fc.Location) // schema_usage.go
		}
	}
	name, err := funcName(fc.Funcname)
	if err != nil {
		return nil, err
	}
	if fc.Over != nil {
		return b.bindWindowCall(name, fc, sc)
	}
	if name == "make_interval" && fc.Over == nil && !fc.AggWithinGroup && !fc.AggStar {
		return b.bindMakeInterval(fc, sc)
	}
	if name == "mode" && fc.Over == nil {
		if !fc.AggWithinGroup {
			return nil, errf(CodeWrongObjectType, "WITHIN GROUP is required for ordered-set aggregate mode")
		}
		return b.bindModeAgg(fc, sc)
	}
	if fc.AggWithinGroup && (name == "percentile_cont" || name == "percentile_disc") && fc.Over == nil {
		return b.bindOrderedSetAgg(name, fc, sc)
	}
	if fc.AggWithinGroup && isAggregate(name) {
		return nil, b.withinGroupOfPlainAggregate(name, fc, sc)
	}
	if fc.AggWithinGroup || (knownPostgresFunction(name) && !isAggregate(name) && funcs[name] == nil) {
		return nil, unsupported("function %s() is not supported", name)
	}
	if isAggregate(name) {
		return b.bindAggCall(name, fc, sc)
	}
	if fc.AggDistinct || len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.AggStar {
		if _, ok := funcs[name]; ok {
			return nil, errf(CodeWrongObjectType, "%s is not an aggregate function", name)
		}
		return nil, errf(CodeUndefinedFunction, "function %s does not exist", name)
	}
	if (fc.FuncVariadic || hasNamedArgs(fc)) && funcs[name] == nil && (b.hasUserFunction(name, false) || b.hasUserFunction(name, true)) {
		// named and VARIADIC arguments of user functions (user_calls.go)
		args, err := b.bindUserArgs(fc, sc)
		if err != nil {
			return nil, err
		}
		e, ok, err := b.userCallArgs(name, args, fc.FuncVariadic)
		if !ok && err == nil {
			err = noUserFunction(name, args, false)
		}
		return e, err
	}
	if fc.FuncVariadic {
		return nil, unsupported("VARIADIC arguments are not supported")
	}
	if isSetReturning(name) {
		return nil, unsupported("set-returning function %s() is only supported in FROM", name)
	}
	args, err := b.bindList(fc.Args, sc)
	if err != nil {
		return nil, err
	}
	if funcs[name] != nil {
		if err := b.cat.checkBuiltinExecute(name, exprTypes(args)); err != nil {
			return nil, err // builtin_function_acl.go
		}
	}
	e, err := b.funcByName(name, args)
	if Code(err) == CodeWrongObjectType {
		err = b.at(err, fc.Location) // a procedure called as a function
	}
	return e, err
}

// funcByName resolves an overload and coerces the arguments.
func (b *binder) funcByName(name string, args []Expr) (Expr, error) {
	if ext, ok := extensionFunctions[name]; ok && (!b.cat.hasExtension(ext) || b.publicHidden()) {
		// until CREATE EXTENSION (extension_funcs.go); and the extensions
		// live in schema public, hidden from a role without USAGE on it
		// (schema_usage.go; a public-qualified call was refused before)
		return nil, noFunction(name, args)
	}
	d, ok := funcs[name]
	if !ok {
		if e, ok, err := b.implementationCall(name, args); ok {
			return e, err
		}
		if e, ok, err := b.userCall(name, args); ok {
			return e, err
		}
		if knownPostgresFunction(name) {
			return nil, unsupported("function %s() is not supported", name)
		}
		return nil, noFunction(name, args)
	}
	if d.custom != nil {
		return d.custom(b, args)
	}
	best, bestScore := -1, -1
	ambiguous := false
	for i, s := range d.sigs {
		score, ok := sigScore(s, args)
		if !ok {
			continue
		}
		if score > bestScore {
			best, bestScore, ambiguous = i, score, false
		} else if score == bestScore {
			ambiguous = true
		}
	}
	if best < 0 {
		if e, ok, err := b.userCall(name, args); ok {
			return e, err
		}
		return nil, noFunction(name, args)
	}
	_ = ambiguous // registration order breaks ties (most specific first)
	s := d.sigs[best]
	out := make([]Expr, len(args))
	for i, a := range args {
		t := s.argType(i)
		e, err := b.coerce(a, t, castImplicit, "")
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	ret := s.ret
	return &opExpr{name: name, t: ret, args: out, k: s.k, strict: !s.nonStrict}, nil
}

func (s fnSig) argType(i int) Type {
	if i >= len(s.args) {
		return s.args[len(s.args)-1]
	}
	return s.args[i]
}

// sigScore says whether args fit the signature (implicitly) and how well:
// as PostgreSQL's func_select_candidate, the number of exact matches
// decides first (power(numeric, int) is power(numeric, numeric)), then
// preferred-type and same-category targets.
func sigScore(s fnSig, args []Expr) (int, bool) {
	if len(args) != len(s.args) && !(s.variadic && len(args) >= len(s.args)-1) {
		return 0, false
	}
	score := 0
	for i, a := range args {
		want := s.argType(i)
		got := a.Type()
		switch {
		case got.OID == want.OID:
			score += 100
		case got.OID == OIDUnknown:
			// an untyped literal goes to the string category if any
			// candidate takes it, else to its category's preferred type
			// (abs('1') is abs(double precision))
			if want.OID == OIDText {
				score += 2
			} else if want.preferred() {
				score++
			}
		case canCast(got, want, castImplicit):
			if want.preferred() {
				score++
			}
			if got.category() == want.category() {
				score++
			}
		default:
			return 0, false
		}
	}
	return score, true
}

func noFunction(name string, args []Expr) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = "unknown"
		if a != nil { // a failed coercion may have cleared an argument
			ts[i] = a.Type().String()
		}
	}
	return &Error{Code: CodeUndefinedFunction, Message: "function " + name + "(" + strings.Join(ts, ", ") + ") does not exist",
		Hint: "No function matches the given name and argument types. You might need to add explicit type casts."}
}

// CodeWrongObjectType is 42809.
const CodeWrongObjectType = pgerr.WrongObjectType

// FunctionNames lists the scalar functions the engine implements (for
// pg_proc and docs).
func FunctionNames() []string {
	var out []string
	for n := range funcs {
		out = append(out, n)
	}
	for n := range aggregates {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// minMaxKernel is GREATEST / LEAST (NULL arguments ignored).
func minMaxKernel(greatest bool) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			best := -1
			for k, v := range a {
				if v.IsNull(int(i)) {
					continue
				}
				if best < 0 {
					best = k
					continue
				}
				c := cmpRows(v, int(i), a[best], int(i))
				if (greatest && c > 0) || (!greatest && c < 0) {
					best = k
				}
			}
			if best < 0 {
				out.SetNull(int(i))
			} else {
				out.copyRow(int(i), a[best], int(i))
			}
		}
		return nil
	}
}

func isSetReturning(name string) bool {
	switch name {
	case "generate_series", "unnest", "jsonb_array_elements", "json_array_elements", "jsonb_each", "json_each",
		"jsonb_object_keys", "json_object_keys", "regexp_matches", "generate_subscripts", "pg_partition_ancestors", "regexp_split_to_table", "jsonb_array_elements_text", "json_array_elements_text", "jsonb_each_text", "json_each_text":
		return true
	}
	return false
}

// knownPostgresFunction lists PostgreSQL built-ins the engine does not
// implement: calling one answers 0A000 instead of PostgreSQL's 42883 for
// an unknown name, so a missing feature is never mistaken for a typo.
func knownPostgresFunction(name string) bool {
	switch name {
	case "rank_agg",
		"corr", "covar_pop", "covar_samp",
		"regr_slope", "regr_intercept", "regr_count", "regr_r2", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy", "xmlagg", "jsonb_path_query", "jsonb_path_exists", "jsonb_to_record", "json_populate_record", "convert_from", "convert_to", "crc32",
		"setseed", "nextval", "currval", "setval", "lastval", "txid_current", "pg_current_xact_id",
		"age_in_days", "timeofday", "to_tsvector", "to_tsquery", "plainto_tsquery", "ts_rank",
		"pg_try_advisory_xact_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock_shared", "pg_advisory_unlock_shared", "pg_notify",
		"pg_get_functiondef", "pg_get_keywords", "string_to_table",
		"unistr", "normalize", "inet_client_addr", "inet_server_addr", "inet_server_port",

		"row_number_agg", "grouping", "xmlelement", "xmlforest", "array_sample", "array_shuffle":
		return true
	}
	return false
}
