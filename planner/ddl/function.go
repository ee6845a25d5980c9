package ddl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// User functions (CREATE [OR REPLACE] FUNCTION, DROP FUNCTION).
//
// A function is one manifest entry, like an enum type: the view
// placeholder as its definition and a meta (Relkind RelFunction,
// metadata version 6) holding its parameters, result, language, body and
// volatility. So a function is per branch, time-travels, merges and is
// created, replaced and dropped in the statement's graph commit. The
// entry's name is FuncEntryPrefix + name + "(" + the input argument type
// OIDs + ")": functions overload by their input types, as PostgreSQL's
// pg_proc is unique on (proname, proargtypes). Its OID is derived from
// the entry's stable id (OR REPLACE keeps it). The bodies are checked
// where they can be: a SQL body must parse, a PL/pgSQL body is compiled
// by the planner before this runs (planner/function_call.go).

// RelFunction is the relation kind of a function's entry.
const RelFunction = "function"

// FuncEntryPrefix starts the manifest name of a function's entry.
const FuncEntryPrefix = "func:"

// metaVersionFunctions is the metadata version of function entries.
const metaVersionFunctions = 6

// FunctionMeta is a function's definition.
type FunctionMeta struct {
	Args []FuncArg `json:"args,omitempty"` // every parameter in order (IN, OUT, INOUT, VARIADIC, TABLE)
	// Ret is the result type (void, trigger, record for several OUT or
	// TABLE columns); RetSet for SETOF / RETURNS TABLE.
	Ret      PGType `json:"ret"`
	RetSet   bool   `json:"retset,omitempty"`
	Language string `json:"lang"`
	Body     string `json:"body"`
	// Volatility is provolatile: "i", "s" or "v".
	Volatility string `json:"volatility"`
	Strict     bool   `json:"strict,omitempty"`
	// Proc: a procedure (CREATE PROCEDURE, run by CALL)
	Proc bool `json:"proc,omitempty"`
	// RowOf names the table whose row type the function returns
	// (RETURNS [SETOF] table); RowCols are its columns as of CREATE
	// FUNCTION (Ret is then record)
	RowOf   string    `json:"rowof,omitempty"`
	RowCols []FuncArg `json:"rowcols,omitempty"`
}

// FuncArg is one parameter: its mode is proargmodes' letter (i, o, b, v,
// t).
type FuncArg struct {
	Name    string `json:"name,omitempty"`
	Type    PGType `json:"type"`
	Mode    string `json:"mode"`
	Default string `json:"default,omitempty"` // SQL text of DEFAULT
}

// Input reports a parameter the call passes (IN, INOUT, VARIADIC).
func (a FuncArg) Input() bool { return a.Mode == "i" || a.Mode == "b" || a.Mode == "v" }

// Output reports a parameter that is a result column (OUT, INOUT, TABLE).
func (a FuncArg) Output() bool { return a.Mode == "o" || a.Mode == "b" || a.Mode == "t" }

// PostgreSQL's pseudo-type OIDs a function may return.
const (
	oidRecord  = 2249
	oidTrigger = 2279
	oidVoid    = 2278
)

// FuncName returns the function name of a manifest entry name (without
// its argument list), and whether the entry is a function's.
func FuncName(entry string) (string, bool) {
	rest, ok := strings.CutPrefix(entry, FuncEntryPrefix)
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "(")
	return name, true
}

func funcEntryName(name string, inputs []uint32) string {
	parts := make([]string, len(inputs))
	for i, o := range inputs {
		parts[i] = strconv.FormatUint(uint64(o), 10)
	}
	return FuncEntryPrefix + name + "(" + strings.Join(parts, ",") + ")"
}

// inputOIDs are the types of the parameters a call passes.
func (m *FunctionMeta) inputOIDs() []uint32 {
	var out []uint32
	for _, a := range m.Args {
		if a.Input() {
			out = append(out, a.Type.OID)
		}
	}
	return out
}

// signature is how PostgreSQL names a function in messages: f(integer, text).
func signature(name string, oids []uint32) string {
	ts := make([]string, len(oids))
	for i, o := range oids {
		ts[i] = exec.FormatType(o, -1)
	}
	return name + "(" + strings.Join(ts, ", ") + ")"
}

// ExecFunction is the executor's description of a function entry.
func ExecFunction(e graph.TableEntry, name string, m TableMeta) *exec.FuncDef {
	f := m.Function
	d := &exec.FuncDef{OID: e.RelOID(), Schema: "public", Name: name, Owner: m.Owner,
		Ret: f.Ret.Exec(), RetSet: f.RetSet, Language: f.Language, Body: f.Body, Volatility: f.Volatility, Strict: f.Strict, Proc: f.Proc, Comment: m.Comment, ACL: m.ACL}
	for _, a := range f.Args {
		d.Args = append(d.Args, exec.FuncArg{Name: a.Name, Type: a.Type.Exec(), Mode: a.Mode, Default: a.Default})
	}
	d.RowOf = f.RowOf
	for _, a := range f.RowCols {
		d.RowCols = append(d.RowCols, exec.FuncArg{Name: a.Name, Type: a.Type.Exec(), Mode: a.Mode})
	}
	return d
}

// rowTypeOf reads a result type naming a table (RETURNS [SETOF]
// table): the table and its columns; ok false when it names none.
func (pc *planCtx) rowTypeOf(tn *q.TypeName) (string, []FuncArg, bool, error) {
	if len(tn.ArrayBounds) > 0 || tn.PctType {
		return "", nil, false, nil
	}
	name, err := typeEntryName(tn.Names)
	if err != nil {
		return "", nil, false, nil
	}
	_, m, ok, err := pc.v.table(name)
	if err != nil || !ok || m.Relkind != RelTable {
		return "", nil, false, err
	}
	var cols []FuncArg
	for _, c := range m.Columns {
		cols = append(cols, FuncArg{Name: c.Name, Type: c.Type, Mode: "t"})
	}
	return name, cols, true, nil
}

// functionsNamed lists the functions of a name.
func (pc *planCtx) functionsNamed(name string) ([]graph.TableEntry, []TableMeta, error) {
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, nil, err
	}
	var oe []graph.TableEntry
	var om []TableMeta
	for i, e := range es {
		if n, ok := FuncName(e.Name); ok && n == name && ms[i].Function != nil {
			oe, om = append(oe, e), append(om, ms[i])
		}
	}
	return oe, om, nil
}

// funcNameOf splits a function's qualified name (public and pg_catalog
// qualifiers are dropped, as for types).
func funcNameOf(names []*q.Node) (string, error) { return typeEntryName(names) }

// createFunction plans CREATE [OR REPLACE] FUNCTION.
func (pc *planCtx) createFunction(st *q.CreateFunctionStmt) ([]Change, error) {
	name, err := funcNameOf(st.Funcname)
	if err != nil {
		return nil, err
	}
	f := &FunctionMeta{Volatility: "v", Proc: st.IsProcedure}
	var outs []FuncArg
	for _, p := range st.Parameters {
		fp := p.GetFunctionParameter()
		if fp == nil {
			continue
		}
		rt, err := pc.resolveColumnType(fp.ArgType)
		if err != nil {
			if errCode(err) == CodeUndefinedObject {
				// PostgreSQL names an unknown parameter type unquoted
				return nil, errorf(CodeUndefinedObject, "type %s does not exist", strings.Join(stringList(fp.ArgType.Names), "."))
			}
			return nil, err
		}
		a := FuncArg{Name: fp.Name, Type: rt.PGType}
		switch fp.Mode {
		case q.FunctionParameterMode_FUNC_PARAM_IN, q.FunctionParameterMode_FUNC_PARAM_DEFAULT:
			a.Mode = "i"
		case q.FunctionParameterMode_FUNC_PARAM_OUT:
			a.Mode = "o"
			if f.Proc {
				// a procedure's OUT parameters are part of its call
				// signature (CALL passes NULL for them)
				return nil, notSupported("OUT parameters of procedures")
			}
		case q.FunctionParameterMode_FUNC_PARAM_INOUT:
			a.Mode = "b"
		case q.FunctionParameterMode_FUNC_PARAM_TABLE:
			a.Mode = "t"
		case q.FunctionParameterMode_FUNC_PARAM_VARIADIC:
			a.Mode = "v"
			if !a.Type.Exec().IsArray() {
				return nil, errorf(pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be an array")
			}
		}
		if a.Input() && len(f.Args) > 0 && f.Args[len(f.Args)-1].Mode == "v" {
			return nil, errorf(pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be the last input parameter")
		}
		if fp.Defexpr != nil {
			if !a.Input() {
				return nil, errorf(pgerr.InvalidFunctionDefinition, "only input parameters can have default values")
			}
			if a.Default, err = deparseExpr(fp.Defexpr); err != nil {
				return nil, err
			}
			if c := fp.Defexpr.GetAConst(); c != nil && c.GetSval() != nil {
				// stored coerced to the parameter's type, as PostgreSQL's
				// pg_get_function_arguments shows it
				a.Default += "::" + exec.FormatType(a.Type.OID, a.Type.Mod)
			}
		} else if a.Input() && len(f.Args) > 0 && f.Args[len(f.Args)-1].Default != "" {
			return nil, errorf(pgerr.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		}
		if a.Name != "" {
			for _, b := range f.Args {
				if b.Name == a.Name && (b.Input() == a.Input() || b.Output() == a.Output()) {
					return nil, errorf(pgerr.InvalidFunctionDefinition, "parameter name \"%s\" used more than once", a.Name)
				}
			}
		}
		f.Args = append(f.Args, a)
		if a.Output() {
			outs = append(outs, a)
		}
	}
	var ret PGType
	switch tn := st.ReturnType; {
	case f.Proc && len(outs) > 0:
		ret = PGType{OID: oidRecord, Mod: -1} // the INOUT parameters' row
	case f.Proc:
		ret = PGType{OID: oidVoid, Mod: -1}
	case tn != nil:
		f.RetSet = tn.Setof
		parts := stringList(tn.Names)
		switch last := parts[len(parts)-1]; {
		case last == "void" && len(tn.ArrayBounds) == 0:
			ret = PGType{OID: oidVoid, Mod: -1}
		case last == "trigger" && len(tn.ArrayBounds) == 0:
			ret = PGType{OID: oidTrigger, Mod: -1}
		case last == "record" && len(tn.ArrayBounds) == 0:
			ret = PGType{OID: oidRecord, Mod: -1}
		default:
			plain := &q.TypeName{Names: tn.Names, Typmods: tn.Typmods, ArrayBounds: tn.ArrayBounds, PctType: tn.PctType, Location: tn.Location}
			rt, err := pc.resolveColumnType(plain)
			if err != nil {
				table, cols, ok, terr := pc.rowTypeOf(plain)
				if terr != nil {
					return nil, terr
				}
				if !ok {
					return nil, err
				}
				f.RowOf, f.RowCols = table, cols
				ret = PGType{OID: oidRecord, Mod: -1}
				break
			}
			ret = rt.PGType
		}
	case len(outs) == 1:
		ret = outs[0].Type
	case len(outs) > 1:
		ret = PGType{OID: oidRecord, Mod: -1}
	default:
		return nil, errorf(pgerr.InvalidFunctionDefinition, "function result type must be specified")
	}
	if len(outs) > 0 && !f.Proc {
		want := PGType{OID: oidRecord, Mod: -1}
		if len(outs) == 1 {
			want = outs[0].Type
		}
		if ret.OID != want.OID {
			return nil, errorf(pgerr.InvalidFunctionDefinition, "function result type must be %s because of OUT parameters", exec.FormatType(want.OID, -1))
		}
		if ret.OID == oidRecord && len(outs) == 1 {
			return nil, errorf(pgerr.InvalidFunctionDefinition, "function result type must be %s because of OUT parameters", exec.FormatType(outs[0].Type.OID, -1))
		}
	}
	f.Ret = ret
	var lang string
	var body []string
	for _, o := range st.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if f.Proc && (d.Defname == "volatility" || d.Defname == "strict" || d.Defname == "cost" || d.Defname == "rows" || d.Defname == "parallel" || d.Defname == "leakproof" || d.Defname == "window") {
			return nil, errorf(pgerr.InvalidFunctionDefinition, "invalid attribute in procedure definition")
		}
		switch d.Defname {
		case "as":
			body = stringList(d.Arg.GetList().GetItems())
		case "language":
			lang = d.Arg.GetString_().GetSval()
		case "volatility":
			f.Volatility = d.Arg.GetString_().GetSval()[:1]
		case "strict":
			f.Strict = d.Arg.GetBoolean().GetBoolval()
		case "security":
			if d.Arg.GetBoolean().GetBoolval() {
				return nil, notSupported("SECURITY DEFINER functions")
			}
		case "window":
			return nil, notSupported("WINDOW functions")
		case "set":
			return nil, notSupported("CREATE FUNCTION … SET configuration_parameter")
		case "cost", "rows", "parallel", "leakproof":
			// planner hints PostgreSQL keeps in pg_proc; nothing here
			// plans by them
		default:
			return nil, notSupported("CREATE FUNCTION option %s", d.Defname)
		}
	}
	if st.SqlBody != nil {
		if lang != "" && lang != "sql" {
			return nil, errorf(pgerr.InvalidFunctionDefinition, "inline SQL function body only valid for language SQL")
		}
		lang = "sql"
		b, err := sqlBodyText(st.SqlBody)
		if err != nil {
			return nil, err
		}
		body = []string{b}
	}
	switch lang {
	case "":
		return nil, errorf(pgerr.InvalidFunctionDefinition, "no language specified")
	case "sql", "plpgsql":
	case "c", "internal":
		return nil, notSupported("LANGUAGE %s functions", lang)
	default:
		return nil, errorf(CodeUndefinedObject, "language \"%s\" does not exist", lang)
	}
	if len(body) == 0 {
		return nil, errorf(pgerr.InvalidFunctionDefinition, "no function body specified")
	}
	if len(body) > 1 {
		return nil, errorf(pgerr.InvalidFunctionDefinition, "only one AS item needed for language \"%s\"", lang)
	}
	f.Language, f.Body = lang, body[0]
	if ret.OID == oidTrigger && (lang != "plpgsql" || len(f.inputOIDs()) > 0) {
		if lang == "sql" {
			return nil, errorf(pgerr.InvalidFunctionDefinition, "SQL functions cannot return type trigger")
		}
		return nil, errorf(pgerr.InvalidFunctionDefinition, "trigger functions cannot have declared arguments").WithHint("The arguments of the trigger can be accessed through TG_NARGS and TG_ARGV instead.")
	}
	if lang == "sql" {
		if _, err := q.Parse(f.Body); err != nil {
			// the position would point into the body, not the statement
			return nil, errorf(CodeSyntaxError, "%s", err.Error())
		}
	}
	inputs := f.inputOIDs()
	entry := funcEntryName(name, inputs)
	m := TableMeta{Version: metaVersionFunctions, Relkind: RelFunction, Graph: GraphMeta{Kind: graph.RelationTable}, Function: f}
	e, old, exists, err := pc.v.table(entry)
	if err != nil {
		return nil, err
	}
	if exists && old.Function != nil {
		if !st.Replace {
			return nil, errorf(pgerr.DuplicateFunction, "function \"%s\" already exists with same argument types", name)
		}
		if old.Function.Proc != f.Proc {
			kind := map[bool]string{true: "procedure", false: "function"}[old.Function.Proc]
			return nil, errorf(CodeWrongObjectTypeDDL, "cannot change routine kind").WithDetail(fmt.Sprintf("\"%s\" is a %s.", name, kind))
		}
		if old.Function.Ret.OID != f.Ret.OID || old.Function.RetSet != f.RetSet {
			return nil, errorf(pgerr.InvalidFunctionDefinition, "cannot change return type of existing function").
				WithHint(fmt.Sprintf("Use DROP FUNCTION %s first.", signature(name, inputs)))
		}
		m.Owner, m.ACL, m.Comment = old.Owner, old.ACL, old.Comment
		def := e.Def
		def.Extra = m.Encode()
		tag := "CREATE FUNCTION"
		if f.Proc {
			tag = "CREATE PROCEDURE"
		}
		return []Change{&AlterTable{Name: e.Name, Def: def, Meta: m, CommandTag: tag}}, nil
	}
	return []Change{&CreateTable{Name: entry, Kind: graph.RelationTable, Def: viewDef(m, 0), Meta: m}}, nil
}

// sqlBodyText is the text of a SQL-standard body (RETURN expr, or BEGIN
// ATOMIC … END) as the statements it runs.
func sqlBodyText(n *q.Node) (string, error) {
	if rs := n.GetReturnStmt(); rs != nil {
		e, err := deparseExpr(rs.Returnval)
		if err != nil {
			return "", err
		}
		return "SELECT " + e, nil
	}
	var out []string
	for _, l := range n.GetList().GetItems() {
		for _, s := range l.GetList().GetItems() {
			if rs := s.GetReturnStmt(); rs != nil {
				e, err := deparseExpr(rs.Returnval)
				if err != nil {
					return "", err
				}
				out = append(out, "SELECT "+e)
				continue
			}
			text, err := q.Deparse(s)
			if err != nil {
				return "", err
			}
			out = append(out, text)
		}
	}
	return strings.Join(out, ";\n"), nil
}

// lookupFunction resolves a function named with or without an argument
// list (DROP FUNCTION, GRANT … ON FUNCTION, COMMENT ON FUNCTION).
// missing is PostgreSQL's error for a function that does not exist.
func (pc *planCtx) lookupFunction(owa *q.ObjectWithArgs) (e graph.TableEntry, m TableMeta, name string, inputs []uint32, missing *pgerr.Error, err error) {
	if name, err = funcNameOf(owa.Objname); err != nil {
		return
	}
	es, ms, err := pc.functionsNamed(name)
	if err != nil {
		return
	}
	if owa.ArgsUnspecified {
		switch len(es) {
		case 0:
			missing = errorf(CodeUndefinedFunctionDDL, "could not find a function named \"%s\"", name)
		case 1:
			e, m, inputs = es[0], ms[0], ms[0].Function.inputOIDs()
		default:
			err = errorf(pgerr.AmbiguousFunction, "function name \"%s\" is not unique", name).WithHint("Specify the argument list to select the function unambiguously.")
		}
		return
	}
	for _, a := range owa.Objargs {
		tn := a.GetTypeName()
		if tn == nil {
			continue
		}
		rt, rerr := pc.resolveColumnType(tn)
		if rerr != nil {
			return e, m, name, nil, nil, rerr
		}
		inputs = append(inputs, rt.OID)
	}
	want := funcEntryName(name, inputs)
	for i := range es {
		if es[i].Name == want {
			return es[i], ms[i], name, inputs, nil, nil
		}
	}
	missing = errorf(CodeUndefinedFunctionDDL, "function %s does not exist", signature(name, inputs))
	return
}

// CodeUndefinedFunctionDDL is 42883.
const CodeUndefinedFunctionDDL = pgerr.UndefinedFunction

// dropFunctions plans DROP FUNCTION.
func (pc *planCtx) dropFunctions(st *q.DropStmt) ([]Change, error) {
	kind := map[q.ObjectType]string{q.ObjectType_OBJECT_FUNCTION: "function", q.ObjectType_OBJECT_PROCEDURE: "procedure", q.ObjectType_OBJECT_ROUTINE: "routine"}[st.RemoveType]
	tag := "DROP " + strings.ToUpper(kind)
	var out []Change
	var ns []*pgerr.Error
	for _, o := range st.Objects {
		owa := o.GetObjectWithArgs()
		e, m, name, inputs, missing, err := pc.lookupFunction(owa)
		if err != nil {
			return nil, err
		}
		if missing != nil {
			if kind != "function" {
				missing.Message = strings.Replace(missing.Message, "function", kind, 1)
			}
			if !st.MissingOk {
				return nil, missing
			}
			ns = append(ns, notice(pgerr.SuccessfulCompletion, "%s %s(%s) does not exist, skipping", kind, name, writtenTypes(owa.Objargs)))
			continue
		}
		switch proc := m.Function.Proc; {
		case kind == "function" && proc:
			return nil, errorf(CodeWrongObjectTypeDDL, "%s is not a function", signature(name, inputs))
		case kind == "procedure" && !proc:
			return nil, errorf(CodeWrongObjectTypeDDL, "%s is not a procedure", signature(name, inputs))
		}
		if deps, err := pc.triggersUsing(name); err != nil {
			return nil, err
		} else if len(deps) > 0 && e.Name == funcEntryName(name, nil) {
			if st.Behavior == q.DropBehavior_DROP_CASCADE {
				return nil, notSupported("DROP FUNCTION … CASCADE of a function that triggers use")
			}
			return nil, errorf(CodeDependentObjects, "cannot drop function %s() because other objects depend on it", name).
				WithDetail(strings.Join(deps, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		out = append(out, &DropTable{Name: e.Name, CommandTag: tag})
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: tag, notes: notes{ns}}}, nil
	}
	out[0].(*DropTable).Notice = ns
	return out, nil
}

// CodeWrongObjectTypeDDL is 42809.
const CodeWrongObjectTypeDDL = pgerr.WrongObjectType

// writtenTypes lists argument types as the statement spelled them, after
// the grammar's mapping (int is pg_catalog.int4), as PostgreSQL's
// "does not exist, skipping" notice shows them.
func writtenTypes(args []*q.Node) string {
	var out []string
	for _, a := range args {
		tn := a.GetTypeName()
		if tn == nil {
			continue
		}
		s := strings.Join(stringList(tn.Names), ".")
		for range tn.ArrayBounds {
			s += "[]"
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}
