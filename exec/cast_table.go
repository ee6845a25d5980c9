package exec

// The casts between individual types, with the context each needs
// (pg_cast's castcontext): canCast (cast.go) looks a pair up here before
// its rules for type families (strings, arrays, jsonb's scalars,
// pgvector). A pair listed as castNever has no cast in any context.

// castKey is a cast from one type to another.
type castKey struct{ from, to uint32 }

// castNever marks a pair without a cast; no context reaches it.
const castNever castContext = castExplicit + 1

// castPairs maps a pair to the least context its cast needs.
var castPairs = map[castKey]castContext{}

// defCast registers the casts from each of froms to each of tos (a type
// to itself excepted: that is no conversion).
func defCast(cc castContext, froms, tos []uint32) {
	for _, f := range froms {
		for _, t := range tos {
			if f != t {
				castPairs[castKey{f, t}] = cc
			}
		}
	}
}

var oidTypeOIDs = []uint32{OIDOid, OIDRegclass, OIDRegtype, OIDRegnamespace, OIDRegproc, OIDRegprocedure, OIDRegoperator}

func init() {
	// "char" and integer convert by the character's code, explicitly
	defCast(castExplicit, []uint32{OIDInt4}, []uint32{OIDChar})
	defCast(castExplicit, []uint32{OIDChar}, []uint32{OIDInt4})
	// integers: widening and to numeric or float implicitly, narrowing by
	// assignment
	for _, f := range intOIDs {
		for _, t := range intOIDs {
			cc := castAssignment
			if intRank(Type{f, -1}) < intRank(Type{t, -1}) {
				cc = castImplicit
			}
			defCast(cc, []uint32{f}, []uint32{t})
		}
	}
	defCast(castImplicit, intOIDs, []uint32{OIDNumeric, OIDFloat4, OIDFloat8})
	defCast(castImplicit, intOIDs, oidTypeOIDs)
	// an OID alias type converts to and from oid implicitly, not to
	// another alias (PostgreSQL's pg_cast), except between regproc and
	// regprocedure; to int4 and int8 by assignment
	defCast(castNever, oidTypeOIDs, oidTypeOIDs)
	defCast(castImplicit, []uint32{OIDOid}, oidTypeOIDs)
	defCast(castImplicit, oidTypeOIDs, []uint32{OIDOid})
	defCast(castImplicit, []uint32{OIDRegproc}, []uint32{OIDRegprocedure})
	defCast(castImplicit, []uint32{OIDRegprocedure}, []uint32{OIDRegproc})
	defCast(castAssignment, oidTypeOIDs, []uint32{OIDInt4, OIDInt8})
	// 'name'::text reaches regclass arguments (pg_table_size(text))
	defCast(castImplicit, []uint32{OIDText, OIDVarchar}, []uint32{OIDRegclass})
	// the extended-statistics types (pg_ndistinct, pg_dependencies,
	// pg_mcv_list: pg_statistic_ext_data's columns) to text and bytea
	defCast(castImplicit, []uint32{3361, 3402, 5017}, []uint32{OIDText, OIDBytea})
	// numeric and float
	defCast(castImplicit, []uint32{OIDNumeric}, []uint32{OIDFloat4, OIDFloat8})
	defCast(castAssignment, []uint32{OIDNumeric}, intOIDs)
	defCast(castImplicit, []uint32{OIDFloat4}, []uint32{OIDFloat8})
	defCast(castAssignment, []uint32{OIDFloat8}, []uint32{OIDFloat4})
	defCast(castAssignment, []uint32{OIDFloat4, OIDFloat8}, append([]uint32{OIDNumeric}, intOIDs...))
	// date and time
	defCast(castImplicit, []uint32{OIDDate}, []uint32{OIDTimestamp, OIDTimestamptz})
	defCast(castImplicit, []uint32{OIDTimestamp}, []uint32{OIDTimestamptz})
	defCast(castImplicit, []uint32{OIDTime}, []uint32{OIDInterval})
	defCast(castAssignment, []uint32{OIDInterval}, []uint32{OIDTime})
	defCast(castAssignment, []uint32{OIDTimestamp, OIDTimestamptz}, []uint32{OIDDate, OIDTimestamp, OIDTime})
	// bool and int4 explicitly; json and jsonb by assignment
	defCast(castExplicit, []uint32{OIDBool}, []uint32{OIDInt4})
	defCast(castExplicit, []uint32{OIDInt4}, []uint32{OIDBool})
	defCast(castAssignment, []uint32{OIDJSON, OIDJSONB}, []uint32{OIDJSON, OIDJSONB})
}

// pairCast looks a pair up in castPairs: ok is false for a pair the
// table does not hold.
func pairCast(from, to Type, cc castContext) (allowed, ok bool) {
	need, ok := castPairs[castKey{from.OID, to.OID}]
	return ok && cc >= need, ok
}
