package planner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/internal/sqlparse"
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
}

type plPerform struct {
	lineno int
	sql    string // SELECT …
}

type plExecute struct { // EXECUTE expr
	lineno int
	expr   string
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

type plReturn struct{ lineno int }

func (b *plBlock) line() int   { return b.lineno }
func (s *plSQL) line() int     { return s.lineno }
func (s *plPerform) line() int { return s.lineno }
func (s *plExecute) line() int { return s.lineno }
func (s *plIf) line() int      { return s.lineno }
func (s *plRaise) line() int   { return s.lineno }
func (s *plReturn) line() int  { return s.lineno }

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
	"PLpgSQL_stmt_assign": "assignment", "PLpgSQL_stmt_case": "CASE", "PLpgSQL_stmt_loop": "LOOP",
	"PLpgSQL_stmt_while": "WHILE", "PLpgSQL_stmt_fori": "FOR", "PLpgSQL_stmt_fors": "FOR … IN query",
	"PLpgSQL_stmt_forc": "FOR … IN cursor", "PLpgSQL_stmt_foreach_a": "FOREACH", "PLpgSQL_stmt_exit": "EXIT/CONTINUE",
	"PLpgSQL_stmt_return_next": "RETURN NEXT", "PLpgSQL_stmt_return_query": "RETURN QUERY", "PLpgSQL_stmt_assert": "ASSERT",
	"PLpgSQL_stmt_dynfors": "FOR … IN EXECUTE", "PLpgSQL_stmt_getdiag": "GET DIAGNOSTICS", "PLpgSQL_stmt_open": "OPEN",
	"PLpgSQL_stmt_fetch": "FETCH", "PLpgSQL_stmt_close": "CLOSE", "PLpgSQL_stmt_call": "CALL",
	"PLpgSQL_stmt_commit": "COMMIT", "PLpgSQL_stmt_rollback": "ROLLBACK",
}

// plVariables are the variables every DO body has (FOUND) or a block
// with handlers adds (SQLSTATE, SQLERRM): value expressions read them
// (do.go substitutes their values), a SQL statement naming them is
// refused rather than read as a column.
var plVariables = []string{"found", "sqlstate", "sqlerrm"}

func plRefuse(what string) *wire.Error {
	return wire.Errorf(wire.CodeFeatureNotSupported, "%s in a DO block is not supported", what).
		WithHint("DO blocks run blocks with EXCEPTION handlers, IF, SQL statements, PERFORM, EXECUTE of a string, RAISE, NULL and RETURN (docs/sql.md).")
}

// compileDo turns a DO statement into its body's tree.
func compileDo(sql string) (*plBlock, error) {
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
	for _, d := range fn.Datums {
		for kind, raw := range d {
			var v struct {
				Refname string `json:"refname"`
			}
			_ = json.Unmarshal(raw, &v)
			if kind == "PLpgSQL_var" && slices.Contains(plVariables, v.Refname) {
				continue
			}
			if kind == "PLpgSQL_row" {
				continue // INTO targets, refused where they are used
			}
			return nil, plRefuse("DECLARE (variables)")
		}
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("PL/pgSQL compiler output: %d top-level statements", len(stmts))
	}
	b, ok := stmts[0].(*plBlock)
	if !ok {
		return nil, fmt.Errorf("PL/pgSQL compiler output: top level is no block")
	}
	return b, nil
}

type plExprJSON struct {
	Expr struct {
		Query string `json:"query"`
	} `json:"PLpgSQL_expr"`
}

// plExpr reads an expression's text. A value expression (IF
// conditions, RAISE parameters and options, EXECUTE's string) may read
// the block's variables, which do.go substitutes as literals: FOUND, and
// SQLSTATE and SQLERRM inside a handler. SQL statements may not.
func plExpr(raw json.RawMessage) (string, error) { return plExprVars(raw, false) }

func plValueExpr(raw json.RawMessage) (string, error) { return plExprVars(raw, true) }

func plExprVars(raw json.RawMessage, value bool) (string, error) {
	var e plExprJSON
	if err := json.Unmarshal(raw, &e); err != nil {
		return "", err
	}
	ids, err := sqlparse.Identifiers(e.Expr.Query)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		if slices.Contains(plVariables, id.Name) && !value {
			return "", plRefuse(fmt.Sprintf("the variable %s in a SQL statement", strings.ToUpper(id.Name)))
		}
	}
	return e.Expr.Query, nil
}

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
		Expr2 json.RawMessage `json:"retvarno"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, err
	}
	switch kind {
	case "PLpgSQL_stmt_block":
		b := &plBlock{lineno: x.Lineno}
		var err error
		if b.body, err = plStmts(x.Body); err != nil {
			return nil, err
		}
		if x.Exceptions != nil {
			for _, e := range x.Exceptions.Block.List {
				h := plHandler{}
				for _, c := range e.Exc.Conditions {
					name := c.Cond.Name
					if _, ok := plConditions[name]; !ok && name != "others" && !isSQLState(name) {
						return nil, wire.Errorf("42704", "unrecognized exception condition \"%s\"", name)
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
		if x.Into {
			return nil, plRefuse("INTO")
		}
		q, err := plExpr(x.SQLStmt)
		return &plSQL{lineno: x.Lineno, sql: q}, err
	case "PLpgSQL_stmt_perform":
		q, err := plExpr(x.Expr)
		return &plPerform{lineno: x.Lineno, sql: q}, err
	case "PLpgSQL_stmt_dynexecute":
		if x.Into {
			return nil, plRefuse("EXECUTE … INTO")
		}
		if len(x.Params) > 0 {
			return nil, plRefuse("EXECUTE … USING")
		}
		q, err := plValueExpr(x.Query)
		return &plExecute{lineno: x.Lineno, expr: q}, err
	case "PLpgSQL_stmt_if":
		s := &plIf{lineno: x.Lineno}
		cond, err := plValueExpr(x.Cond)
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
			c, err := plValueExpr(arm.Cond)
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
			if _, ok := plConditions[x.Condname]; !ok {
				return nil, wire.Errorf("42704", "unrecognized exception condition \"%s\"", x.Condname)
			}
		}
		for _, p := range x.Params {
			e, err := plValueExpr(p)
			if err != nil {
				return nil, err
			}
			r.params = append(r.params, e)
		}
		for _, o := range x.Options {
			if o.Opt.Type > raiseHint {
				return nil, plRefuse("RAISE … USING COLUMN, CONSTRAINT, DATATYPE, TABLE or SCHEMA")
			}
			e, err := plValueExpr(o.Opt.Expr)
			if err != nil {
				return nil, err
			}
			r.options = append(r.options, plRaiseOption{kind: o.Opt.Type, expr: e})
		}
		return r, nil
	case "PLpgSQL_stmt_return":
		if x.Expr != nil || len(x.Expr2) > 0 {
			return nil, plRefuse("RETURN of a value")
		}
		return &plReturn{lineno: x.Lineno}, nil
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
