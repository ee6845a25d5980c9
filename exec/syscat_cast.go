package exec

// pg_cast: the casts between the engine's types, as the engine performs
// them. Each PostgreSQL 15 cast whose source and target types the engine
// has (pg15/casts.tsv) is listed when the engine's cast rules (canCast)
// allow it, with PostgreSQL's OID, function and method, and with the
// context the engine applies: implicit when it casts in expressions,
// assignment when only on INSERT/UPDATE, explicit when only with CAST or
// ::. Casts the engine performs that are not in PostgreSQL's pg_cast
// (conversions through text input/output, which PostgreSQL does not list
// either) are not shown.

func init() {
	pgCatalogRels["pg_cast"] = &sysRelation{2605, "oid oid, castsource oid, casttarget oid, castfunc oid, castcontext char, castmethod char", func(*catalogSet) [][]any {
		var rows [][]any
		for _, c := range catalogCasts() {
			rows = append(rows, []any{c.oid, c.source, c.target, c.fn, string(c.context), string(c.method)})
		}
		return rows
	}}
}

// catalogCasts lists pg_cast's rows.
func catalogCasts() []pgCastFact {
	var out []pgCastFact
	for _, c := range pgCastFacts() {
		if _, ok := typeInfos[c.source]; !ok {
			continue
		}
		if _, ok := typeInfos[c.target]; !ok {
			continue
		}
		ctx, ok := engineCastContext(Type{c.source, -1}, Type{c.target, -1})
		if !ok {
			continue
		}
		c.context = ctx
		out = append(out, c)
	}
	return out
}

// engineCastContext is pg_cast.castcontext for the engine's cast from
// from to to: 'i' implicit, 'a' assignment, 'e' explicit; ok is false
// when the engine does not cast at all.
func engineCastContext(from, to Type) (byte, bool) {
	switch {
	case canCast(from, to, castImplicit):
		return 'i', true
	case canCast(from, to, castAssignment):
		return 'a', true
	case canCast(from, to, castExplicit):
		return 'e', true
	}
	return 0, false
}
