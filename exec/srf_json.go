package exec

import "strings"

// The json(b) set-returning functions (srf.go): array elements, object
// keys, and each's (key, value) rows.

func init() {
	defSRF(&srfDef{bind: bindJSONElements, run: runJSONElements, column: "value"},
		"jsonb_array_elements", "json_array_elements", "jsonb_array_elements_text", "json_array_elements_text")
	defSRF(&srfDef{bind: bindJSONElements, run: runJSONElements}, "jsonb_object_keys", "json_object_keys")
	// json(b)_each is a FROM item only (PostgreSQL returns a record in a
	// select list, which the engine does not build).
	defSRF(&srfDef{bind: bindJSONEach, run: runJSONEach, fromOnly: true}, "jsonb_each", "json_each", "jsonb_each_text", "json_each_text")
}

func bindJSONElements(b *binder, name string, args []Expr) (Type, []Expr, error) {
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
	t := jt
	if strings.HasSuffix(name, "_text") || strings.HasSuffix(name, "_keys") {
		t = TText
	}
	return t, args, nil
}

func runJSONElements(f *funcScanNode, _ *evalCtx, vals []*Vec, flush srfFlush) error {
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
	return flush(v)
}

// bindJSONEach: the (key, value) OUT columns, value json, jsonb or text.
func bindJSONEach(b *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) != 1 {
		return Type{}, nil, unsupported("%s with these arguments is not supported", name)
	}
	jt, vt := TJSONB, TJSONB
	if strings.HasPrefix(name, "json_") {
		jt, vt = TJSON, TJSON
	}
	if strings.HasSuffix(name, "_text") {
		vt = TText
	}
	var err error
	if args[0], err = b.coerce(args[0], jt, castImplicit, ""); err != nil {
		return Type{}, nil, noFunction(name, args)
	}
	return RecordType([]RecordField{{"key", TText}, {"value", vt}}), args, nil
}

func runJSONEach(f *funcScanNode, _ *evalCtx, vals []*Vec, flush srfFlush) error {
	keys, values, err := jsonEach(f.name, vals[0].S[0])
	if err != nil {
		return err
	}
	kv := NewVec(TText, len(keys))
	copy(kv.S, keys)
	vv := NewVec(f.cols[1].t, len(keys))
	for i, v := range values {
		if v == nil {
			vv.SetNull(i)
		} else {
			vv.S[i] = *v
		}
	}
	return flush(kv, vv)
}
