package exec

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// funcScanNode is a set-returning function in FROM: generate_series and
// unnest, with constant or outer-correlated arguments evaluated once.
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
	var second *Vec      // the value column of json(b)_each
	var fieldCols []*Vec // unnest(a, b, ...) in FROM: its columns, built directly
	flush := func(v *Vec) error {
		b := &Batch{N: v.N, Cols: []*Vec{v}}
		if second != nil {
			b.Cols = append(b.Cols, second)
		}
		switch {
		case fieldCols != nil:
			b.Cols = fieldCols
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
	if f.name == "unnest" && len(vals) > 1 {
		// unnest(a, b, ...): the arrays side by side, shorter ones (and
		// NULL arrays) padded with NULLs
		fields, _ := RecordFields(f.recordType())
		n := 0
		for _, v := range vals {
			if !v.IsNull(0) {
				n = max(n, v.A[0].Items.N)
			}
		}
		cols := make([]*Vec, len(vals))
		for k, v := range vals {
			c := NewVec(fields[k].Type, n)
			for i := 0; i < n; i++ {
				if v.IsNull(0) || i >= v.A[0].Items.N {
					c.SetNull(i)
					continue
				}
				c.copyRow(i, v.A[0].Items, i)
			}
			cols[k] = c
		}
		if f.expand {
			fieldCols = cols
			if err := flush(cols[0]); err != nil {
				return err
			}
		} else {
			recs := NewVec(f.recordType(), n)
			for i := 0; i < n; i++ {
				texts := make([]*string, len(cols))
				for k, c := range cols {
					if s, ok := FormatText(c, i, ec.loc); ok {
						texts[k] = &s
					}
				}
				recs.A[i] = newRecord(recs.T, texts)
			}
			if err := flush(recs); err != nil {
				return err
			}
		}
		if out.n > 0 {
			defer out.free(ec.run)
			return emit(out.batch())
		}
		return nil
	}
	if f.user != nil {
		if err := f.runUser(ec, vals, flush); err != nil {
			return err
		}
		if out.n > 0 {
			defer out.free(ec.run)
			return emit(out.batch())
		}
		return nil
	}
	for _, v := range vals {
		if v.IsNull(0) {
			return nil
		}
	}
	switch f.name {
	case "jsonb_array_elements", "json_array_elements", "jsonb_array_elements_text", "json_array_elements_text", "jsonb_object_keys", "json_object_keys":
		items, err := jsonSetItems(f.name, vals[0].S[0])
		if err != nil {
			return err
		}
		v := NewVec(f.cols[0].t, len(items))
		for i, it := range items {
			if it == nil {
				v.SetNull(i)
			} else {
				v.S[i] = *it
			}
		}
		if err := flush(v); err != nil {
			return err
		}
	case "jsonb_each", "json_each", "jsonb_each_text", "json_each_text":
		keys, vals2, err := jsonEach(f.name, vals[0].S[0])
		if err != nil {
			return err
		}
		kv := NewVec(TText, len(keys))
		copy(kv.S, keys)
		second = NewVec(f.cols[1].t, len(keys))
		for i, v := range vals2 {
			if v == nil {
				second.SetNull(i)
			} else {
				second.S[i] = *v
			}
		}
		if err := flush(kv); err != nil {
			return err
		}
	case "regexp_matches", "regexp_split_to_table":
		flags := ""
		if len(vals) == 3 {
			flags = vals[2].S[0]
		}
		v, err := regexSet(f.name, vals[0].S[0], vals[1].S[0], flags)
		if err != nil {
			return err
		}
		if err := flush(v); err != nil {
			return err
		}
	case "_pg_expandarray":
		// (x, n): each element with its 1-based position
		arr := vals[0].A[0]
		v := NewVec(f.recordType(), arr.Items.N)
		for i := 0; i < arr.Items.N; i++ {
			n := strconv.Itoa(i + 1)
			var x *string
			if s, ok := FormatText(arr.Items, i, ec.loc); ok {
				x = &s
			}
			v.A[i] = newRecord(v.T, []*string{x, &n})
		}
		if err := flush(v); err != nil {
			return err
		}
	case "aclexplode":
		// args: the ACL, then the session user's name (bound in bindSRF)
		arr := vals[0].A[0]
		var recs []*Array
		for k := 0; k < arr.Items.N; k++ {
			if arr.Items.IsNull(k) {
				continue
			}
			rs, err := explodeACLItem(f.recordType(), arr.Items.S[k], vals[1].S[0])
			if err != nil {
				return err
			}
			recs = append(recs, rs...)
		}
		v := NewVec(f.recordType(), len(recs))
		copy(v.A, recs)
		if err := flush(v); err != nil {
			return err
		}
	case "pg_get_keywords":
		kws := keywords()
		v := NewVec(f.recordType(), len(kws))
		for i, k := range kws {
			word, cat, bare, catDesc, bareDesc := k.word, k.cat, "f", keywordCatDesc[k.cat], keywordBareDesc(k.bare)
			if k.bare {
				bare = "t"
			}
			v.A[i] = newRecord(v.T, []*string{&word, &cat, &bare, &catDesc, &bareDesc})
		}
		if err := flush(v); err != nil {
			return err
		}
	case "pg_partition_ancestors", "pg_partition_tree":
		// no partitioning: a table that is not a partition has no rows
	case "pg_options_to_table":
		// each "name=value" option (a name alone has a NULL value)
		arr := vals[0].A[0]
		v := NewVec(f.recordType(), 0)
		for k := 0; k < arr.Items.N; k++ {
			if arr.Items.IsNull(k) {
				continue
			}
			name, value, hasValue := strings.Cut(arr.Items.S[k], "=")
			var val *string
			if hasValue {
				val = &value
			}
			v.grow(v.N + 1)
			v.A[v.N-1] = newRecord(v.T, []*string{&name, val})
		}
		if err := flush(v); err != nil {
			return err
		}
	case "generate_subscripts":
		// one-dimensional arrays: dimension 1 only; int2vector and
		// oidvector are 0-based
		arr := vals[0].A[0]
		if vals[1].I[0] != 1 || arr.Items.N == 0 {
			return nil
		}
		lo := int64(1)
		if arr.vector {
			lo = 0
		}
		v := NewVec(TInt4, arr.Items.N)
		rev := len(vals) == 3 && vals[2].B[0]
		for i := range v.I {
			if rev {
				v.I[i] = lo + int64(arr.Items.N-1-i)
			} else {
				v.I[i] = lo + int64(i)
			}
		}
		if err := flush(v); err != nil {
			return err
		}
	case "unnest":
		if err := flush(vals[0].A[0].Items); err != nil {
			return err
		}
	case "generate_series":
		t := f.cols[0].t
		switch t.Kind() {
		case KInt:
			if t.isTemporal() {
				start, stop, step := vals[0].I[0], vals[1].I[0], vals[2].V[0]
				if step == (Interval{}) {
					return errf(CodeInvalidParameterValue, "step size cannot equal zero")
				}
				neg := cmpInterval(step, Interval{}) < 0
				chunk := NewVec(t, 0)
				for cur := start; (!neg && cur <= stop) || (neg && cur >= stop); cur = addInterval(cur, step, t.OID == OIDTimestamptz, ec.loc) {
					chunk.grow(chunk.N + 1)
					chunk.I[chunk.N-1] = cur
					if chunk.N == batchSize {
						if err := flush(chunk); err != nil {
							return err
						}
						chunk = NewVec(t, 0)
					}
					if err := checkCancel(ec.run.ctx); err != nil {
						return err
					}
				}
				if err := flush(chunk); err != nil {
					return err
				}
				break
			}
			start, stop, step := vals[0].I[0], vals[1].I[0], int64(1)
			if len(vals) == 3 {
				step = vals[2].I[0]
			}
			if step == 0 {
				return errf(CodeInvalidParameterValue, "step size cannot equal zero")
			}
			in := func(c int64) bool { return (step > 0 && c <= stop) || (step < 0 && c >= stop) }
			done := false
			for cur := start; !done && in(cur); {
				chunk := NewVec(t, 0)
				for n := batchSize; n > 0 && !done && in(cur); n-- {
					chunk.grow(chunk.N + 1)
					chunk.I[chunk.N-1] = cur
					next := cur + step
					if (step > 0 && next < cur) || (step < 0 && next > cur) {
						done = true
					}
					cur = next
				}
				if err := flush(chunk); err != nil {
					return err
				}
				if err := checkCancel(ec.run.ctx); err != nil {
					return err
				}
			}
		case KNum:
			start, stop := vals[0].D[0], vals[1].D[0]
			var step = numOne()
			if len(vals) == 3 {
				step = vals[2].D[0]
			}
			if step.IsZero() {
				return errf(CodeInvalidParameterValue, "step size cannot equal zero")
			}
			chunk := NewVec(t, 0)
			cur := start
			for (step.Sign() > 0 && cur.Cmp(&stop) <= 0) || (step.Sign() < 0 && cur.Cmp(&stop) >= 0) {
				chunk.grow(chunk.N + 1)
				chunk.D[chunk.N-1].Set(&cur)
				if err := numAdd(&cur, &cur, &step); err != nil {
					return err
				}
				if chunk.N == batchSize {
					if err := flush(chunk); err != nil {
						return err
					}
					chunk = NewVec(t, 0)
				}
			}
			if err := flush(chunk); err != nil {
				return err
			}
		}
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
	switch name {
	case "jsonb_each", "json_each", "jsonb_each_text", "json_each_text":
		if len(args) != 1 {
			return nil, nil, unsupported("%s with these arguments is not supported", name)
		}
		jt, vt := TJSONB, TJSONB
		if strings.HasPrefix(name, "json_") {
			jt, vt = TJSON, TJSON
		}
		if strings.HasSuffix(name, "_text") {
			vt = TText
		}
		if args[0], err = b.coerce(args[0], jt, castImplicit, ""); err != nil {
			return nil, nil, noFunction(name, args)
		}
		if err := b.addAlias(sc, alias); err != nil {
			return nil, nil, err
		}
		scols := []scopeCol{{name: "key", t: TText, idx: 0}, {name: "value", t: vt, idx: 1}}
		if rf.Ordinality {
			scols = append(scols, scopeCol{name: "ordinality", t: TInt8, idx: 2})
		}
		if scols, err = applyAlias(scols, rf.Alias, alias); err != nil {
			return nil, nil, err
		}
		cols := make([]colInfo, len(scols))
		for i, c := range scols {
			cols[i] = colInfo{name: c.name, t: c.t}
		}
		return &funcScanNode{name: name, args: args, cols: cols, ord: rf.Ordinality}, scols, nil
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
	if strings.Contains(name, "array_elements") {
		colName = "value" // an OUT parameter name, not the alias
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

// bindSRF types the arguments of generate_series / unnest.
func (b *binder) bindSRF(name string, args []Expr) (Type, []Expr, error) {
	var t Type
	switch name {
	case "generate_series":
		if len(args) < 2 || len(args) > 3 {
			return Type{}, nil, noFunction(name, args)
		}
		ts := []Expr{args[0], args[1]}
		ct, err := b.commonType(ts, "generate_series")
		if err != nil {
			return Type{}, nil, err
		}
		switch {
		case ct.isInt():
			if ct.OID == OIDInt2 {
				ct = TInt4
			}
			for i := range args {
				if args[i], err = b.coerce(args[i], ct, castImplicit, ""); err != nil {
					return Type{}, nil, noFunction(name, args)
				}
			}
		case ct.OID == OIDNumeric || ct.OID == OIDFloat8 || ct.OID == OIDFloat4:
			if ct.Kind() == KFloat {
				return Type{}, nil, unsupported("generate_series over floating point is not supported")
			}
			for i := range args {
				if args[i], err = b.coerce(args[i], TNumeric, castImplicit, ""); err != nil {
					return Type{}, nil, noFunction(name, args)
				}
			}
		case ct.OID == OIDTimestamp || ct.OID == OIDTimestamptz || ct.OID == OIDDate:
			if ct.OID == OIDDate {
				ct = TTimestamptz
			}
			if len(args) != 3 {
				return Type{}, nil, noFunction(name, args)
			}
			for i := 0; i < 2; i++ {
				if args[i], err = b.coerce(args[i], ct, castImplicit, ""); err != nil {
					return Type{}, nil, err
				}
			}
			if args[2], err = b.coerce(args[2], TInterval, castImplicit, ""); err != nil {
				return Type{}, nil, err
			}
		default:
			return Type{}, nil, noFunction(name, args)
		}
		t = args[0].Type()
	case "jsonb_array_elements", "json_array_elements", "jsonb_array_elements_text", "json_array_elements_text", "jsonb_object_keys", "json_object_keys":
		if len(args) != 1 {
			return Type{}, nil, noFunction(name, args)
		}
		jt := TJSONB
		if strings.HasPrefix(name, "json_") {
			jt = TJSON
		}
		var err error
		if args[0], err = b.coerce(args[0], jt, castImplicit, ""); err != nil {
			return Type{}, nil, noFunction(name, args)
		}
		t = jt
		if strings.HasSuffix(name, "_text") || strings.HasSuffix(name, "_keys") {
			t = TText
		}
	case "regexp_matches", "regexp_split_to_table":
		if len(args) < 2 || len(args) > 3 || (name == "regexp_split_to_table" && len(args) != 2) {
			return Type{}, nil, noFunction(name, args)
		}
		for i := range args {
			var err error
			if args[i], err = b.coerce(args[i], TText, castImplicit, ""); err != nil {
				return Type{}, nil, noFunction(name, args)
			}
		}
		t = TText
		if name == "regexp_matches" {
			t = Type{1009, -1}
		}
	case "generate_subscripts":
		if len(args) < 2 || len(args) > 3 || !args[0].Type().IsArray() {
			return Type{}, nil, noFunction(name, args)
		}
		var err error
		if args[1], err = b.coerce(args[1], TInt4, castImplicit, ""); err != nil {
			return Type{}, nil, noFunction(name, args)
		}
		if len(args) == 3 {
			if args[2], err = b.coerce(args[2], TBool, castImplicit, ""); err != nil {
				return Type{}, nil, noFunction(name, args)
			}
		}
		t = TInt4
	case "_pg_expandarray":
		// information_schema._pg_expandarray(anyarray, OUT x anyelement,
		// OUT n int)
		if len(args) != 1 || !args[0].Type().IsArray() {
			return Type{}, nil, noFunction(name, args)
		}
		t = RecordType([]RecordField{{"x", args[0].Type().Elem()}, {"n", TInt4}})
	case "aclexplode":
		if len(args) != 1 || (args[0].Type().OID != OIDAclitemArray && args[0].Type().OID != OIDUnknown) {
			return Type{}, nil, noFunction(name, args)
		}
		var err error
		if args[0], err = b.coerce(args[0], Type{OIDAclitemArray, -1}, castImplicit, ""); err != nil {
			return Type{}, nil, noFunction(name, args)
		}
		user := NewVec(TText, 1)
		user.S[0] = b.cat.userName()
		args = append(args, newConst(user))
		t = RecordType([]RecordField{{"grantor", TOid}, {"grantee", TOid}, {"privilege_type", TText}, {"is_grantable", TBool}})
	case "pg_get_keywords":
		if len(args) != 0 {
			return Type{}, nil, noFunction(name, args)
		}
		t = RecordType([]RecordField{{"word", TText}, {"catcode", TChar}, {"barelabel", TBool}, {"catdesc", TText}, {"baredesc", TText}})
	case "pg_partition_ancestors", "pg_partition_tree":
		// no partitioning here: every relation answers no rows
		if len(args) != 1 {
			return Type{}, nil, noFunction(name, args)
		}
		a, err := b.regCast(args[0], TRegclass)
		if err != nil {
			return Type{}, nil, noFunction(name, args)
		}
		args[0], t = a, TRegclass
		if name == "pg_partition_tree" {
			t = RecordType([]RecordField{{"relid", TRegclass}, {"parentrelid", TRegclass}, {"isleaf", TBool}, {"level", TInt4}})
		}
	case "pg_options_to_table":
		// pg_options_to_table(text[], OUT option_name text, OUT option_value text)
		if len(args) != 1 {
			return Type{}, nil, noFunction(name, args)
		}
		var err error
		if args[0], err = b.coerce(args[0], Type{1009, -1}, castImplicit, ""); err != nil {
			return Type{}, nil, noFunction(name, args)
		}
		t = RecordType([]RecordField{{"option_name", TText}, {"option_value", TText}})
	case "unnest":
		if len(args) > 1 {
			// unnest(a, b, ...) (FROM only): one column per array
			var fields []RecordField
			for _, a := range args {
				if !a.Type().IsArray() {
					if a.Type().OID == OIDUnknown {
						return Type{}, nil, errf(CodeIndeterminateDatatype, "could not determine polymorphic type because input has type unknown")
					}
					return Type{}, nil, noFunction(name, args)
				}
				fields = append(fields, RecordField{Name: "unnest", Type: a.Type().Elem()})
			}
			t = RecordType(fields)
			break
		}
		if len(args) != 1 {
			return Type{}, nil, noFunction(name, args)
		}
		if !args[0].Type().IsArray() {
			if args[0].Type().OID == OIDUnknown {
				return Type{}, nil, errf(CodeIndeterminateDatatype, "could not determine polymorphic type because input has type unknown")
			}
			return Type{}, nil, noFunction(name, args)
		}
		t = args[0].Type().Elem()
	default:
		if isSetReturning(name) {
			return Type{}, nil, unsupported("set-returning function %s() is not supported", name)
		}
		return Type{}, nil, errNotSRF
	}
	return t, args, nil
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

// otherSRF reports the set-returning functions besides generate_series
// and unnest that bindSRF knows.
func otherSRF(name string) bool {
	switch name {
	case "regexp_matches", "regexp_split_to_table", "pg_partition_ancestors", "generate_subscripts", "_pg_expandarray", "pg_get_keywords", "aclexplode",
		"pg_options_to_table", "pg_partition_tree":
		return true
	case "jsonb_array_elements", "json_array_elements", "jsonb_array_elements_text", "json_array_elements_text", "jsonb_object_keys", "json_object_keys":
		return true
	}
	return false
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

// errNotSRF is bindSRF's answer for a function that returns no set: in
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
