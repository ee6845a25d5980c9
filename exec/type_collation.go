package exec

// typeCollation is a type's default collation as pg_type.typcollation
// (and pg_attribute.attcollation of a column declared without COLLATE)
// report it: name and the information_schema domains over it use "C"
// (950), the other collatable string types "default" (100), "char" and
// the non-string types none; an array type has its element's. psql's \d
// prints a column's collation only when it differs from its type's, so
// the two must agree.
func typeCollation(t Type) uint32 {
	if t.IsArray() {
		t = t.Elem() // an array has its element's collation
	}
	switch t.OID {
	case OIDName, OIDSQLIdentifier, OIDCharacterData, OIDYesOrNo:
		return 950
	case OIDChar:
		return 0
	}
	if t.isString() {
		return 100
	}
	return 0
}
