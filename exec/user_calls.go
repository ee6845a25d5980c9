package exec

import (
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Resolution of a call of a user function (docs/sql.md, "Functions"):
// positional arguments, then named ones (name => value), the trailing
// parameters' DEFAULTs, and a VARIADIC parameter — its extra arguments
// gathered into an array, or one array passed as VARIADIC arr. Among the
// functions of the name, the candidate whose parameters take the
// arguments with the fewest conversions wins, as in PostgreSQL's
// func_select_candidate; a tie is ambiguous (42725).

// userArg is one argument as written: its bound value and, for
// name => value, the parameter's name.
type userArg struct {
	name string
	e    Expr
}

// bindUserArgs binds a call's arguments, keeping the names of named
// ones.
func (b *binder) bindUserArgs(fc *q.FuncCall, sc *scope) ([]userArg, error) {
	out := make([]userArg, len(fc.Args))
	seenNamed := false
	for i, n := range fc.Args {
		if na := n.GetNamedArgExpr(); na != nil {
			seenNamed = true
			for _, prev := range out[:i] {
				if prev.name == na.Name {
					return nil, b.at(errf(CodeSyntaxError, "argument name \"%s\" used more than once", na.Name), na.Location)
				}
			}
			e, err := b.bindExpr(na.Arg, sc)
			if err != nil {
				return nil, err
			}
			out[i] = userArg{name: na.Name, e: e}
			continue
		}
		if seenNamed {
			return nil, errf(CodeSyntaxError, "positional argument cannot follow named argument")
		}
		e, err := b.bindExpr(n, sc)
		if err != nil {
			return nil, err
		}
		out[i] = userArg{e: e}
	}
	return out, nil
}

// hasNamedArgs reports a call with name => value arguments.
func hasNamedArgs(fc *q.FuncCall) bool {
	for _, n := range fc.Args {
		if n.GetNamedArgExpr() != nil {
			return true
		}
	}
	return false
}

// hasUserFunction reports a user function or procedure (proc) of the
// name in the catalog.
func (b *binder) hasUserFunction(name string, proc bool) bool {
	for _, f := range b.cat.functions() {
		if f.Name == name && f.Proc == proc {
			return true
		}
	}
	return false
}

// resolveUser picks the function of the name (a procedure when proc)
// the arguments call and returns its input arguments in parameter
// order, coerced to the parameters' types. handled is false when the
// catalog has no routine of that name and kind.
func (b *binder) resolveUser(name string, args []userArg, variadic, proc bool) (*FuncDef, []Expr, bool, error) {
	var best *FuncDef
	var bestSlots []Expr
	var bestVar []Expr // the arguments gathered into the VARIADIC array
	bestScore, ambiguous, any := -1, false, false
	for _, f := range b.cat.functions() {
		if f.Name != name || f.Proc != proc {
			continue
		}
		any = true
		slots, extra, ok := matchUserArgs(f, args, variadic)
		if !ok {
			continue
		}
		ins := f.Inputs()
		s := fnSig{}
		var given []Expr
		for i, e := range slots {
			if e != nil {
				s.args, given = append(s.args, ins[i].Type), append(given, e)
			}
		}
		for _, e := range extra {
			s.args, given = append(s.args, ins[len(ins)-1].Type.Elem()), append(given, e)
		}
		score, ok := sigScore(s, given)
		if !ok {
			continue
		}
		if score > bestScore {
			best, bestSlots, bestVar, bestScore, ambiguous = f, slots, extra, score, false
		} else if score == bestScore {
			ambiguous = true
		}
	}
	if !any {
		return nil, nil, false, nil
	}
	if best == nil {
		return nil, nil, true, noUserFunction(name, args, proc)
	}
	if ambiguous {
		e := noUserFunction(name, args, proc).(*Error)
		e.Code, e.Message = CodeAmbiguousFunction, strings.Replace(e.Message, "does not exist", "is not unique", 1)
		e.Hint = "Could not choose a best candidate function. You might need to add explicit type casts."
		if proc {
			e.Hint = "Could not choose a best candidate procedure. You might need to add explicit type casts."
		}
		return nil, nil, true, e
	}
	ins := best.Inputs()
	out := make([]Expr, len(ins))
	for i, a := range ins {
		e := bestSlots[i]
		switch {
		case e == nil && i == len(ins)-1 && bestVar != nil:
			// the VARIADIC parameter's array of the extra arguments
			items := make([]Expr, len(bestVar))
			for k, v := range bestVar {
				c, err := b.coerce(v, a.Type.Elem(), castImplicit, "")
				if err != nil {
					return nil, nil, true, err
				}
				items[k] = c
			}
			out[i] = &arrayExpr{t: a.Type, items: items}
			continue
		case e == nil:
			d, err := b.bindDefault(a.Default)
			if err != nil {
				return nil, nil, true, err
			}
			e = d
		}
		c, err := b.coerce(e, a.Type, castImplicit, "")
		if err != nil {
			return nil, nil, true, err
		}
		out[i] = c
	}
	return best, out, true, nil
}

// matchUserArgs places the arguments on f's input parameters: slots[i]
// is the argument of parameter i (nil: its DEFAULT, or the VARIADIC
// array of extra), ok false when they do not fit.
func matchUserArgs(f *FuncDef, args []userArg, variadic bool) (slots, extra []Expr, ok bool) {
	ins := f.Inputs()
	slots = make([]Expr, len(ins))
	hasVar := len(ins) > 0 && ins[len(ins)-1].Mode == "v"
	if variadic && !hasVar {
		return nil, nil, false
	}
	npos := 0
	for _, a := range args {
		if a.name == "" {
			npos++
		}
	}
	if hasVar && !variadic && npos >= len(ins) && npos == len(args) {
		// the expanded form: every argument from the VARIADIC parameter's
		// place on goes into its array
		for i := 0; i < len(ins)-1; i++ {
			slots[i] = args[i].e
		}
		for _, a := range args[len(ins)-1:] {
			extra = append(extra, a.e)
		}
		return slots, extra, true
	}
	for i, a := range args {
		if a.name == "" {
			if i >= len(ins) {
				return nil, nil, false
			}
			slots[i] = a.e
			continue
		}
		k := -1
		for j, p := range ins {
			if p.Name == a.name {
				k = j
			}
		}
		if k < 0 || slots[k] != nil {
			return nil, nil, false
		}
		slots[k] = a.e
	}
	if hasVar && !variadic && slots[len(ins)-1] != nil {
		return nil, nil, false // a VARIADIC parameter is named only with VARIADIC
	}
	for i, p := range ins {
		if slots[i] == nil && p.Default == "" {
			return nil, nil, false
		}
	}
	return slots, extra, true
}

// noUserFunction is 42883 naming the call as written (name => type for
// named arguments).
func noUserFunction(name string, args []userArg, proc bool) error {
	kind, hint := "function", "No function matches the given name and argument types. You might need to add explicit type casts."
	if proc {
		kind, hint = "procedure", "No procedure matches the given name and argument types. You might need to add explicit type casts."
	}
	return &Error{Code: CodeUndefinedFunction, Message: kind + " " + callSignature(name, args) + " does not exist", Hint: hint}
}

// callSignature is a call as PostgreSQL's messages write it:
// f(integer, b => text).
func callSignature(name string, args []userArg) string {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = "unknown"
		if a.e != nil {
			ts[i] = a.e.Type().String()
		}
		if a.name != "" {
			ts[i] = a.name + " => " + ts[i]
		}
	}
	return name + "(" + strings.Join(ts, ", ") + ")"
}
