package exec

// set_config(name, value, is_local) as far as a query can honour it: a
// query's evaluation has no way to change its session's settings (SET does
// that, see docs/architecture.md), so a call that would leave the setting
// as it is answers the value like PostgreSQL does, one that would change it
// answers 0A000 rather than pretending, and an unknown name answers
// PostgreSQL's 42704. pg_dump calls it only for settings this server
// lists in pg_settings, so with the settings it does not have the call is
// bound but never evaluated.
func init() {
	defCustom("set_config", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 3 {
			return nil, noFunction("set_config", args)
		}
		var err error
		for i, t := range []Type{TText, TText, TBool} {
			if args[i], err = b.coerce(args[i], t, castImplicit, ""); err != nil {
				return nil, noFunction("set_config", args)
			}
		}
		return &opExpr{name: "set_config", t: TText, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				name, val := a[0].S[i], a[1].S[i]
				cur, ok := settingValue(ec.run.settings, name)
				switch {
				case !ok:
					return errf(CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
				case cur != val:
					return unsupported("set_config() changing a setting is not supported; use SET %s", name)
				}
				out.S[i] = cur
			}
			return nil
		}}, nil
	})
}
