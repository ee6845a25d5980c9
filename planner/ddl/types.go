package ddl

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/lance/schema"
)

// PGType is a column's exact PostgreSQL type: the OID and typmod exec and
// pg_catalog see, plus the pgvector dimension (vector(n) has no built-in
// OID: exec sees float4[] and Dims keeps the declared length).
type PGType struct {
	OID  uint32 `json:"oid"`
	Mod  int32  `json:"mod"`
	Dims int32  `json:"dims,omitempty"`
}

// Exec is the column's executor type; vector(n) is exec's vector type
// (pgvector's '[1,2,3]' text form), not real[].
func (t PGType) Exec() exec.Type {
	if t.IsVector() {
		return exec.VectorType(int(t.Dims))
	}
	return exec.Type{OID: t.OID, Mod: t.Mod}
}

// IsVector reports a pgvector-style vector(n) column.
func (t PGType) IsVector() bool { return t.Dims > 0 }

// String is PostgreSQL's format_type spelling ("character varying(20)",
// "numeric(10,2)", "vector(3)").
func (t PGType) String() string {
	if t.IsVector() {
		return fmt.Sprintf("vector(%d)", t.Dims)
	}
	return exec.FormatType(t.OID, t.Mod)
}

// oidFloat4Array is float4[], the type exec sees for vector(n).
const oidFloat4Array uint32 = 1021

// NumericMaxDecimal128 is the largest numeric precision stored as Arrow
// decimal128; wider numerics (and numeric without a precision) are stored
// as utf8 text of the exact value, which is what exec reads for numeric.
const NumericMaxDecimal128 = 38

// ArrowType is the Lance/Arrow storage type of t. It refuses (0A000)
// types the storage layer cannot represent yet.
func (t PGType) ArrowType() (arrow.DataType, error) {
	dt, err := t.arrowType()
	if err != nil {
		return nil, err
	}
	// The catalog stores a Lance logical-type string per column: a type
	// that does not survive that round trip cannot be registered.
	lt, err := storageTypeString(dt)
	if err == nil {
		var back arrow.DataType
		back, err = schema.ParseLogicalType(lt)
		if err == nil && !arrow.TypeEqual(back, dt) {
			err = fmt.Errorf("logical type %q reads back as %s", lt, back)
		}
	}
	if err != nil {
		return nil, errorf(CodeFeatureNotSupported, "column type %s is not supported yet", t).WithDetail(err.Error())
	}
	return dt, nil
}

// storageTypeString is the catalog's type string of a storage type:
// Lance's logical type, except lists, whose Lance logical type ("list")
// does not name the element: they are "list:<element logical type>".
func storageTypeString(dt arrow.DataType) (string, error) {
	if l, ok := dt.(*arrow.ListType); ok {
		inner, err := storageTypeString(l.Elem())
		if err != nil {
			return "", err
		}
		return "list:" + inner, nil
	}
	return schema.LogicalType(dt)
}

func (t PGType) arrowType() (arrow.DataType, error) {
	if t.IsVector() {
		return arrow.FixedSizeListOfField(t.Dims, arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float32, Nullable: true}), nil
	}
	et := t.Exec()
	if et.IsArray() {
		inner, err := PGType{OID: et.Elem().OID, Mod: t.Mod}.arrowType()
		if err != nil {
			return nil, err
		}
		return arrow.ListOf(inner), nil
	}
	if exec.IsEnumOID(t.OID) {
		return arrow.BinaryTypes.String, nil // the label (enum.go)
	}
	switch t.OID {
	case exec.OIDNumeric:
		if t.Mod >= 4 {
			p, s := numericPrecScale(t.Mod)
			if p <= NumericMaxDecimal128 {
				return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
			}
		}
		return arrow.BinaryTypes.String, nil
	case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar, exec.OIDName, exec.OIDJSON, exec.OIDJSONB:
		return arrow.BinaryTypes.String, nil
	case exec.OIDBool, exec.OIDInt2, exec.OIDInt4, exec.OIDInt8, exec.OIDFloat4, exec.OIDFloat8,
		exec.OIDDate, exec.OIDTimestamp, exec.OIDTimestamptz, exec.OIDTime, exec.OIDBytea, exec.OIDUUID:
		return exec.ArrowType(et), nil
	}
	return nil, fmt.Errorf("no storage type for %s", t)
}

func numericPrecScale(mod int32) (int32, int32) {
	m := mod - 4
	return (m >> 16) & 0xffff, m & 0xffff
}

// serialKinds maps the serial pseudo-types to their integer column type.
var serialKinds = map[string]uint32{
	"smallserial": exec.OIDInt2, "serial2": exec.OIDInt2,
	"serial": exec.OIDInt4, "serial4": exec.OIDInt4,
	"bigserial": exec.OIDInt8, "serial8": exec.OIDInt8,
}

// scalarTypes resolves the (lowercased, pg_catalog-stripped) names the
// grammar produces to type OIDs.
var scalarTypes = map[string]uint32{
	"bool": exec.OIDBool, "boolean": exec.OIDBool,
	"int2": exec.OIDInt2, "smallint": exec.OIDInt2,
	"int4": exec.OIDInt4, "int": exec.OIDInt4, "integer": exec.OIDInt4,
	"int8": exec.OIDInt8, "bigint": exec.OIDInt8,
	"float4": exec.OIDFloat4, "real": exec.OIDFloat4,
	"float8": exec.OIDFloat8, "double precision": exec.OIDFloat8,
	"numeric": exec.OIDNumeric, "decimal": exec.OIDNumeric,
	"text": exec.OIDText, "varchar": exec.OIDVarchar, "character varying": exec.OIDVarchar,
	"bpchar": exec.OIDBpchar, "character": exec.OIDBpchar,
	"bytea": exec.OIDBytea, "date": exec.OIDDate,
	"timestamp": exec.OIDTimestamp, "timestamptz": exec.OIDTimestamptz,
	"time": exec.OIDTime,
	"uuid": exec.OIDUUID, "json": exec.OIDJSON, "jsonb": exec.OIDJSONB,
	"name": exec.OIDName,
}

// knownUnsupported are real PostgreSQL types pggraph does not store yet:
// naming one answers 0A000 instead of "does not exist".
var knownUnsupported = map[string]bool{
	"interval": true, "timetz": true, "money": true, "inet": true, "cidr": true, "macaddr": true,
	"macaddr8": true, "point": true, "line": true, "lseg": true, "box": true, "path": true,
	"polygon": true, "circle": true, "tsvector": true, "tsquery": true, "xml": true, "bit": true,
	"varbit": true, "int4range": true, "int8range": true, "numrange": true, "tsrange": true,
	"tstzrange": true, "daterange": true, "oid": true, "char": true, "jsonpath": true,
	"pg_lsn": true, "txid_snapshot": true, "regclass": true, "halfvec": true, "sparsevec": true,
}

// typeName renders a TypeName's name as written (schema stripped when
// pg_catalog or public).
func typeNameParts(tn *q.TypeName) (string, error) {
	var parts []string
	for _, n := range tn.Names {
		s := n.GetString_()
		if s == nil {
			return "", errorf(CodeSyntaxError, "invalid type name")
		}
		parts = append(parts, s.Sval)
	}
	switch {
	case len(parts) == 2 && (parts[0] == "pg_catalog" || parts[0] == "public"):
		return parts[1], nil
	case len(parts) == 1:
		return parts[0], nil
	}
	return strings.Join(parts, "."), nil
}

// resolvedType is a column type plus the serial flavour when the column
// was declared serial/bigserial/smallserial.
type resolvedType struct {
	PGType
	Serial bool
	// Domain is the domain (or array of one) the type names (domain.go):
	// PGType is then its base type
	Domain uint32
}

// ResolveType maps a parsed type name to its exact PostgreSQL type.
func resolveType(tn *q.TypeName) (resolvedType, error) {
	if tn == nil {
		return resolvedType{}, errorf(CodeSyntaxError, "missing type")
	}
	if tn.Setof || tn.PctType {
		return resolvedType{}, notSupported("%s type reference", map[bool]string{true: "SETOF", false: "%TYPE"}[tn.Setof])
	}
	name, err := typeNameParts(tn)
	if err != nil {
		return resolvedType{}, err
	}
	mods, err := typmodInts(tn)
	if err != nil {
		return resolvedType{}, err
	}
	isArray := len(tn.ArrayBounds) > 0
	if len(tn.ArrayBounds) > 1 {
		// PostgreSQL ignores declared dimensions; so do we.
		isArray = true
	}
	if oid, ok := serialKinds[name]; ok {
		if isArray {
			return resolvedType{}, notSupported("array of serial")
		}
		if len(mods) > 0 {
			return resolvedType{}, errorf(CodeSyntaxError, "type modifier is not allowed for type %q", name)
		}
		return resolvedType{PGType: PGType{OID: oid, Mod: -1}, Serial: true}, nil
	}
	var t PGType
	switch name {
	case "vector":
		if len(mods) != 1 || mods[0] < 1 || mods[0] > 16000 {
			return resolvedType{}, errorf(CodeInvalidParameterValue, "vector requires one dimension between 1 and 16000")
		}
		if isArray {
			return resolvedType{}, notSupported("array of vector")
		}
		return resolvedType{PGType: PGType{OID: oidFloat4Array, Mod: -1, Dims: mods[0]}}, nil
	}
	oid, ok := scalarTypes[name]
	if !ok {
		if knownUnsupported[name] {
			return resolvedType{}, errorf(CodeFeatureNotSupported, "column type %s is not supported", name)
		}
		return resolvedType{}, errorf(CodeUndefinedObject, "type \"%s\" does not exist", name)
	}
	t = PGType{OID: oid, Mod: -1}
	if t.Mod, err = typmod(name, oid, mods); err != nil {
		return resolvedType{}, err
	}
	if isArray {
		at, ok := exec.ArrayOf(t.Exec())
		if !ok {
			return resolvedType{}, notSupported("array of %s", t)
		}
		t.OID = at.OID
	}
	return resolvedType{PGType: t}, nil
}

func typmodInts(tn *q.TypeName) ([]int32, error) {
	var out []int32
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return nil, errorf(CodeSyntaxError, "type modifiers must be simple constants or identifiers")
		}
		out = append(out, c.GetIval().Ival)
	}
	return out, nil
}

// typmod encodes PostgreSQL's typmod for the types that take one.
func typmod(name string, oid uint32, mods []int32) (int32, error) {
	if len(mods) == 0 {
		return -1, nil
	}
	switch oid {
	case exec.OIDVarchar, exec.OIDBpchar:
		if len(mods) != 1 {
			return 0, errorf(CodeSyntaxError, "invalid type modifier")
		}
		if mods[0] < 1 {
			return 0, errorf(CodeInvalidParameterValue, "length for type %s must be at least 1", map[uint32]string{exec.OIDVarchar: "varchar", exec.OIDBpchar: "char"}[oid])
		}
		if mods[0] > 10485760 {
			return 0, errorf(CodeInvalidParameterValue, "length for type %s cannot exceed 10485760", map[uint32]string{exec.OIDVarchar: "varchar", exec.OIDBpchar: "char"}[oid])
		}
		return mods[0] + 4, nil
	case exec.OIDNumeric:
		p, s := mods[0], int32(0)
		if len(mods) == 2 {
			s = mods[1]
		} else if len(mods) > 2 {
			return 0, errorf(CodeSyntaxError, "invalid NUMERIC type modifier")
		}
		if p < 1 || p > 1000 {
			return 0, errorf(CodeInvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p)
		}
		if s < 0 || s > p {
			// PostgreSQL 15+ accepts -1000..1000; negative scales are not stored here.
			return 0, errorf(CodeFeatureNotSupported, "NUMERIC scale %d outside 0..precision is not supported", s)
		}
		return exec.TypeModNumeric(int(p), int(s)), nil
	case exec.OIDTimestamp, exec.OIDTimestamptz, exec.OIDTime:
		if len(mods) != 1 {
			return 0, errorf(CodeSyntaxError, "invalid type modifier")
		}
		if mods[0] < 0 {
			return 0, errorf(CodeInvalidParameterValue, "%s(%d) precision must not be negative", strings.ToUpper(name), mods[0])
		}
		if mods[0] > 6 {
			return 6, nil // PostgreSQL reduces to the maximum with a warning
		}
		return mods[0], nil
	}
	return 0, errorf(CodeSyntaxError, "type modifier is not allowed for type \"%s\"", name)
}

// MarshalJSON adds the type's SQL spelling (informational: decoding
// reads only oid, mod and dims).
func (t PGType) MarshalJSON() ([]byte, error) {
	type plain PGType
	return json.Marshal(struct {
		plain
		SQL string `json:"sql"`
	}{plain(t), t.String()})
}
