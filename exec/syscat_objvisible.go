package exec

// Visibility of built-in objects (pg_function_is_visible,
// pg_collation_is_visible): an object is visible when its schema is on
// the search path. The built-in functions and collations live in
// pg_catalog, which is always searched, except information_schema's
// functions (_pg_expandarray, ...), visible only when that schema is on
// the path. An OID that names no such object answers NULL, as in
// PostgreSQL.

func init() {
	defCustom("pg_function_is_visible", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 {
			return nil, noFunction("pg_function_is_visible", args)
		}
		a, err := b.coerce(args[0], TOid, castImplicit, "")
		if err != nil {
			return nil, err
		}
		cat := b.cat
		return &opExpr{name: "pg_function_is_visible", t: TBool, args: []Expr{a}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			onPath := cat.searchPathSchemas()
			for _, i := range sel {
				if f, ok := procByOID(uint32(a[0].I[i])); ok {
					out.B[i] = onPath[f.nsp]
				} else if u, ok := userProcByOID(uint32(a[0].I[i])); ok {
					out.B[i] = onPath[u.Schema] // user_functions.go
				} else {
					out.SetNull(int(i))
				}
			}
			return nil
		}}, nil
	})
	def("pg_collation_is_visible", sig(TBool, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			switch a[0].I[i] {
			case 100, 950, 951: // default, C, POSIX (pg_collation)
				out.B[i] = true
			default:
				out.SetNull(int(i))
			}
		}
		return nil
	}, TOid))
}
