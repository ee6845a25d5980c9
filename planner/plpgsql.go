package planner

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// The PL/pgSQL subset DO blocks run (do.go): what ORMs and migration
// tools emit — blocks with EXCEPTION WHEN … handlers, IF/ELSIF/ELSE,
// SQL statements, PERFORM, EXECUTE of a string, RAISE, NULL, RETURN.
// The body is compiled by PostgreSQL's own PL/pgSQL grammar
// (sqlparse.ParsePLpgSQL); its JSON is turned into the tree below, and a
// construct outside the subset (variables, loops, CASE, cursors, GET
// DIAGNOSTICS, …) is refused with 0A000 naming it before anything runs.

// plStmt is one PL/pgSQL statement.
type plStmt interface{ line() int }

type plBlock struct {
	lineno   int
	label    string
	decls    []plVarDecl // a nested block's DECLARE section (the outermost's are plProgram.vars)
	body     []plStmt
	handlers []plHandler // EXCEPTION WHEN … THEN …
}

type plHandler struct {
	conds []string // condition names, or SQLSTATEs of WHEN SQLSTATE '…'
	body  []plStmt
}

type plSQL struct { // a SQL statement
	lineno int
	sql    string
	into   *plTarget // SELECT/… INTO (nil: none)
	strict bool
}

// plTarget is where a row goes: variables in order, or one record.
type plTarget struct {
	names []string
}

// plVarDecl is a declared variable (DECLARE, or a FOR loop's).
type plVarDecl struct {
	line    int
	name    string
	typ     string // the declared type's text ("" for a record)
	def     string // the default expression ("" = NULL)
	notNull bool
	rec     bool
}

type plAssign struct { // name[.field] := expr
	lineno int
	name   string
	field  string // a record's field ("" = the variable)
	expr   string
	text   string // the whole assignment, for CONTEXT
}

type plLoop struct { // LOOP, or WHILE cond LOOP
	lineno int
	label  string
	cond   string // "" for LOOP
	body   []plStmt
}

type plForInt struct { // FOR name IN [REVERSE] lower..upper [BY step] LOOP
	lineno             int
	label              string
	name               string
	lower, upper, step string
	reverse            bool
	body               []plStmt
}

type plForQuery struct { // FOR target IN query LOOP
	lineno int
	label  string
	target plTarget
	query  string
	body   []plStmt
}

type plExit struct { // EXIT / CONTINUE [label] [WHEN cond]
	lineno int
	exit   bool
	label  string
	cond   string
}

type plPerform struct {
	lineno int
	sql    string // SELECT …
}

type plExecute struct { // EXECUTE expr [INTO [STRICT] target] [USING expr, …]
	lineno int
	expr   string
	into   *plTarget
	strict bool
	params []string
}

type plIf struct {
	lineno int
	arms   []plArm // IF and ELSIF arms in order
	els    []plStmt
}

type plArm struct {
	cond string
	body []plStmt
}

type plRaise struct {
	lineno   int
	level    int    // PostgreSQL's elog level
	condname string // RAISE condition / RAISE SQLSTATE '…'
	message  string // the format ("%" placeholders)
	params   []string
	options  []plRaiseOption
	reraise  bool // RAISE; inside a handler
}

type plRaiseOption struct {
	kind int // PostgreSQL's PLpgSQL_raise_option_type
	expr string
}

// plReturn is RETURN [expr]: expr is its expression, or varno the
// variable it returns (a record or row, which PL/pgSQL's grammar keeps
// as a datum number; -1 when neither).
type plReturn struct {
	lineno int
	expr   string
	varno  int
}

// plReturnNext is RETURN NEXT [expr] (varno as plReturn's; -2 when the
// grammar's output cannot tell "no expression" from datum 0) or RETURN
// QUERY query.
type plReturnNext struct {
	lineno int
	expr   string
	varno  int
	query  string
}

type plGetDiag struct { // GET [CURRENT | STACKED] DIAGNOSTICS var = item, …
	lineno  int
	stacked bool
	items   []plDiagItem
}

type plDiagItem struct {
	kind   string // ROW_COUNT, MESSAGE_TEXT, …
	target int    // the variable's datum number (plProgram.names)
}

func (b *plBlock) line() int      { return b.lineno }
func (s *plSQL) line() int        { return s.lineno }
func (s *plPerform) line() int    { return s.lineno }
func (s *plExecute) line() int    { return s.lineno }
func (s *plIf) line() int         { return s.lineno }
func (s *plRaise) line() int      { return s.lineno }
func (s *plReturn) line() int     { return s.lineno }
func (s *plAssign) line() int     { return s.lineno }
func (s *plLoop) line() int       { return s.lineno }
func (s *plForInt) line() int     { return s.lineno }
func (s *plForQuery) line() int   { return s.lineno }
func (s *plExit) line() int       { return s.lineno }
func (s *plGetDiag) line() int    { return s.lineno }
func (s *plReturnNext) line() int { return s.lineno }

// PostgreSQL's elog levels as PL/pgSQL's RAISE records them.
const (
	elogLog     = 15
	elogInfo    = 17
	elogNotice  = 18
	elogWarning = 19
	elogError   = 21
)

// raise option kinds (PLpgSQL_raise_option_type)
const (
	raiseErrcode = iota
	raiseMessage
	raiseDetail
	raiseHint
)

// plUnsupported names the statements outside the subset.
var plUnsupported = map[string]string{
	"PLpgSQL_stmt_forc":    "FOR … IN cursor",
	"PLpgSQL_stmt_assert":  "ASSERT",
	"PLpgSQL_stmt_dynfors": "FOR … IN EXECUTE", "PLpgSQL_stmt_open": "OPEN",
	"PLpgSQL_stmt_fetch": "FETCH", "PLpgSQL_stmt_close": "CLOSE",
	"PLpgSQL_stmt_commit": "COMMIT", "PLpgSQL_stmt_rollback": "ROLLBACK",
}

// plVariables are the variables every DO body has (FOUND) or a block
// with handlers adds (SQLSTATE, SQLERRM); do.go gives their values.
var plVariables = []string{"found", "sqlstate", "sqlerrm"}

func plRefuse(what string) *wire.Error {
	return wire.Errorf(wire.CodeFeatureNotSupported, "%s in a DO block is not supported", what).
		WithHint("DO blocks run variables of the outermost block, assignments, blocks with EXCEPTION handlers, IF, LOOP, WHILE, FOR over integers and queries, EXIT/CONTINUE, SQL statements (… INTO), PERFORM, EXECUTE of a string, GET DIAGNOSTICS, RAISE, NULL and RETURN (docs/sql.md).")
}

// plProgram is a compiled DO body.
type plProgram struct {
	body  *plBlock
	vars  []plVarDecl
	names []string // variable names by datum number (GET DIAGNOSTICS targets)
}

// compileDo turns a DO statement (its PL/pgSQL body is body) into its
// tree.
func compileDo(sql, body string) (*plProgram, error) { return compilePL(sql, body, nil) }

// compilePL compiles a DO block's or a function's (fn) body.
func compilePL(sql, body string, target *exec.FuncDef) (*plProgram, error) {
	text, err := sqlparse.ParsePLpgSQL(sql)
	if err != nil {
		return nil, err
	}
	var fns []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &fns); err != nil || len(fns) != 1 {
		return nil, fmt.Errorf("PL/pgSQL compiler output: %v", err)
	}
	var fn struct {
		Datums []map[string]json.RawMessage `json:"datums"`
		Action map[string]json.RawMessage   `json:"action"`
	}
	if err := json.Unmarshal(fns[0]["PLpgSQL_function"], &fn); err != nil {
		return nil, fmt.Errorf("PL/pgSQL compiler output: %v", err)
	}
	stmts, err := plStmts([]map[string]json.RawMessage{fn.Action})
	if err != nil {
		return nil, err
	}
	prog := &plProgram{}
	var decls []plVarDecl
	for _, d := range fn.Datums {
		prog.names = append(prog.names, "")
		for kind, raw := range d {
			var v struct {
				Refname  string `json:"refname"`
				Lineno   int    `json:"lineno"`
				Notnull  bool   `json:"notnull"`
				Datatype struct {
					Type struct {
						Typname string `json:"typname"`
					} `json:"PLpgSQL_type"`
				} `json:"datatype"`
				Default *plExprJSON `json:"default_val"`
			}
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, err
			}
			prog.names[len(prog.names)-1] = v.Refname
			switch kind {
			case "PLpgSQL_row", "PLpgSQL_recfield":
				continue // INTO targets and record fields, read where used
			case "PLpgSQL_var":
				if slices.Contains(plVariables, v.Refname) {
					continue
				}
			case "PLpgSQL_rec":
			default:
				return nil, plRefuse(strings.TrimPrefix(kind, "PLpgSQL_") + " variables")
			}
			decl := plVarDecl{line: v.Lineno, name: v.Refname, typ: strings.TrimSpace(v.Datatype.Type.Typname), notNull: v.Notnull, rec: kind == "PLpgSQL_rec"}
			if v.Default != nil {
				decl.def = v.Default.Expr.Query
			}
			decls = append(decls, decl)
		}
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("PL/pgSQL compiler output: %d top-level statements", len(stmts))
	}
	b, ok := stmts[0].(*plBlock)
	if !ok {
		return nil, fmt.Errorf("PL/pgSQL compiler output: top level is no block")
	}
	prog.body = b
	if err := placeDeclarations(prog, decls); err != nil {
		return nil, err
	}
	resolveControlNames(b, prog.names)
	if err := returnNextVariables(b, body); err != nil {
		return nil, err
	}
	if err := checkReturns([]plStmt{b}, target); err != nil {
		return nil, err
	}
	return prog, nil
}

// placeDeclarations puts each declared variable in its block. The
// compiler's output lists the variables without their blocks, but a
// block's DECLARE section ends where its BEGIN starts, and no other
// block begins in between: a variable belongs to the first block whose
// BEGIN line is not before the declaration's line. The outermost
// block's variables (and parameters, FOR loops' own variables and CASE's
// hidden ones) exist for the whole run; a nested block's are declared
// afresh each time it is entered and hide outer ones of the same name
// until it ends (do.go).
func placeDeclarations(prog *plProgram, decls []plVarDecl) error {
	top := prog.body
	var nested []*plBlock
	loopVars := map[string]int{} // FOR i IN a..b: the line of i's loop
	walkPL([]plStmt{top}, func(st plStmt) {
		switch x := st.(type) {
		case *plBlock:
			if x != top {
				nested = append(nested, x)
			}
		case *plForInt:
			loopVars[x.name] = x.lineno
		}
	})
	seen := map[string]bool{}
	for _, d := range decls {
		var owner *plBlock
		implicit := d.line == 0 || strings.HasPrefix(d.name, "__Case__Variable_") || loopVars[d.name] == d.line && !d.rec
		if !implicit {
			all := append([]*plBlock{top}, nested...)
			for _, b := range all {
				if b.lineno >= d.line && (owner == nil || b.lineno < owner.lineno) {
					owner = b
				}
			}
			for _, b := range all {
				if owner != nil && b != owner && b.lineno == owner.lineno {
					return plRefuse("DECLARE sections of several blocks beginning on one line")
				}
			}
			if owner == top {
				owner = nil
			}
		}
		if owner != nil {
			owner.decls = append(owner.decls, d)
			continue
		}
		if seen[d.name] {
			// a FOR loop's own variable of a name already declared: the
			// loop keeps the outer value aside while it runs
			continue
		}
		seen[d.name] = true
		prog.vars = append(prog.vars, d)
	}
	return nil
}

// returnNextVariables names the variable of each RETURN NEXT var: the
// compiler's output keeps it only as a datum number it does not print,
// so it is read from the statement's line of the body.
func returnNextVariables(b *plBlock, body string) error {
	lines := strings.Split(body, "\n")
	var err error
	walkPL([]plStmt{b}, func(st plStmt) {
		x, ok := st.(*plReturnNext)
		if !ok || err != nil || x.expr != "" || x.query != "" || x.varno != -2 || x.lineno < 1 || x.lineno > len(lines) {
			return
		}
		m := returnNextRE.FindAllStringSubmatch(lines[x.lineno-1], -1)
		if len(m) != 1 {
			if len(m) > 1 {
				err = plRefuse("several RETURN NEXT statements on one line")
			}
			return
		}
		x.expr = m[0][1]
	})
	return err
}

var returnNextRE = regexp.MustCompile(`(?i)\breturn\s+next\s+([A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")\s*;`)

// walkPL calls fn for every statement of list, nested ones included.
func walkPL(list []plStmt, fn func(plStmt)) {
	for _, st := range list {
		fn(st)
		switch x := st.(type) {
		case *plBlock:
			walkPL(x.body, fn)
			for _, h := range x.handlers {
				walkPL(h.body, fn)
			}
		case *plLoop:
			walkPL(x.body, fn)
		case *plForInt:
			walkPL(x.body, fn)
		case *plForQuery:
			walkPL(x.body, fn)
		case *plIf:
			for _, a := range x.arms {
				walkPL(a.body, fn)
			}
			walkPL(x.els, fn)
		case *plCase:
			for _, a := range x.arms {
				walkPL(a.body, fn)
			}
			walkPL(x.els, fn)
		case *plForeach:
			walkPL(x.body, fn)
		}
	}
}

type plExprJSON struct {
	Expr struct {
		Query string `json:"query"`
	} `json:"PLpgSQL_expr"`
}

// plExpr reads an expression's text (do.go puts the values of the
// variables it reads in).
func plExpr(raw json.RawMessage) (string, error) {
	var e plExprJSON
	if err := json.Unmarshal(raw, &e); err != nil {
		return "", err
	}
	return e.Expr.Query, nil
}

// plTargetOf reads an INTO or FOR target: a row of variables or a record.
func plTargetOf(raw json.RawMessage) (*plTarget, error) {
	var t map[string]struct {
		Refname string `json:"refname"`
		Fields  []struct {
			Name string `json:"name"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	out := &plTarget{}
	for kind, v := range t {
		switch kind {
		case "PLpgSQL_row":
			for _, f := range v.Fields {
				out.names = append(out.names, f.Name)
			}
		case "PLpgSQL_rec", "PLpgSQL_var":
			out.names = []string{v.Refname}
		default:
			return nil, plRefuse("this INTO target")
		}
	}
	for _, n := range out.names {
		if slices.Contains(plVariables, n) {
			return nil, plRefuse("INTO " + strings.ToUpper(n))
		}
	}
	return out, nil
}

var assignRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")(?:\s*\.\s*([A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+"))?\s*(?::=|=)\s*((?s).*)$`)

func plStmts(list []map[string]json.RawMessage) ([]plStmt, error) {
	var out []plStmt
	for _, node := range list {
		for kind, raw := range node {
			s, err := plStatement(kind, raw)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

func plStatement(kind string, raw json.RawMessage) (plStmt, error) {
	var x struct {
		Lineno     int                          `json:"lineno"`
		Body       []map[string]json.RawMessage `json:"body"`
		Exceptions *struct {
			Block struct {
				List []struct {
					Exc struct {
						Conditions []struct {
							Cond struct {
								Name string `json:"condname"`
							} `json:"PLpgSQL_condition"`
						} `json:"conditions"`
						Action []map[string]json.RawMessage `json:"action"`
					} `json:"PLpgSQL_exception"`
				} `json:"exc_list"`
			} `json:"PLpgSQL_exception_block"`
		} `json:"exceptions"`
		SQLStmt  json.RawMessage              `json:"sqlstmt"`
		Expr     json.RawMessage              `json:"expr"`
		Query    json.RawMessage              `json:"query"`
		Into     bool                         `json:"into"`
		Params   []json.RawMessage            `json:"params"`
		Cond     json.RawMessage              `json:"cond"`
		Then     []map[string]json.RawMessage `json:"then_body"`
		Elsif    []map[string]json.RawMessage `json:"elsif_list"`
		Else     []map[string]json.RawMessage `json:"else_body"`
		Level    int                          `json:"elog_level"`
		Condname string                       `json:"condname"`
		Message  *string                      `json:"message"`
		Options  []struct {
			Opt struct {
				Type int             `json:"opt_type"`
				Expr json.RawMessage `json:"expr"`
			} `json:"PLpgSQL_raise_option"`
		} `json:"options"`
		Expr2     *int            `json:"retvarno"`
		Strict    bool            `json:"strict"`
		Target    json.RawMessage `json:"target"`
		Var       json.RawMessage `json:"var"`
		Lower     json.RawMessage `json:"lower"`
		Upper     json.RawMessage `json:"upper"`
		Step      json.RawMessage `json:"step"`
		Reverse   bool            `json:"reverse"`
		Label     string          `json:"label"`
		IsExit    bool            `json:"is_exit"`
		Stacked   bool            `json:"is_stacked"`
		DiagItems []struct {
			Item struct {
				Kind   string `json:"kind"`
				Target int    `json:"target"`
			} `json:"PLpgSQL_diag_item"`
		} `json:"diag_items"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, err
	}
	switch kind {
	case "PLpgSQL_stmt_block":
		b := &plBlock{lineno: x.Lineno, label: x.Label}
		var err error
		if b.body, err = plStmts(x.Body); err != nil {
			return nil, err
		}
		if x.Exceptions != nil {
			for _, e := range x.Exceptions.Block.List {
				h := plHandler{}
				for _, c := range e.Exc.Conditions {
					name := c.Cond.Name
					if pgerr.ConditionCodes(name) == nil && name != "others" && !isSQLState(name) {
						return nil, wire.Errorf(pgerr.UndefinedObject, "unrecognized exception condition \"%s\"", name)
					}
					h.conds = append(h.conds, name)
				}
				if h.body, err = plStmts(e.Exc.Action); err != nil {
					return nil, err
				}
				b.handlers = append(b.handlers, h)
			}
		}
		return b, nil
	case "PLpgSQL_stmt_execsql":
		q, err := plExpr(x.SQLStmt)
		if err != nil {
			return nil, err
		}
		st := &plSQL{lineno: x.Lineno, sql: q, strict: x.Strict}
		if x.Into {
			if st.into, err = plTargetOf(x.Target); err != nil {
				return nil, err
			}
		}
		return st, nil
	case "PLpgSQL_stmt_assign":
		q, err := plExpr(x.Expr)
		if err != nil {
			return nil, err
		}
		m := assignRE.FindStringSubmatch(q)
		if m == nil {
			return nil, plRefuse("assignment to a record field or an array element")
		}
		ident := func(s string) string {
			if strings.HasPrefix(s, `"`) {
				return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
			}
			return strings.ToLower(s)
		}
		a := &plAssign{lineno: x.Lineno, name: ident(m[1]), expr: m[3], text: q}
		if m[2] != "" {
			a.field = ident(m[2])
		}
		return a, nil
	case "PLpgSQL_stmt_loop", "PLpgSQL_stmt_while":
		l := &plLoop{lineno: x.Lineno, label: x.Label}
		var err error
		if kind == "PLpgSQL_stmt_while" {
			if l.cond, err = plExpr(x.Cond); err != nil {
				return nil, err
			}
		}
		l.body, err = plStmts(x.Body)
		return l, err
	case "PLpgSQL_stmt_exit":
		e := &plExit{lineno: x.Lineno, exit: x.IsExit, label: x.Label}
		if x.Cond != nil {
			var err error
			if e.cond, err = plExpr(x.Cond); err != nil {
				return nil, err
			}
		}
		return e, nil
	case "PLpgSQL_stmt_fori":
		var v map[string]struct {
			Refname string `json:"refname"`
		}
		if err := json.Unmarshal(x.Var, &v); err != nil {
			return nil, err
		}
		f := &plForInt{lineno: x.Lineno, label: x.Label, name: v["PLpgSQL_var"].Refname, reverse: x.Reverse, step: "1"}
		var err error
		if f.lower, err = plExpr(x.Lower); err != nil {
			return nil, err
		}
		if f.upper, err = plExpr(x.Upper); err != nil {
			return nil, err
		}
		if x.Step != nil {
			if f.step, err = plExpr(x.Step); err != nil {
				return nil, err
			}
		}
		f.body, err = plStmts(x.Body)
		return f, err
	case "PLpgSQL_stmt_fors":
		t, err := plTargetOf(x.Var)
		if err != nil {
			return nil, err
		}
		f := &plForQuery{lineno: x.Lineno, label: x.Label, target: *t}
		if f.query, err = plExpr(x.Query); err != nil {
			return nil, err
		}
		f.body, err = plStmts(x.Body)
		return f, err
	case "PLpgSQL_stmt_perform":
		q, err := plExpr(x.Expr)
		return &plPerform{lineno: x.Lineno, sql: q}, err
	case "PLpgSQL_stmt_dynexecute":
		q, err := plExpr(x.Query)
		if err != nil {
			return nil, err
		}
		e := &plExecute{lineno: x.Lineno, expr: q, strict: x.Strict}
		if x.Into {
			if e.into, err = plTargetOf(x.Target); err != nil {
				return nil, err
			}
		}
		for _, p := range x.Params {
			v, err := plExpr(p)
			if err != nil {
				return nil, err
			}
			e.params = append(e.params, v)
		}
		return e, nil
	case "PLpgSQL_stmt_call":
		q, err := plExpr(x.Expr)
		return &plCall{lineno: x.Lineno, sql: q}, err
	case "PLpgSQL_stmt_case", "PLpgSQL_stmt_foreach_a":
		return plControl(kind, raw) // plpgsql_control.go
	case "PLpgSQL_stmt_if":
		s := &plIf{lineno: x.Lineno}
		cond, err := plExpr(x.Cond)
		if err != nil {
			return nil, err
		}
		then, err := plStmts(x.Then)
		if err != nil {
			return nil, err
		}
		s.arms = append(s.arms, plArm{cond: cond, body: then})
		for _, e := range x.Elsif {
			var arm struct {
				Cond  json.RawMessage              `json:"cond"`
				Stmts []map[string]json.RawMessage `json:"stmts"`
			}
			if err := json.Unmarshal(e["PLpgSQL_if_elsif"], &arm); err != nil {
				return nil, err
			}
			c, err := plExpr(arm.Cond)
			if err != nil {
				return nil, err
			}
			body, err := plStmts(arm.Stmts)
			if err != nil {
				return nil, err
			}
			s.arms = append(s.arms, plArm{cond: c, body: body})
		}
		if s.els, err = plStmts(x.Else); err != nil {
			return nil, err
		}
		return s, nil
	case "PLpgSQL_stmt_raise":
		r := &plRaise{lineno: x.Lineno, level: x.Level, condname: x.Condname}
		if x.Message != nil {
			r.message = *x.Message
		}
		r.reraise = x.Message == nil && x.Condname == "" && len(x.Options) == 0
		if x.Condname != "" && !isSQLState(x.Condname) {
			if pgerr.ConditionCodes(x.Condname) == nil {
				return nil, wire.Errorf(pgerr.UndefinedObject, "unrecognized exception condition \"%s\"", x.Condname)
			}
		}
		for _, p := range x.Params {
			e, err := plExpr(p)
			if err != nil {
				return nil, err
			}
			r.params = append(r.params, e)
		}
		for _, o := range x.Options {
			if o.Opt.Type > raiseHint {
				return nil, plRefuse("RAISE … USING COLUMN, CONSTRAINT, DATATYPE, TABLE or SCHEMA")
			}
			e, err := plExpr(o.Opt.Expr)
			if err != nil {
				return nil, err
			}
			r.options = append(r.options, plRaiseOption{kind: o.Opt.Type, expr: e})
		}
		return r, nil
	case "PLpgSQL_stmt_getdiag":
		g := &plGetDiag{lineno: x.Lineno, stacked: x.Stacked}
		for _, it := range x.DiagItems {
			k := it.Item.Kind
			ok := k == "ROW_COUNT"
			if g.stacked {
				ok = k == "RETURNED_SQLSTATE" || k == "MESSAGE_TEXT" || k == "PG_EXCEPTION_DETAIL" || k == "PG_EXCEPTION_HINT"
			}
			if !ok {
				return nil, plRefuse("GET DIAGNOSTICS " + k)
			}
			g.items = append(g.items, plDiagItem{kind: k, target: it.Item.Target})
		}
		return g, nil
	case "PLpgSQL_stmt_return":
		r := &plReturn{lineno: x.Lineno, varno: -1}
		if x.Expr != nil {
			var err error
			if r.expr, err = plExpr(x.Expr); err != nil {
				return nil, err
			}
		} else if x.Expr2 != nil {
			r.varno = *x.Expr2
		}
		return r, nil
	case "PLpgSQL_stmt_return_next":
		r := &plReturnNext{lineno: x.Lineno, varno: -2}
		if x.Expr != nil {
			var err error
			if r.expr, err = plExpr(x.Expr); err != nil {
				return nil, err
			}
			r.varno = -1
		} else if x.Expr2 != nil {
			r.varno = *x.Expr2
		}
		return r, nil
	case "PLpgSQL_stmt_return_query":
		if x.Query == nil {
			return nil, plRefuse("RETURN QUERY EXECUTE")
		}
		q, err := plExpr(x.Query)
		return &plReturnNext{lineno: x.Lineno, varno: -1, query: q}, err
	}
	if what, ok := plUnsupported[kind]; ok {
		return nil, plRefuse(what)
	}
	return nil, plRefuse(strings.TrimPrefix(kind, "PLpgSQL_stmt_"))
}

// isSQLState reports a five-character SQLSTATE (WHEN SQLSTATE '…').
func isSQLState(s string) bool {
	if len(s) != 5 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
