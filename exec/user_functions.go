package exec

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

// User functions (CREATE FUNCTION … LANGUAGE sql | plpgsql).
//
// The definitions are per catalog (a branch, a snapshot, the open
// transaction's own CREATE FUNCTION): the binder takes them from its
// catalog (FunctionCatalog) and binds a call to one after the built-in
// functions of that name, as PostgreSQL's resolution finds pg_catalog's
// functions first on the search path. The body is not run by the
// executor: a call evaluates its arguments, hands them as text to the
// session (Session.CallFunction), which runs the body as its statements
// (the planner's PL/pgSQL interpreter, or the SQL statements with the
// arguments put in), and reads the result text back as the declared
// result type, row by row. A STRICT function is not called for a row
// with a NULL argument; a VOLATILE one counts as a volatile call
// (evaluated per row, in row order, never moved or folded). pg_proc
// lists them with the catalog's other functions.

// FuncDef is one user function.
type FuncDef struct {
	OID        uint32
	Schema     string
	Name       string
	Args       []FuncArg // every parameter in order
	Ret        Type      // void, trigger, record (several result columns)
	RetSet     bool
	Language   string // "sql" or "plpgsql"
	Body       string
	Volatility string // provolatile: i, s, v
	Strict     bool
	Proc       bool // a procedure (CALL), pg_proc.prokind 'p'
	// RowOf: RETURNS [SETOF] table, whose columns (as of CREATE
	// FUNCTION) RowCols lists; Ret is then record
	RowOf   string
	RowCols []FuncArg
	Owner   uint32 // 0: the bootstrap superuser
	Comment string
	// ACL is proacl (nil: PostgreSQL's default, PUBLIC and the owner
	// hold EXECUTE); calls check it (function_acl.go).
	ACL *access.TableACL
}

// FuncArg is one parameter; Mode is proargmodes' letter (i, o, b, v, t).
type FuncArg struct {
	Name    string
	Type    Type
	Mode    string
	Default string // SQL text of DEFAULT ("" = none)
}

// Input reports a parameter a call passes (IN, INOUT, VARIADIC).
func (a FuncArg) Input() bool { return a.Mode == "i" || a.Mode == "b" || a.Mode == "v" }

// Inputs lists the parameters a call passes.
func (f *FuncDef) Inputs() []FuncArg {
	var out []FuncArg
	for _, a := range f.Args {
		if a.Input() {
			out = append(out, a)
		}
	}
	return out
}

// Signature is how PostgreSQL's CONTEXT lines name the function
// (format_procedure): f(integer,text).
func (f *FuncDef) Signature() string {
	var ts []string
	for _, a := range f.Inputs() {
		ts = append(ts, FormatType(a.Type.OID, -1))
	}
	return f.Name + "(" + strings.Join(ts, ",") + ")"
}

// FunctionCatalog is an optional extension of Catalog for catalogs that
// hold user functions.
type FunctionCatalog interface {
	Functions() []*FuncDef
}

// CallFunction runs a user function's body with its input arguments
// (text, nil for NULL) and returns its result rows as text (one column
// for a scalar result).
type CallFunction func(ctx context.Context, f *FuncDef, args []*string) ([][]*string, error)

// functions lists the catalog's user functions.
func (c *catalogSet) functions() []*FuncDef {
	fc, ok := c.user.(FunctionCatalog)
	if !ok || c.user == nil {
		return nil
	}
	fs := fc.Functions()
	for _, f := range fs {
		registerUserProc(f)
	}
	return fs
}

// userProcs describes user functions by OID for pg_get_function_*
// (whose kernels see no catalog); an OID names one entry for its whole
// life, so the latest description registered is the one shown.
var userProcs sync.Map // uint32 → *FuncDef

func registerUserProc(f *FuncDef) { userProcs.Store(f.OID, f) }

func userProcByOID(oid uint32) (*FuncDef, bool) {
	v, ok := userProcs.Load(oid)
	if !ok {
		return nil, false
	}
	return v.(*FuncDef), true
}

// userCall binds a call of a user function named name; handled false
// when the catalog has none of that name.
func (b *binder) userCall(name string, args []Expr) (Expr, bool, error) {
	ua := make([]userArg, len(args))
	for i, a := range args {
		ua[i] = userArg{e: a}
	}
	return b.userCallArgs(name, ua, false)
}

// userCallArgs binds a call with named or VARIADIC arguments
// (user_calls.go).
func (b *binder) userCallArgs(name string, args []userArg, variadic bool) (Expr, bool, error) {
	best, out, ok, err := b.resolveUser(name, args, variadic, false)
	if !ok && b.hasUserFunction(name, true) {
		if _, _, _, perr := b.resolveUser(name, args, variadic, true); perr == nil {
			return nil, true, &Error{Code: CodeWrongObjectType, Message: callSignature(name, args) + " is a procedure", Hint: "To call a procedure, use CALL."}
		}
	}
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := b.cat.checkExecute(best); err != nil {
		return nil, true, err // function_acl.go
	}
	e, err := b.userExpr(best, out)
	return e, true, err
}

// userExpr is the call of function best with its input arguments out
// (in parameter order, coerced).
func (b *binder) userExpr(best *FuncDef, out []Expr) (Expr, error) {
	name := best.Name
	if best.RetSet {
		return nil, unsupported("set-returning function %s() is only supported in FROM and at the top level of a select list", name)
	}
	t := best.ResultType()
	if t.OID == OIDRecord && t.Mod < 0 {
		return nil, unsupported("calling function %s(), which returns a record, outside FROM with a column definition list is not supported", name)
	}
	if best.Ret.OID == OIDTrigger {
		return nil, &Error{Code: CodeFeatureNotSupported, Message: "trigger functions can only be called as triggers"}
	}
	call := b.cat.callFn
	if call == nil {
		return nil, unsupported("calling function %s() outside a session is not supported", name)
	}
	if best.Volatility == "v" {
		b.volatile = true // a binding that ran no body still must not be reused across catalogs
	}
	return &opExpr{name: name, t: t, args: out, k: userKernel(best, t, call), strict: best.Strict, volatile: best.Volatility == "v"}, nil
}

// ResultType is the type of one result row of f: its declared result,
// or for OUT parameters the record of them (an anonymous record when
// its columns come from a column definition list).
func (f *FuncDef) ResultType() Type {
	if f.Ret.OID != OIDRecord {
		return f.Ret
	}
	var fields []RecordField
	for _, a := range append(slices.Clone(f.Args), f.RowCols...) {
		if a.Mode == "o" || a.Mode == "b" || a.Mode == "t" {
			name := a.Name
			if name == "" {
				name = "column" + strconv.Itoa(len(fields)+1)
			}
			fields = append(fields, RecordField{Name: name, Type: a.Type})
		}
	}
	if len(fields) == 0 {
		return f.Ret
	}
	return RecordType(fields)
}

// bindDefault binds a parameter's DEFAULT expression (no columns in
// scope).
func (b *binder) bindDefault(text string) (Expr, error) {
	tree, err := sqlparse.Parse("SELECT " + text)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, ParseError(err)
	}
	t := tree.Stmts[0].Stmt.GetSelectStmt().GetTargetList()
	if len(t) != 1 {
		return nil, errf(CodeSyntaxError, "invalid default expression %s", text)
	}
	return b.bindExpr(t[0].GetResTarget().GetVal(), newScope(nil))
}

// userKernel calls f once per row; t is its result type (a record
// built from the result row's columns).
func userKernel(f *FuncDef, t Type, call CallFunction) kernel {
	return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		texts := make([]*string, len(a))
		for _, i := range sel {
			for j, v := range a {
				texts[j] = nil
				if s, ok := FormatText(v, int(i), ec.loc); ok {
					texts[j] = &s
				}
			}
			rows, err := call(ec.run.ctx, f, texts)
			if err != nil {
				return err
			}
			if f.Ret.OID == OIDVoid {
				continue // void's one value
			}
			if t.OID == OIDRecord {
				if len(rows) == 0 || rows[0] == nil {
					out.SetNull(int(i))
					continue
				}
				out.A[i] = newRecord(t, rows[0])
				continue
			}
			if len(rows) == 0 || len(rows[0]) == 0 || rows[0][0] == nil {
				out.SetNull(int(i))
				continue
			}
			if err := parseText(out, int(i), *rows[0][0], ec.loc); err != nil {
				return err
			}
		}
		return nil
	}
}

// PostgreSQL's language OIDs (pg_language).
const (
	oidLangSQL     = 14
	oidLangPlpgsql = 13563
)

// procFact describes f as a pg_proc row.
func (f *FuncDef) procFact() *pgProcFact {
	p := &pgProcFact{oid: f.OID, nsp: "public", name: f.Name, kind: 'f', lang: oidLangSQL, cost: 100,
		strict: f.Strict, retset: f.RetSet, volatile: f.Volatility[0], parallel: 'u', ret: f.Ret.OID, src: f.Body, args: []uint32{}}
	if f.Language == "plpgsql" {
		p.lang = oidLangPlpgsql
	}
	if f.Proc {
		p.kind = 'p'
	}
	if f.RetSet {
		p.rows = 1000
	}
	var args, ident []string
	outs := 0
	allIn := true
	named := false
	var table []string
	for _, a := range f.Args {
		t := FormatType(a.Type.OID, a.Type.Mod)
		p.allArgs = append(p.allArgs, a.Type.OID)
		p.modes = append(p.modes, a.Mode)
		allIn = allIn && a.Mode == "i"
		p.argNames = append(p.argNames, a.Name)
		named = named || a.Name != ""
		if a.Mode == "t" {
			table = append(table, strings.TrimSpace(quoteIdentIfNeeded(a.Name)+" "+t))
			outs++
			continue
		}
		prefix := map[string]string{"o": "OUT ", "b": "INOUT ", "v": "VARIADIC "}[a.Mode]
		if f.Proc && a.Mode == "i" {
			prefix = "IN " // as pg_get_function_arguments shows a procedure's
		}
		text := prefix + strings.TrimSpace(quoteIdentIfNeeded(a.Name)+" "+t)
		if a.Mode == "v" {
			p.variadic = a.Type.Elem().OID
		}
		if a.Input() {
			p.args = append(p.args, a.Type.OID)
			p.nargs++
			if a.Default != "" {
				p.nargdefaults++
			}
			ident = append(ident, text)
		} else {
			outs++
		}
		if a.Default != "" {
			text += " DEFAULT " + a.Default
		}
		args = append(args, text)
	}
	if allIn {
		p.allArgs, p.modes = nil, nil
	}
	if !named {
		p.argNames = nil
	}
	p.argsText = strings.Join(args, ", ")
	p.identArgsText = strings.Join(ident, ", ")
	p.resultText = FormatType(f.Ret.OID, f.Ret.Mod)
	if f.RowOf != "" {
		p.resultText = f.RowOf
	}
	switch {
	case len(table) > 0:
		p.resultText = "TABLE(" + strings.Join(table, ", ") + ")"
	case f.RetSet:
		p.resultText = "SETOF " + p.resultText
	}
	return p
}

func quoteIdentIfNeeded(s string) string {
	if s == "" {
		return ""
	}
	return quoteIdent(s)
}

// userProcOwner is a user function's proowner.
func userProcOwner(oid uint32) uint32 {
	if f, ok := userProcByOID(oid); ok && f.Owner != 0 {
		return f.Owner
	}
	return oidPostgresRole
}

// SetText stores the text input s, read as v's type, at row i (a
// trigger's row written back).
func SetText(v *Vec, i int, s string, loc *time.Location) error { return parseText(v, i, s, loc) }

// TriggerDef is one trigger of a table (pg_trigger).
type TriggerDef struct {
	OID      uint32
	Table    uint32 // the table's OID
	Name     string
	Function string // the trigger function's name (no arguments)
	Type     int16  // tgtype
	Enabled  bool
	Attrs    []int16  // UPDATE OF columns (attnums)
	When     string   // SQL text of WHEN ("" = none)
	Args     []string // EXECUTE FUNCTION f('a', …) arguments
}

// TriggerCatalog is an optional extension of Catalog for catalogs whose
// tables have triggers.
type TriggerCatalog interface {
	Triggers() []*TriggerDef
}

// triggerRows are pg_trigger's rows. tgqual (a node tree) is not
// reproduced: NULL.
func triggerRows(c *catalogSet) [][]any {
	tc, ok := c.user.(TriggerCatalog)
	if !ok || c.user == nil {
		return nil
	}
	var rows [][]any
	for _, t := range tc.Triggers() {
		var fn uint32
		for _, f := range c.functions() {
			if f.Name == t.Function && len(f.Inputs()) == 0 {
				fn = f.OID
			}
		}
		enabled := "O"
		if !t.Enabled {
			enabled = "D"
		}
		attrs := t.Attrs
		if attrs == nil {
			attrs = []int16{}
		}
		var args strings.Builder // tgargs (bytea): each argument NUL-terminated
		for _, a := range t.Args {
			args.WriteString(a)
			args.WriteByte(0)
		}
		rows = append(rows, []any{t.OID, t.Table, uint32(0), t.Name, fn, t.Type, enabled, false, uint32(0), uint32(0), uint32(0),
			false, false, int16(len(t.Args)), attrs, args.String(), nil, nil, nil})
	}
	return rows
}

// userRegprocedure resolves 'name(type, …)' among the catalog's user
// functions (nil: none).
func (c *catalogSet) userRegprocedure(s string) *FuncDef {
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open <= 0 || close < open {
		return nil
	}
	parts := splitQualified(strings.TrimSpace(s[:open]))
	if len(parts) == 2 && parts[0] != "public" || len(parts) > 2 {
		return nil
	}
	var want []uint32
	if args := strings.TrimSpace(s[open+1 : close]); args != "" {
		for _, a := range strings.Split(args, ",") {
			oid, err := (&catalogSet{}).regLookup(OIDRegtype, strings.TrimSpace(a))
			if err != nil {
				return nil
			}
			want = append(want, oid)
		}
	}
	for _, f := range c.functions() {
		if f.Name != parts[len(parts)-1] {
			continue
		}
		var have []uint32
		for _, a := range f.Inputs() {
			have = append(have, a.Type.OID)
		}
		if slices.Equal(have, want) {
			return f
		}
	}
	return nil
}

// userFunctionByOID is the catalog's user function of that OID (nil:
// none).
func (c *catalogSet) userFunctionByOID(oid uint32) *FuncDef {
	for _, f := range c.functions() {
		if f.OID == oid {
			return f
		}
	}
	return nil
}
