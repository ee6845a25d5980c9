package exec

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// funcScanNode is a set-returning function in FROM, a built-in one
// (srf.go) or a user function, with constant or outer-correlated
// arguments evaluated once.
type funcScanNode struct {
	name string
	args []Expr
	cols []colInfo
	ord  bool // WITH ORDINALITY
	// expand: a record-returning function in FROM yields one column per
	// field instead of one record column
	expand bool
	rec    Type // the record type when expand
	// user: a user function (user_srf.go), whose body call runs
	user *FuncDef
	call CallFunction
}

func (f *funcScanNode) columns() []colInfo { return f.cols }

func (f *funcScanNode) run(ec *evalCtx, emit func(*Batch) error) error {
	vals := make([]*Vec, len(f.args))
	for i, a := range f.args {
		v, err := evalConst(ec, a)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	out := newBuffer(typesOf(f.cols))
	var ordN int64
	flush := func(v *Vec, more ...*Vec) error {
		b := &Batch{N: v.N, Cols: []*Vec{v}}
		switch {
		case len(more) > 0:
			b.Cols = append(b.Cols, more...)
		case f.expand:
			// split each record into its fields
			b.Cols = expandRecords(ec, v)
		}
		if f.ord {
			o := NewVec(TInt8, v.N)
			for i := range o.I {
				ordN++
				o.I[i] = ordN
			}
			b.Cols = append(b.Cols, o)
		}
		if err := out.add(ec.run, b); err != nil {
			return err
		}
		if out.n >= batchSize {
			if err := emit(out.batch()); err != nil {
				return err
			}
			out.free(ec.run)
			out = newBuffer(typesOf(f.cols))
		}
		return nil
	}
	var err error
	if f.user != nil {
		err = f.runUser(ec, vals, func(v *Vec) error { return flush(v) })
	} else {
		err = f.runSRF(ec, vals, flush) // srf.go
	}
	if err != nil {
		return err
	}
	if out.n > 0 {
		defer out.free(ec.run)
		return emit(out.batch())
	}
	return nil
}

func (b *binder) bindRangeFunction(rf *q.RangeFunction, sc *scope) (plan, []scopeCol, error) {
	if text, ok := graphTableText(rf); ok {
		return b.bindGraphTable(rf, text, sc)
	}
	if p, cols, ok, err := b.bindRelationFunction(rf, sc); ok || err != nil {
		return p, cols, err
	}
	if rf.Lateral {
		return nil, nil, unsupported("LATERAL function calls are not supported")
	}
	if rf.IsRowsfrom || len(rf.Functions) != 1 {
		return b.bindRowsFrom(rf, sc)
	}
	item := rf.Functions[0].GetList().Items
	fc := item[0].GetFuncCall()
	if fc == nil {
		return nil, nil, unsupported("this FROM function form is not supported")
	}
	name, err := funcName(fc.Funcname)
	if err != nil {
		return nil, nil, err
	}
	var user *FuncDef // a user function returning a set or a record
	var userT Type
	var userArgs []Expr
	if b.userRoutineInFrom(name) {
		fsc := newScope(sc.parent)
		if user, userT, userArgs, err = b.bindUserFromFunction(rf, fc, name, fsc); err != nil {
			return nil, nil, err
		}
		if fsc.correlated {
			sc.correlated = true
		}
		if user == nil {
			return b.bindScalarFromFunction(rf, item[0], name, sc)
		}
	}
	if user == nil && (len(rf.Coldeflist) > 0 || len(rf.Functions[0].GetList().GetItems()) > 1 && len(rf.Functions[0].GetList().GetItems()[1].GetList().GetItems()) > 0) {
		return nil, nil, unsupported("column definition lists are not supported")
	}
	if name == "pg_show_all_settings" {
		return b.bindShowAllSettings(rf, fc, sc)
	}
	var args []Expr
	if user == nil {
		fsc := newScope(sc.parent)
		if args, err = b.bindList(fc.Args, fsc); err != nil {
			return nil, nil, err
		}
		if fsc.correlated {
			sc.correlated = true
		}
		if err := b.cat.checkBuiltinExecute(name, exprTypes(args)); err != nil {
			return nil, nil, err // builtin_function_acl.go
		}
	}
	alias := name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	var t Type
	if user != nil {
		t, args = userT, userArgs
	} else {
		t, args, err = b.bindSRF(name, args)
	}
	if err != nil && errors.Is(err, errNotSRF) {
		return b.bindScalarFromFunction(rf, item[0], name, sc)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := b.addAlias(sc, alias); err != nil {
		return nil, nil, err
	}
	if fields, ok := RecordFields(t); ok {
		// a function with OUT parameters: one column per field
		var cols []colInfo
		var scols []scopeCol
		for i, f := range fields {
			cols = append(cols, colInfo{name: f.Name, t: f.Type})
			scols = append(scols, scopeCol{name: f.Name, t: f.Type, idx: i})
		}
		if rf.Ordinality {
			cols = append(cols, colInfo{name: "ordinality", t: TInt8})
			scols = append(scols, scopeCol{name: "ordinality", t: TInt8, idx: len(fields)})
		}
		if scols, err = applyAlias(scols, rf.Alias, alias); err != nil {
			return nil, nil, err
		}
		for i := range cols {
			cols[i].name = scols[i].name
		}
		return &funcScanNode{name: name, args: args, cols: cols, ord: rf.Ordinality, expand: true, rec: t, user: user, call: b.cat.callFn}, scols, nil
	}
	colName := name
	if rf.Alias != nil && len(rf.Alias.Colnames) == 0 {
		colName = alias
	}
	if d, ok := setFuncs[name]; ok && d.column != "" {
		colName = d.column // an OUT parameter name, not the alias
	}
	cols := []colInfo{{name: colName, t: t}}
	scols := []scopeCol{{name: colName, t: t, idx: 0}}
	if rf.Ordinality {
		cols = append(cols, colInfo{name: "ordinality", t: TInt8})
		scols = append(scols, scopeCol{name: "ordinality", t: TInt8, idx: 1})
	}
	scols, err = applyAlias(scols, rf.Alias, alias)
	if err != nil {
		return nil, nil, err
	}
	for i := range cols {
		cols[i].name = scols[i].name
	}
	if rf.Alias != nil && scols[0].name != alias {
		// the alias also names the value (whole-row reference to a scalar
		// function result)
		scols = append(scols, scopeCol{table: alias, name: alias, t: t, idx: 0, noStar: true})
	}
	return &funcScanNode{name: name, args: args, cols: cols, ord: rf.Ordinality, user: user, call: b.cat.callFn}, scols, nil
}

// recordType is the record type a record-returning function scan builds:
// its single column's type, or (expanded in FROM) the bound shape.
func (f *funcScanNode) recordType() Type {
	if f.expand {
		return f.rec
	}
	return f.cols[0].t
}

// expandRecords splits a vector of records into one vector per field.
func expandRecords(ec *evalCtx, v *Vec) []*Vec {
	fields, _ := RecordFields(v.T)
	out := make([]*Vec, len(fields))
	for k, f := range fields {
		out[k] = recordFieldVec(ec, v, k, f.Type, nil)
	}
	return out
}

// jsonSetItems expands a json(b) array or object for the json SRFs.
func jsonSetItems(name, doc string) ([]*string, error) {
	jb := strings.HasPrefix(name, "jsonb")
	v, err := decodeJSON(doc)
	if err != nil {
		return nil, jsonSyntaxErr("json", doc)
	}
	var out []*string
	if strings.HasSuffix(name, "_keys") {
		o, ok := v.(*jsonObject)
		if !ok {
			return nil, errf(CodeInvalidParameterValue, "cannot call %s on a non-object", name)
		}
		if jb {
			sortJSONB(o)
		}
		seen := map[string]bool{}
		for _, k := range o.keys {
			if jb && seen[k] {
				continue
			}
			seen[k] = true
			k := k
			out = append(out, &k)
		}
		return out, nil
	}
	if !jb {
		raws, err := jsonRawItems(doc)
		if err != nil {
			return nil, err
		}
		for _, r := range raws {
			r := r
			if strings.HasSuffix(name, "_text") {
				x, _ := decodeJSON(r)
				s, ok := jsonScalarText(x, false)
				if !ok {
					out = append(out, nil)
					continue
				}
				if _, isStr := x.(string); !isStr {
					s = r
				}
				out = append(out, &s)
				continue
			}
			out = append(out, &r)
		}
		return out, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, errf(CodeInvalidParameterValue, "cannot extract elements from an object")
	}
	for _, e := range arr {
		if strings.HasSuffix(name, "_text") {
			s, ok := jsonScalarText(e, true)
			if !ok {
				out = append(out, nil)
				continue
			}
			out = append(out, &s)
			continue
		}
		s := jsonText(e, true)
		out = append(out, &s)
	}
	return out, nil
}

// regexSet computes regexp_matches / regexp_split_to_table rows.
func regexSet(name, s, pat, flags string) (*Vec, error) {
	re, global, err := compileARE(pat, flags)
	if err != nil {
		return nil, err
	}
	if name == "regexp_split_to_table" {
		var parts []string
		if pat == "" {
			for _, r := range s {
				parts = append(parts, string(r))
			}
		} else {
			parts = re.Split(s, -1)
		}
		v := NewVec(TText, len(parts))
		copy(v.S, parts)
		return v, nil
	}
	n := 1
	if global {
		n = -1
	}
	matches := re.FindAllStringSubmatchIndex(s, n)
	v := NewVec(Type{1009, -1}, len(matches))
	for i, m := range matches {
		var items []string
		var nulls []bool
		if len(m) == 2 {
			items, nulls = []string{s[m[0]:m[1]]}, []bool{false}
		}
		for k := 2; k < len(m); k += 2 {
			if m[k] < 0 {
				items, nulls = append(items, ""), append(nulls, true)
				continue
			}
			items, nulls = append(items, s[m[k]:m[k+1]]), append(nulls, false)
		}
		v.A[i] = textArray(items, nulls)
	}
	return v, nil
}

// jsonEach expands an object into (key, value) rows.
func jsonEach(name, doc string) ([]string, []*string, error) {
	jb := strings.HasPrefix(name, "jsonb")
	asText := strings.HasSuffix(name, "_text")
	v, err := decodeJSON(doc)
	if err != nil {
		return nil, nil, jsonSyntaxErr("json", doc)
	}
	o, ok := v.(*jsonObject)
	if !ok {
		return nil, nil, errf(CodeInvalidParameterValue, "cannot deconstruct an array as an object")
	}
	var raws []string
	if !jb {
		if raws, err = jsonRawMembers(doc); err != nil {
			return nil, nil, err
		}
	} else {
		sortJSONB(o)
	}
	var keys []string
	var vals []*string
	seen := map[string]bool{}
	for i, k := range o.keys {
		if jb && seen[k] {
			continue
		}
		seen[k] = true
		keys = append(keys, k)
		var s string
		switch {
		case asText:
			t, ok := jsonScalarText(o.vals[i], jb)
			if !ok {
				vals = append(vals, nil)
				continue
			}
			if _, isStr := o.vals[i].(string); !isStr && !jb {
				t = raws[i]
			}
			s = t
		case jb:
			s = jsonText(o.vals[i], true)
		default:
			s = raws[i]
		}
		vals = append(vals, &s)
	}
	return keys, vals, nil
}

// jsonRawMembers returns an object's member values verbatim, in order.
func jsonRawMembers(s string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	if _, err := dec.Token(); err != nil {
		return nil, jsonSyntaxErr("json", s)
	}
	var out []string
	for dec.More() {
		if _, err := dec.Token(); err != nil {
			return nil, jsonSyntaxErr("json", s)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonSyntaxErr("json", s)
		}
		out = append(out, string(raw))
	}
	return out, nil
}

// aclPrivileges are the ACL letters in PostgreSQL's bit order (aclexplode
// lists them in this order).
var aclPrivileges = []struct {
	letter byte
	name   string
}{
	{'a', "INSERT"}, {'r', "SELECT"}, {'w', "UPDATE"}, {'d', "DELETE"}, {'D', "TRUNCATE"}, {'x', "REFERENCES"},
	{'t', "TRIGGER"}, {'X', "EXECUTE"}, {'U', "USAGE"}, {'C', "CREATE"}, {'T', "TEMPORARY"}, {'c', "CONNECT"},
}

// explodeACLItem expands one aclitem ("grantee=privs/grantor", an empty
// grantee being PUBLIC) into aclexplode's rows. The only role is the
// session user (OID 10).
func explodeACLItem(t Type, item, user string) ([]*Array, error) {
	bad := func() ([]*Array, error) {
		return nil, errf(CodeInvalidTextRepr, "invalid input syntax for type aclitem: \"%s\"", item)
	}
	grantee, rest, ok := strings.Cut(item, "=")
	if !ok {
		return bad()
	}
	privs, grantor, ok := strings.Cut(rest, "/")
	if !ok {
		return bad()
	}
	roleOID := func(name string) (string, error) {
		switch unquoteIdent(name) {
		case "":
			return "0", nil
		case user:
			return strconv.Itoa(oidPostgresRole), nil
		}
		return "", errf(CodeUndefinedObject, "role \"%s\" does not exist", name)
	}
	ge, err := roleOID(grantee)
	if err != nil {
		return nil, err
	}
	gr, err := roleOID(grantor)
	if err != nil {
		return nil, err
	}
	have := map[byte]string{}
	for k := 0; k < len(privs); k++ {
		grant := "f"
		if k+1 < len(privs) && privs[k+1] == '*' {
			grant = "t"
		}
		known := false
		for _, p := range aclPrivileges {
			known = known || p.letter == privs[k]
		}
		if !known {
			return bad()
		}
		have[privs[k]] = grant
		if grant == "t" {
			k++
		}
	}
	var out []*Array
	for _, p := range aclPrivileges {
		grant, ok := have[p.letter]
		if !ok {
			continue
		}
		name := p.name
		out = append(out, newRecord(t, []*string{&gr, &ge, &name, &grant}))
	}
	return out, nil
}

// errNotSRF is bindSRF's answer (srf.go) for a function that returns no set: in
// FROM, such a function is one row of its value (bindScalarFromFunction).
var errNotSRF = unsupported("functions in FROM other than generate_series and unnest are not supported")

// bindScalarFromFunction binds a function that returns one value as a
// FROM item, as PostgreSQL does: one row, one column named after the
// item (the function, or its alias), unless a column alias names it, with WITH ORDINALITY's ordinality 1 — bound as
// (SELECT f(...) AS f [, 1::int8 AS ordinality]) AS f.
func (b *binder) bindScalarFromFunction(rf *q.RangeFunction, call *q.Node, name string, sc *scope) (plan, []scopeCol, error) {
	col := name // a scalar function's column is named like its item
	if rf.Alias != nil {
		col = rf.Alias.Aliasname
	}
	targets := []*q.Node{{Node: &q.Node_ResTarget{ResTarget: &q.ResTarget{Name: col, Val: call, Location: -1}}}}
	if rf.Ordinality {
		ord, err := q.Parse("SELECT 1::int8 AS ordinality")
		if err != nil {
			return nil, nil, err
		}
		targets = append(targets, ord.Stmts[0].Stmt.GetSelectStmt().TargetList[0])
	}
	alias := rf.Alias
	if alias == nil {
		alias = &q.Alias{Aliasname: name}
	}
	sel := &q.Node{Node: &q.Node_SelectStmt{SelectStmt: &q.SelectStmt{TargetList: targets, Op: q.SetOperation_SETOP_NONE}}}
	return b.bindFromItem(&q.Node{Node: &q.Node_RangeSubselect{RangeSubselect: &q.RangeSubselect{Subquery: sel, Alias: alias}}}, sc)
}
