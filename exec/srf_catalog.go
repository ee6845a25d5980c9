package exec

import (
	"strconv"
	"strings"
)

// The catalog set-returning functions (srf.go): _pg_expandarray,
// aclexplode, pg_get_keywords, pg_partition_ancestors/tree,
// pg_options_to_table.

func init() {
	defSRF(&srfDef{bind: bindExpandArray, run: runExpandArray}, "_pg_expandarray")
	defSRF(&srfDef{bind: bindACLExplode, run: runACLExplode}, "aclexplode")
	defSRF(&srfDef{bind: bindGetKeywords, run: runGetKeywords}, "pg_get_keywords")
	defSRF(&srfDef{bind: bindPartitionSet, run: func(*funcScanNode, *evalCtx, []*Vec, srfFlush) error {
		return nil // no partitioning: a table that is not a partition has no rows
	}}, "pg_partition_ancestors", "pg_partition_tree")
	defSRF(&srfDef{bind: bindOptionsToTable, run: runOptionsToTable}, "pg_options_to_table")
}

// bindExpandArray: information_schema._pg_expandarray(anyarray,
// OUT x anyelement, OUT n int).
func bindExpandArray(_ *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) != 1 || !args[0].Type().IsArray() {
		return Type{}, nil, noFunction(name, args)
	}
	return RecordType([]RecordField{{"x", args[0].Type().Elem()}, {"n", TInt4}}), args, nil
}

// runExpandArray: (x, n), each element with its 1-based position.
func runExpandArray(f *funcScanNode, ec *evalCtx, vals []*Vec, flush srfFlush) error {
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
	return flush(v)
}

// bindACLExplode appends the session user's name to the ACL argument:
// explodeACLItem resolves role names against it.
func bindACLExplode(b *binder, name string, args []Expr) (Type, []Expr, error) {
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
	return RecordType([]RecordField{{"grantor", TOid}, {"grantee", TOid}, {"privilege_type", TText}, {"is_grantable", TBool}}), args, nil
}

func runACLExplode(f *funcScanNode, _ *evalCtx, vals []*Vec, flush srfFlush) error {
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
	return flush(v)
}

func bindGetKeywords(_ *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) != 0 {
		return Type{}, nil, noFunction(name, args)
	}
	return RecordType([]RecordField{{"word", TText}, {"catcode", TChar}, {"barelabel", TBool}, {"catdesc", TText}, {"baredesc", TText}}), args, nil
}

func runGetKeywords(f *funcScanNode, _ *evalCtx, _ []*Vec, flush srfFlush) error {
	kws := keywords()
	v := NewVec(f.recordType(), len(kws))
	for i, k := range kws {
		word, cat, bare, catDesc, bareDesc := k.word, k.cat, "f", keywordCatDesc[k.cat], keywordBareDesc(k.bare)
		if k.bare {
			bare = "t"
		}
		v.A[i] = newRecord(v.T, []*string{&word, &cat, &bare, &catDesc, &bareDesc})
	}
	return flush(v)
}

// bindPartitionSet: no partitioning here, every relation answers no rows.
func bindPartitionSet(b *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) != 1 {
		return Type{}, nil, noFunction(name, args)
	}
	a, err := b.regCast(args[0], TRegclass)
	if err != nil {
		return Type{}, nil, noFunction(name, args)
	}
	args[0] = a
	if name == "pg_partition_tree" {
		return RecordType([]RecordField{{"relid", TRegclass}, {"parentrelid", TRegclass}, {"isleaf", TBool}, {"level", TInt4}}), args, nil
	}
	return TRegclass, args, nil
}

// bindOptionsToTable: pg_options_to_table(text[], OUT option_name text,
// OUT option_value text).
func bindOptionsToTable(b *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) != 1 {
		return Type{}, nil, noFunction(name, args)
	}
	var err error
	if args[0], err = b.coerce(args[0], Type{1009, -1}, castImplicit, ""); err != nil {
		return Type{}, nil, noFunction(name, args)
	}
	return RecordType([]RecordField{{"option_name", TText}, {"option_value", TText}}), args, nil
}

// runOptionsToTable: each "name=value" option (a name alone has a NULL
// value).
func runOptionsToTable(f *funcScanNode, _ *evalCtx, vals []*Vec, flush srfFlush) error {
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
	return flush(v)
}
