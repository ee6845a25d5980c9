package exec

import "strconv"

// infoColumnsRow is one row of information_schema.columns (typedRelation;
// `any` fields are NULL where PostgreSQL leaves them NULL).
type infoColumnsRow struct {
	TableCatalog           string `pg:"table_catalog sql_identifier"`
	TableSchema            string `pg:"table_schema sql_identifier"`
	TableName              string `pg:"table_name sql_identifier"`
	ColumnName             string `pg:"column_name sql_identifier"`
	OrdinalPosition        int    `pg:"ordinal_position cardinal_number"`
	ColumnDefault          any    `pg:"column_default character_data"`
	IsNullable             string `pg:"is_nullable yes_or_no"`
	DataType               string `pg:"data_type character_data"`
	CharacterMaximumLength any    `pg:"character_maximum_length cardinal_number"`
	CharacterOctetLength   any    `pg:"character_octet_length cardinal_number"`
	NumericPrecision       any    `pg:"numeric_precision cardinal_number"`
	NumericPrecisionRadix  any    `pg:"numeric_precision_radix cardinal_number"`
	NumericScale           any    `pg:"numeric_scale cardinal_number"`
	DatetimePrecision      any    `pg:"datetime_precision cardinal_number"`
	IntervalType           any    `pg:"interval_type character_data"`
	IntervalPrecision      any    `pg:"interval_precision cardinal_number"`
	CharacterSetCatalog    any    `pg:"character_set_catalog sql_identifier"`
	CharacterSetSchema     any    `pg:"character_set_schema sql_identifier"`
	CharacterSetName       any    `pg:"character_set_name sql_identifier"`
	CollationCatalog       any    `pg:"collation_catalog sql_identifier"`
	CollationSchema        any    `pg:"collation_schema sql_identifier"`
	CollationName          any    `pg:"collation_name sql_identifier"`
	DomainCatalog          any    `pg:"domain_catalog sql_identifier"`
	DomainSchema           any    `pg:"domain_schema sql_identifier"`
	DomainName             any    `pg:"domain_name sql_identifier"`
	UDTCatalog             string `pg:"udt_catalog sql_identifier"`
	UDTSchema              string `pg:"udt_schema sql_identifier"`
	UDTName                string `pg:"udt_name sql_identifier"`
	ScopeCatalog           any    `pg:"scope_catalog sql_identifier"`
	ScopeSchema            any    `pg:"scope_schema sql_identifier"`
	ScopeName              any    `pg:"scope_name sql_identifier"`
	MaximumCardinality     any    `pg:"maximum_cardinality cardinal_number"`
	DTDIdentifier          string `pg:"dtd_identifier sql_identifier"`
	IsSelfReferencing      string `pg:"is_self_referencing yes_or_no"`
	IsIdentity             string `pg:"is_identity yes_or_no"`
	IdentityGeneration     any    `pg:"identity_generation character_data"`
	IdentityStart          any    `pg:"identity_start character_data"`
	IdentityIncrement      any    `pg:"identity_increment character_data"`
	IdentityMaximum        any    `pg:"identity_maximum character_data"`
	IdentityMinimum        any    `pg:"identity_minimum character_data"`
	IdentityCycle          string `pg:"identity_cycle yes_or_no"`
	IsGenerated            string `pg:"is_generated character_data"`
	GenerationExpression   any    `pg:"generation_expression character_data"`
	IsUpdatable            string `pg:"is_updatable yes_or_no"`
}

func init() {
	infoSchemaRels["columns"] = typedRelation(13295, (*catalogSet).infoColumnsRows)
}

func (c *catalogSet) infoColumnsRows() []infoColumnsRow {
	var rows []infoColumnsRow
	for _, t := range c.userTables() {
		pk := map[int]bool{}
		for _, k := range t.PrimaryKey {
			pk[k] = true
		}
		for i, col := range t.Columns {
			ct := col.Type
			r := infoColumnsRow{TableCatalog: c.database(), TableSchema: t.Schema, TableName: t.RelName(),
				ColumnName: col.Name, OrdinalPosition: i + 1, DataType: FormatType(ct.OID, -1),
				UDTCatalog: c.database(), UDTSchema: "pg_catalog", UDTName: ct.Name(),
				DTDIdentifier: strconv.Itoa(i + 1), IsSelfReferencing: "NO", IsIdentity: boolYN(col.Identity != 0),
				IdentityCycle: "NO", IsGenerated: "NEVER", IsUpdatable: viewColumnUpdatable(t)}
			r.setTypeSizes(ct)
			switch {
			case ct.OID == OIDBpchar:
				r.DataType = "character"
			case ct.IsArray():
				r.DataType = "ARRAY"
			}
			if IsEnumOID(ct.OID) { // a user type (enums.go)
				r.UDTSchema = "public"
				if !ct.IsArray() {
					r.DataType = "USER-DEFINED"
				}
			}
			if col.Default != "" && col.Identity == 0 {
				r.ColumnDefault = col.Default
			}
			// collation_*: named only when not "default" (name's "C")
			if typeCollation(ct) == 950 {
				r.CollationCatalog, r.CollationSchema, r.CollationName = c.database(), "pg_catalog", "C"
			}
			notNull := col.NotNull || pk[i]
			if d := c.domainByOID(col.Domain); d != nil { // domains.go
				r.DomainCatalog, r.DomainSchema, r.DomainName = c.database(), d.schema(), d.Name
				notNull = notNull || d.NotNull
			}
			r.IsNullable = boolYN(!notNull)
			c.setIdentity(&r, t, col)
			rows = append(rows, r)
		}
	}
	return rows
}

// setTypeSizes fills the length, precision and scale columns of a
// column of type ct as PostgreSQL's information_schema computes them.
func (r *infoColumnsRow) setTypeSizes(ct Type) {
	switch ct.OID {
	case OIDVarchar, OIDBpchar:
		if ct.Mod >= 4 {
			r.CharacterMaximumLength = int(ct.Mod - 4)
			r.CharacterOctetLength = int(ct.Mod-4) * 4
		} else {
			r.CharacterOctetLength = 1073741824
		}
	case OIDText:
		r.CharacterOctetLength = 1073741824
	case OIDInt2:
		r.NumericPrecision, r.NumericPrecisionRadix, r.NumericScale = 16, 2, 0
	case OIDInt4:
		r.NumericPrecision, r.NumericPrecisionRadix, r.NumericScale = 32, 2, 0
	case OIDInt8:
		r.NumericPrecision, r.NumericPrecisionRadix, r.NumericScale = 64, 2, 0
	case OIDFloat4:
		r.NumericPrecision, r.NumericPrecisionRadix = 24, 2
	case OIDFloat8:
		r.NumericPrecision, r.NumericPrecisionRadix = 53, 2
	case OIDNumeric:
		r.NumericPrecisionRadix = 10
		if ct.Mod >= 4 {
			r.NumericPrecision, r.NumericScale = int((ct.Mod-4)>>16), int((ct.Mod-4)&0xffff)
		}
	case OIDDate:
		r.DatetimePrecision = 0
	case OIDTimestamp, OIDTimestamptz, OIDTime:
		r.DatetimePrecision = 6
		if ct.Mod >= 0 {
			r.DatetimePrecision = int(ct.Mod)
		}
	}
}

// setIdentity fills the identity_* columns of an identity column from
// its sequence.
func (c *catalogSet) setIdentity(r *infoColumnsRow, t *TableDef, col ColumnDef) {
	if col.Identity == 0 {
		return
	}
	r.IdentityGeneration = "BY DEFAULT"
	if col.Identity == IdentityAlways {
		r.IdentityGeneration = "ALWAYS"
	}
	for _, s := range c.sequences() {
		if s.Name == col.OwnedSequence && s.schema() == schemaName(t.Schema) {
			f := func(n int64) string { return strconv.FormatInt(n, 10) }
			r.IdentityStart, r.IdentityIncrement, r.IdentityMaximum, r.IdentityMinimum = f(s.Start), f(s.Increment), f(s.Max), f(s.Min)
			r.IdentityCycle = boolYN(s.Cycle)
			return
		}
	}
}
