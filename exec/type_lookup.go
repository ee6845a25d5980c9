package exec

// TypeNamed resolves a built-in type by the name a statement spells it
// with (lowercased, without schema or modifiers: "bool", "int4",
// "double precision"); callers outside the binder use it to check a
// typed literal's text the way the binder will.
func TypeNamed(name string) (Type, bool) {
	oid, ok := typeNames[name]
	if !ok {
		return Type{}, false
	}
	return Type{OID: oid, Mod: -1}, true
}
