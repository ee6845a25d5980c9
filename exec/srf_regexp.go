package exec

// regexp_matches and regexp_split_to_table (srf.go; regexSet computes
// the rows).

func init() {
	defSRF(&srfDef{bind: bindRegexSet, run: runRegexSet}, "regexp_matches", "regexp_split_to_table")
}

func bindRegexSet(b *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) < 2 || len(args) > 3 || (name == "regexp_split_to_table" && len(args) != 2) {
		return Type{}, nil, noFunction(name, args)
	}
	for i := range args {
		var err error
		if args[i], err = b.coerce(args[i], TText, castImplicit, ""); err != nil {
			return Type{}, nil, noFunction(name, args)
		}
	}
	if name == "regexp_matches" {
		return Type{1009, -1}, args, nil
	}
	return TText, args, nil
}

func runRegexSet(f *funcScanNode, _ *evalCtx, vals []*Vec, flush srfFlush) error {
	flags := ""
	if len(vals) == 3 {
		flags = vals[2].S[0]
	}
	v, err := regexSet(f.name, vals[0].S[0], vals[1].S[0], flags)
	if err != nil {
		return err
	}
	return flush(v)
}
