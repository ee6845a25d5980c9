package exec

import "sort"

// pg_type: the engine's types. A type PostgreSQL 15 has is described by
// PostgreSQL's own row (pg15/types.tsv: length, alignment, category,
// array and element types, I/O functions); the others (pgvector's vector,
// which pggraph builds in) by what the engine knows of them. The user
// tables' row types follow (syscat_depend.go).

func init() {
	pgCatalogRels["pg_type"] = &sysRelation{1247, "oid oid, typname name, typnamespace oid, typowner oid, typlen int2, typbyval bool, typtype char, typcategory char, typispreferred bool, typisdefined bool, typdelim char, typrelid oid, typsubscript regproc, typelem oid, typarray oid, typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc, typanalyze regproc, typalign char, typstorage char, typnotnull bool, typbasetype oid, typtypmod int4, typndims int4, typcollation oid, typdefaultbin pg_node_tree, typdefault text, typacl aclitem[]", func(c *catalogSet) [][]any {
		return append(append(append(builtinTypeRows(), c.rowTypeRows()...), c.enumTypeRows()...), c.domainTypeRows()...)
	}}
}

// builtinTypeRows are the pg_type rows of the engine's own types.
func builtinTypeRows() [][]any {
	catalogProcs() // names the I/O functions (regproc output)
	var oids []uint32
	for oid := range typeInfos {
		oids = append(oids, oid)
	}
	sort.Slice(oids, func(i, j int) bool { return oids[i] < oids[j] })
	facts := pgTypeFacts()
	var rows [][]any
	for _, oid := range oids {
		if f := facts[oid]; f != nil {
			rows = append(rows, []any{oid, f.name, nspOID(f.nsp), oidPostgresRole, f.len, f.byVal, string(f.typtype), string(f.category),
				f.preferred, true, string(f.delim), 0, f.subscript, f.elem, f.array, f.input, f.output, f.receive, f.send,
				f.modIn, f.modOut, f.analyze, string(f.align), string(f.storage), f.notNull, f.baseType, f.typmod, f.ndims,
				f.collation, nil, typDefault(oid), nil})
			continue
		}
		rows = append(rows, engineTypeRow(oid))
	}
	return rows
}

// engineTypeRow describes a type PostgreSQL 15 does not have: a base type
// with the engine's length and category, array types with PostgreSQL's
// array I/O functions.
func engineTypeRow(oid uint32) []any {
	ti := info(oid)
	byval := ti.len > 0 && ti.len <= 8 && ti.cat != 'A'
	align := "i"
	if ti.len == 8 {
		align = "d"
	}
	elem := ti.elem
	var in, out, recv, send, subscript uint32
	if ti.cat == 'A' {
		in, out, recv, send = procOIDOr0("array_in"), procOIDOr0("array_out"), procOIDOr0("array_recv"), procOIDOr0("array_send")
		subscript = procOIDOr0("array_subscript_handler")
	} else {
		in, out, recv, send = procOIDOr0(ti.name+"_in"), procOIDOr0(ti.name+"_out"), procOIDOr0(ti.name+"_recv"), procOIDOr0(ti.name+"_send")
	}
	if oid == OIDVector {
		elem = 0 // not subscriptable (its float4 items are internal)
	}
	coll := typeCollation(Type{oid, -1})
	return []any{oid, ti.name, oidPgCatalog, oidPostgresRole, ti.len, byval, "b", string(ti.cat), ti.pref, true, ",", 0, subscript, elem, ti.array,
		in, out, recv, send, 0, 0, 0, align, typStorage(oid), false, 0, -1, 0, coll, nil, nil, nil}
}

// typeLayout is what pg_attribute copies from pg_type.
type typeLayout struct {
	len            int16
	byVal          bool
	align, storage string
}

// layoutOf is a type's length, by-value flag, alignment and storage:
// PostgreSQL's for the types it has, derived for the others.
func layoutOf(oid uint32) typeLayout {
	if b, ok := DomainBase(oid); ok {
		return layoutOf(b.OID) // a domain is laid out as its base type
	}
	if f := pgTypeFacts()[oid]; f != nil {
		return typeLayout{f.len, f.byVal, string(f.align), string(f.storage)}
	}
	ti := info(oid)
	align := "i"
	if ti.len == 8 {
		align = "d"
	}
	return typeLayout{ti.len, ti.len > 0 && ti.len <= 8 && ti.cat != 'A', align, typStorage(oid)}
}
