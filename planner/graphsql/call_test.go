package graphsql

import (
	"context"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

func TestParse(t *testing.T) {
	cases := []struct {
		sql    string
		fn     string
		form   Form
		column string
		args   []string // by parameter position; "-" = not given
		code   string
		msg    string
	}{
		{sql: "CALL graph.create_branch('x')", fn: "create_branch", form: FormCall, column: "create_branch", args: []string{"'x'", "-", "-"}},
		{sql: "call GRAPH.Create_Branch ( 'x' , 'main' )", fn: "create_branch", form: FormCall, column: "create_branch", args: []string{"'x'", "'main'", "-"}},
		{sql: "SELECT graph.create_branch('x', 'main')", fn: "create_branch", form: FormSelect, column: "create_branch", args: []string{"'x'", "'main'", "-"}},
		{sql: "SELECT graph.delete_branch('x') AS gone", fn: "delete_branch", form: FormSelect, column: "gone", args: []string{"'x'"}},
		{sql: "SELECT * FROM graph.merge('a')", fn: "merge", form: FormSelectFrom, column: "merge", args: []string{"'a'", "-", "-"}},
		{sql: "SELECT * FROM graph.merge('a', 'b') AS m", fn: "merge", form: FormSelectFrom, column: "m", args: []string{"'a'", "'b'", "-"}},
		{sql: "SELECT * FROM graph.merge('a') AS m(c)", fn: "merge", form: FormSelectFrom, column: "c", args: []string{"'a'", "-", "-"}},
		{sql: "SELECT m.* FROM graph.merge('a') m", fn: "merge", form: FormSelectFrom, column: "m", args: []string{"'a'", "-", "-"}},
		{sql: "SELECT c FROM graph.merge('a') AS m(c)", fn: "merge", form: FormSelectFrom, column: "c", args: []string{"'a'", "-", "-"}},
		{sql: "SELECT merge AS commit_id FROM graph.merge('a')", fn: "merge", form: FormSelectFrom, column: "commit_id", args: []string{"'a'", "-", "-"}},
		{sql: "SELECT merge.merge FROM graph.merge('a')", fn: "merge", form: FormSelectFrom, column: "merge", args: []string{"'a'", "-", "-"}},
		{sql: "CALL graph.create_branch(name => 'x', at => '3')", fn: "create_branch", form: FormCall, column: "create_branch", args: []string{"'x'", "-", "'3'"}},
		{sql: "CALL graph.create_branch('x', at := now())", fn: "create_branch", form: FormCall, column: "create_branch", args: []string{"'x'", "-", "now()"}},
		{sql: "CALL graph.create_branch($1, $2)", fn: "create_branch", form: FormCall, column: "create_branch", args: []string{"$1", "$2", "-"}},
		{sql: "CALL graph.create_branch('a,b', E'c\\',)d', $x$e),f$x$)", fn: "create_branch", form: FormCall, column: "create_branch", args: []string{"'a,b'", "E'c\\',)d'", "$x$e),f$x$"}},
		{sql: "CALL graph.create_branch(/* a, b */ 'x' -- c, d\n, ('y' || ')'), format('%s,%s', 1, 2))", fn: "create_branch", form: FormCall, column: "create_branch", args: []string{"/* a, b */ 'x' -- c, d", "('y' || ')')", "format('%s,%s', 1, 2)"}},
		{sql: `CALL "graph"."optimize"()`, fn: "optimize", form: FormCall, column: "optimize", args: []string{"-"}},
		{sql: "SELECT graph.recover()", fn: "recover", form: FormSelect, column: "recover", args: []string{}},
		{sql: "SELECT graph.optimize(('people'::text))", fn: "optimize", form: FormSelect, column: "optimize", args: []string{"('people'::text)"}},

		{sql: "SELECT 1"},
		{sql: "SELECT * FROM graph.commits"},
		{sql: "CALL other.f()"},
		{sql: "SELECT graph.commits.id FROM graph.commits"},
		{sql: "SELEC graph.create_branch('x')"},
		{sql: "SELECT 1; CALL graph.recover()"},

		{sql: "CALL graph.nope(1, 'a', 2.5, true, 'x'::text)", code: CodeUndefinedFunction, msg: "procedure graph.nope(integer, unknown, numeric, boolean, text) does not exist"},
		{sql: "SELECT graph.nope()", code: CodeUndefinedFunction, msg: "function graph.nope() does not exist"},
		{sql: "CALL graph.create_branch(foo => 'x')", code: CodeUndefinedFunction, msg: "procedure graph.create_branch(unknown) does not exist"},
		{sql: "CALL graph.create_branch()", code: CodeSyntaxError, msg: "graph.create_branch takes 1 to 3 arguments, got 0"},
		{sql: "CALL graph.delete_branch('a', 'b')", code: CodeSyntaxError, msg: "graph.delete_branch takes 1 argument, got 2"},
		{sql: "SELECT graph.recover(1)", code: CodeSyntaxError, msg: "graph.recover takes 0 arguments, got 1"},
		{sql: "CALL graph.create_branch(name => 'x', name => 'y')", code: CodeSyntaxError, msg: "given more than once"},
		{sql: "CALL graph.create_branch(at => 'x')", code: CodeSyntaxError, msg: "takes 1 to 3 arguments"},
		{sql: "SELECT graph.create_branch(DISTINCT 'x')", code: CodeSyntaxError, msg: "plain arguments only"},
		{sql: "SELECT graph.create_branch('x'), 1", code: CodeFeatureNotSupported, msg: "graph.create_branch() cannot be used inside a larger query"},
		{sql: "SELECT graph.create_branch(name) FROM people", code: CodeFeatureNotSupported, msg: "inside a larger query"},
		{sql: "SELECT graph.delete_branch('x') WHERE true", code: CodeFeatureNotSupported, msg: "inside a larger query"},
		{sql: "SELECT length(graph.merge('x'))", code: CodeFeatureNotSupported, msg: "graph.merge() cannot be used inside a larger query"},
		{sql: "SELECT 1 + (SELECT graph.recover())", code: CodeFeatureNotSupported, msg: "graph.recover() cannot be used"},
		{sql: "SELECT coalesce(graph.nope(), 'x')", code: CodeFeatureNotSupported, msg: "graph.nope() cannot be used"},
		{sql: "SELECT id FROM graph.merge('a')", code: CodeFeatureNotSupported, msg: "graph.merge() cannot be used"},
		{sql: "SELECT x.* FROM graph.merge('a') m", code: CodeFeatureNotSupported, msg: "graph.merge() cannot be used"},
		{sql: "SELECT * FROM people, graph.merge('a')", code: CodeFeatureNotSupported, msg: "graph.merge() cannot be used"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			inv, err := Parse(c.sql)
			if c.code != "" {
				wantCode(t, err, c.code)
				if !strings.Contains(err.Error(), c.msg) {
					t.Fatalf("message %q lacks %q", err.Error(), c.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.fn == "" {
				if inv != nil {
					t.Fatalf("recognized %+v", inv)
				}
				return
			}
			if inv == nil {
				t.Fatal("not recognized")
			}
			if inv.Function != c.fn || inv.Form != c.form || inv.Column != c.column {
				t.Fatalf("got %s form %d column %q", inv.Function, inv.Form, inv.Column)
			}
			var got []string
			for _, a := range inv.args {
				if a == nil {
					got = append(got, "-")
					continue
				}
				got = append(got, a.text)
				if c.sql[a.offset:a.offset+len(a.text)] != a.text {
					t.Fatalf("arg %q has offset %d", a.text, a.offset)
				}
			}
			if strings.Join(got, "¦") != strings.Join(c.args, "¦") {
				t.Fatalf("args %q, want %q", got, c.args)
			}
		})
	}
}

func TestIsGraphCall(t *testing.T) {
	for sql, want := range map[string]bool{
		"CALL graph.create_branch('x')":           true,
		"SELECT graph.nope()":                     true,
		"SELECT 1, graph.recover()":               true,
		"SELECT * FROM graph.optimize()":          true,
		"SELECT * FROM t, graph.optimize()":       true,
		"SELECT * FROM graph.commits":             false,
		"SELECT lower('x')":                       false,
		"CALL public.create_branch('x')":          false,
		"SELECT (SELECT graph.recover())":         true,
		"SELECT upper(graph.merge('a'))":          true,
		"SELECT lower(x) FROM graph.commits":      false,
		"INSERT INTO t VALUES (graph.recover())":  false,
		"SELECT graph.recover() UNION SELECT '1'": false,
	} {
		tree, err := sqlparse.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := IsGraphCall(tree.Stmts[0].Stmt); got != want {
			t.Errorf("IsGraphCall(%q) = %v", sql, got)
		}
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		sql      string
		declared []uint32
		params   []uint32
		cols     string
	}{
		{"CALL graph.create_branch($1, $2)", nil, []uint32{25, 25}, ""},
		{"SELECT graph.create_branch($1) AS b", nil, []uint32{25}, "b:25"},
		{"SELECT graph.recover()", nil, nil, "recover:20"},
		{"SELECT * FROM graph.create_branch('x', 'main', $1::timestamptz)", nil, []uint32{1184}, "create_branch:25"},
		{"CALL graph.delete_branch($1)", []uint32{1043}, []uint32{1043}, ""},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			inv, err := Parse(c.sql)
			if err != nil || inv == nil {
				t.Fatalf("%v %v", inv, err)
			}
			params, cols, err := inv.Describe(nil, nil, c.declared)
			if err != nil {
				t.Fatal(err)
			}
			if len(params) != len(c.params) {
				t.Fatalf("params %v, want %v", params, c.params)
			}
			for i := range params {
				if params[i] != c.params[i] {
					t.Fatalf("params %v, want %v", params, c.params)
				}
			}
			var cs []string
			for _, col := range cols {
				cs = append(cs, col.Name+":"+itoa(int64(col.TypeOID)))
			}
			if strings.Join(cs, ",") != c.cols {
				t.Fatalf("columns %v, want %s", cs, c.cols)
			}
		})
	}
}

// TestCallEndToEnd runs statements in order against one graph, each with
// its expected result or SQLSTATE.
func TestCallEndToEnd(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)
	insertPeople(t, g, "main", "insert 1-3", 1, 2, 3) // main head is v3
	steps := []struct {
		sql    string
		params []any
		env    Env
		tag    string
		row    string // "-" = no row
		code   string
		msg    string
	}{
		{sql: "CALL graph.create_branch('b1')", tag: "CALL", row: "-"},
		{sql: "SELECT graph.create_branch('b1')", code: CodeDuplicateObject, msg: `branch "b1" already exists`},
		{sql: "SELECT graph.create_branch($1, $2)", params: []any{"b2", "nope"}, code: CodeInvalidCatalogName, msg: `branch "nope" does not exist`},
		{sql: "SELECT graph.create_branch($1)", params: []any{"b2"}, env: Env{Branch: "b1"}, tag: "SELECT 1", row: "b2"},
		{sql: "SELECT * FROM graph.create_branch('b' || '3', 'main', '3') AS made", tag: "SELECT 1", row: "b3"},
		{sql: "CALL graph.create_branch('b4old', 'main', '2')", tag: "CALL", row: "-"},
		{sql: "CALL graph.create_branch('b7', 'b1', '3')", tag: "CALL", row: "-"},
		{sql: "CALL graph.create_branch('b8', 'b1', '2')", tag: "CALL", row: "-"},
		{sql: "CALL graph.create_branch('b4', 'main', now())", tag: "CALL", row: "-"},
		{sql: "SELECT graph.create_branch('b4' -- the name\n) AS again", code: CodeDuplicateObject, msg: `"b4"`},
		{sql: "CALL graph.create_branch('b5', 'main', 'garbage')", code: CodeInvalidDatetimeFormat},
		{sql: "CALL graph.create_branch('b5', 'main', '99')", code: CodeInvalidParameterValue},
		{sql: "CALL graph.create_branch('main')", code: CodeInvalidName},
		{sql: "CALL graph.create_branch('__x')", code: CodeInvalidName},
		{sql: "CALL graph.create_branch('b1/sub')", code: CodeInvalidName},
		{sql: "CALL graph.create_branch(NULL)", code: CodeNullValueNotAllowed, msg: `argument "name"`},
		{sql: "CALL graph.create_branch('b6')", env: Env{InTransaction: true}, code: CodeActiveSQLTransaction, msg: "graph.create_branch cannot run inside a transaction block"},
		{sql: "CALL graph.create_branch(1/0)", code: "22012"},
		{sql: "SELECT graph.delete_branch('b3')", tag: "SELECT 1", row: "b3"},
		{sql: "SELECT graph.delete_branch('b3')", code: CodeInvalidCatalogName, msg: `branch "b3" does not exist`},
		{sql: "CALL graph.delete_branch('main')", code: CodeInvalidName},
		{sql: "CALL graph.delete_branch('b4')", env: Env{Branch: "b4"}, code: CodeObjectInUse},
		{sql: "CALL graph.delete_branch('b1')", code: CodeDependentObjects},
		{sql: "CALL graph.merge('nope')", code: CodeInvalidCatalogName, msg: `"nope"`},
		{sql: "CALL graph.merge('b4', 'nope')", code: CodeInvalidCatalogName, msg: `"nope"`},
		{sql: "CALL graph.optimize('missing')", code: CodeUndefinedTable, msg: `relation "missing" does not exist`},
		{sql: "SELECT graph.optimize()", tag: "SELECT 1", row: "NULL"},
		{sql: "SELECT graph.optimize('people')", tag: "SELECT 1", row: "NULL"},
		{sql: "SELECT graph.recover()", tag: "SELECT 1", row: "0"},
		{sql: "CALL graph.cleanup()", tag: "CALL", row: "-"},
		{sql: "SELECT graph.cleanup()", env: Env{InTransaction: true}, code: CodeActiveSQLTransaction},
		{sql: "CALL graph.recover()", env: Env{InTransaction: true}, code: CodeActiveSQLTransaction},
		{sql: "SELECT graph.create_branch('ro')", env: Env{ReadOnly: true}, code: CodeReadOnly, msg: "cannot execute graph.create_branch in a read-only transaction"},
		{sql: "CALL graph.optimize()", env: Env{ReadOnly: true}, code: CodeReadOnly},
	}
	for i, s := range steps {
		inv, err := Parse(s.sql)
		if err != nil || inv == nil {
			t.Fatalf("step %d %s: parse %v %v", i, s.sql, inv, err)
		}
		res, err := inv.Execute(ctx, g, s.env, nil, nil, nil, s.params)
		if s.code != "" {
			if err == nil {
				t.Fatalf("step %d %s: no error, want %s", i, s.sql, s.code)
			}
			wantCode(t, err, s.code)
			if !strings.Contains(err.Error(), s.msg) {
				t.Fatalf("step %d %s: message %q lacks %q", i, s.sql, err.Error(), s.msg)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d %s: %v", i, s.sql, err)
		}
		row := "-"
		if res.Row != nil {
			row = "NULL"
			if res.Row[0] != nil {
				row = strings.TrimSpace(strings.Trim(strings.ReplaceAll(strings.ReplaceAll(fmtAny(res.Row[0]), "\n", ""), "\"", ""), " "))
			}
		}
		if res.Tag != s.tag || row != s.row {
			t.Fatalf("step %d %s: tag %q row %q, want %q %q", i, s.sql, res.Tag, row, s.tag, s.row)
		}
	}
	// the branches exist as the steps left them
	views, _ := Tables(ctx, g, "main")
	got := query(t, WithViews(exec.NewMemCatalog(), views), "SELECT string_agg(name || ':' || coalesce(forked_from, '-'), ',' ORDER BY name) FROM graph.branches")
	if got[0] != "b1:main,b2:b1,b4:main,b4old:main,b7:b1,b8:main,main:-" {
		t.Fatalf("branches %q", got)
	}
	// cleanup with its 24h grace keeps every (young) file and says so
	res, err := Call(ctx, g, Env{}, "cleanup", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum, _ := res.Value.(string); !strings.HasPrefix(sum, "0 files deleted (0 bytes), 0 orphan datasets reclaimed, 0 staging files swept; ") ||
		!strings.HasSuffix(sum, "datasets examined") || strings.HasSuffix(sum, "; 0 datasets examined") {
		t.Fatalf("cleanup summary %q", sum)
	}
	// an error inside an argument points into the statement
	sql := "CALL graph.create_branch('x' || nocol)"
	inv, _ := Parse(sql)
	_, err = inv.Execute(ctx, g, Env{}, nil, nil, nil, nil)
	we := asWire(err)
	if we == nil || we.Code != "42703" || we.Position != int32(strings.Index(sql, "nocol")+1) {
		t.Fatalf("error %#v; want 42703 at the position of nocol", we)
	}
	// positions count characters, as PostgreSQL's do
	sql = "/* é */ CALL graph.create_branch('ü' || nocol)"
	inv, _ = Parse(sql)
	_, err = inv.Execute(ctx, g, Env{}, nil, nil, nil, nil)
	if we = asWire(err); we == nil || we.Position != int32(len([]rune(sql[:strings.Index(sql, "nocol")]))+1) {
		t.Fatalf("error %#v; want the character position of nocol", we)
	}
	if _, err := Parse("/* é */ CALL graph.nope()"); asWire(err) == nil || asWire(err).Position != 14 {
		t.Fatalf("unknown procedure error %v; want position 14 (graph.nope)", err)
	}
}

func fmtAny(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return itoa(x)
	}
	return "?"
}

func TestWireResult(t *testing.T) {
	call := &Result{Tag: "CALL", Value: "x"}
	sel := &Result{Tag: "SELECT 1", Value: "x", Row: []any{"x"}, Columns: []exec.Column{{Name: "f", TypeOID: 25, TypeLen: -1, TypeMod: -1}}}
	ctx := context.Background()
	w := call.Wire()
	if row, ok, err := w.Next(ctx); ok || err != nil || row != nil || w.Tag() != "CALL" || w.Columns() != nil {
		t.Fatalf("CALL result: %v %v %v %q %v", row, ok, err, w.Tag(), w.Columns())
	}
	w = sel.Wire()
	row, ok, err := w.Next(ctx)
	if !ok || err != nil || len(row) != 1 || row[0] != "x" {
		t.Fatalf("first row %v %v %v", row, ok, err)
	}
	if _, ok, _ := w.Next(ctx); ok {
		t.Fatal("second row")
	}
	if cols := w.Columns(); len(cols) != 1 || cols[0].Name != "f" || cols[0].TypeOID != 25 || w.Tag() != "SELECT" {
		t.Fatalf("columns %+v tag %q", cols, w.Tag())
	}
	inv, _ := Parse("SELECT graph.create_branch($1) AS b")
	d, err := inv.WireDescribe(nil, nil, nil)
	if err != nil || len(d.Params) != 1 || d.Params[0] != 25 || len(d.Columns) != 1 || d.Columns[0].Name != "b" {
		t.Fatalf("describe %+v %v", d, err)
	}
}
