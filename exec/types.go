package exec

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Type is a PostgreSQL type: its OID and type modifier (-1 when none).
type Type struct {
	OID uint32
	Mod int32
}

// PostgreSQL type OIDs the engine knows.
const (
	OIDBool         uint32 = 16
	OIDBytea        uint32 = 17
	OIDChar         uint32 = 18
	OIDPgNodeTree   uint32 = 194
	OIDVoid         uint32 = 2278
	OIDName         uint32 = 19
	OIDInt8         uint32 = 20
	OIDInt2         uint32 = 21
	OIDInt4         uint32 = 23
	OIDRegproc      uint32 = 24
	OIDText         uint32 = 25
	OIDOid          uint32 = 26
	OIDJSON         uint32 = 114
	OIDFloat4       uint32 = 700
	OIDFloat8       uint32 = 701
	OIDUnknown      uint32 = 705
	OIDBpchar       uint32 = 1042
	OIDVarchar      uint32 = 1043
	OIDDate         uint32 = 1082
	OIDTime         uint32 = 1083
	OIDTimestamp    uint32 = 1114
	OIDTimestamptz  uint32 = 1184
	OIDInterval     uint32 = 1186
	OIDNumeric      uint32 = 1700
	OIDRegclass     uint32 = 2205
	OIDRegtype      uint32 = 2206
	OIDRecord       uint32 = 2249
	OIDUUID         uint32 = 2950
	OIDJSONB        uint32 = 3802
	OIDRegnamespace uint32 = 4089
	OIDRegprocedure uint32 = 2202
	OIDRegoperator  uint32 = 2204
	OIDInt2Vector   uint32 = 22
	OIDXid          uint32 = 28
	OIDAclitem      uint32 = 1033
	OIDAclitemArray uint32 = 1034
	OIDAnyArray     uint32 = 2277
	// OIDVector is pgvector's vector(n) (typmod = n). pgvector's type
	// has no fixed OID (an extension type); pggraph has it built in, in
	// pg_catalog, with this one (clients find it by typname).
	OIDVector    uint32 = 0x3000_0001
	OIDOidVector uint32 = 30
	// pseudo-types (PostgreSQL 15 OIDs)
	OIDCstring             uint32 = 2275
	OIDInternal            uint32 = 2281
	OIDAny                 uint32 = 2276
	OIDAnyElement          uint32 = 2283
	OIDAnyNonArray         uint32 = 2776
	OIDAnyCompatible       uint32 = 5077
	OIDAnyCompatibleArray  uint32 = 5078
	OIDAnyCompatibleNonArr uint32 = 5079
	OIDAnyEnum             uint32 = 3500
	OIDAnyRange            uint32 = 3831
	OIDAnyMultirange       uint32 = 4537
	OIDLanguageHandler     uint32 = 2280
	OIDTableAMHandler      uint32 = 269
	OIDIndexAMHandler      uint32 = 325
	OIDTrigger             uint32 = 2279
	OIDEventTrigger        uint32 = 3838
	// information_schema domains (PostgreSQL 15 OIDs)
	OIDCardinalNumber uint32 = 13221
	OIDCharacterData  uint32 = 13224
	OIDSQLIdentifier  uint32 = 13226
	OIDTimeStamp      uint32 = 13232
	OIDYesOrNo        uint32 = 13234
)

// Common types.
var (
	TBool        = Type{OIDBool, -1}
	TBytea       = Type{OIDBytea, -1}
	TChar        = Type{OIDChar, -1}
	TName        = Type{OIDName, -1}
	TInt2        = Type{OIDInt2, -1}
	TInt4        = Type{OIDInt4, -1}
	TInt8        = Type{OIDInt8, -1}
	TText        = Type{OIDText, -1}
	TOid         = Type{OIDOid, -1}
	TJSON        = Type{OIDJSON, -1}
	TJSONB       = Type{OIDJSONB, -1}
	TFloat4      = Type{OIDFloat4, -1}
	TFloat8      = Type{OIDFloat8, -1}
	TUnknown     = Type{OIDUnknown, -1}
	TBpchar      = Type{OIDBpchar, -1}
	TVarchar     = Type{OIDVarchar, -1}
	TDate        = Type{OIDDate, -1}
	TTime        = Type{OIDTime, -1}
	TTimestamp   = Type{OIDTimestamp, -1}
	TTimestamptz = Type{OIDTimestamptz, -1}
	TInterval    = Type{OIDInterval, -1}
	TNumeric     = Type{OIDNumeric, -1}
	TUUID        = Type{OIDUUID, -1}
	TRegclass    = Type{OIDRegclass, -1}
	TRegtype     = Type{OIDRegtype, -1}
	TRecord      = Type{OIDRecord, -1}
)

// Kind is the physical representation of a type inside a Vec.
type Kind uint8

const (
	KInt      Kind = iota // int64 slot: int2/4/8, oid, reg*, date (days since 1970-01-01), time/timestamp(tz) (µs)
	KFloat                // float64 slot: float4/8
	KBool                 // bool slot
	KStr                  // string slot: text family, bytea (raw bytes), uuid (canonical text), json(b)
	KNum                  // apd.Decimal slot: numeric
	KInterval             // Interval slot
	KArray                // *Array slot
)

type typeInfo struct {
	name    string // pg_type.typname
	sqlName string // format_type spelling
	kind    Kind
	len     int16 // typlen
	array   uint32
	elem    uint32
	cat     byte // typcategory
	pref    bool // typispreferred
}

var typeInfos = map[uint32]*typeInfo{
	OIDBool:           {"bool", "boolean", KBool, 1, 1000, 0, 'B', true},
	OIDBytea:          {"bytea", "bytea", KStr, -1, 1001, 0, 'U', false},
	OIDChar:           {"char", "\"char\"", KStr, 1, 1002, 0, 'Z', false},
	OIDName:           {"name", "name", KStr, 64, 1003, 0, 'S', false},
	OIDInt8:           {"int8", "bigint", KInt, 8, 1016, 0, 'N', false},
	OIDInt2:           {"int2", "smallint", KInt, 2, 1005, 0, 'N', false},
	OIDInt4:           {"int4", "integer", KInt, 4, 1007, 0, 'N', false},
	OIDRegproc:        {"regproc", "regproc", KInt, 4, 1008, 0, 'N', false},
	OIDText:           {"text", "text", KStr, -1, 1009, 0, 'S', true},
	OIDOid:            {"oid", "oid", KInt, 4, 1028, 0, 'N', true},
	OIDJSON:           {"json", "json", KStr, -1, 199, 0, 'U', false},
	OIDFloat4:         {"float4", "real", KFloat, 4, 1021, 0, 'N', false},
	OIDFloat8:         {"float8", "double precision", KFloat, 8, 1022, 0, 'N', true},
	OIDUnknown:        {"unknown", "unknown", KStr, -2, 0, 0, 'X', false},
	OIDBpchar:         {"bpchar", "character", KStr, -1, 1014, 0, 'S', false},
	OIDVarchar:        {"varchar", "character varying", KStr, -1, 1015, 0, 'S', false},
	OIDDate:           {"date", "date", KInt, 4, 1182, 0, 'D', false},
	OIDTime:           {"time", "time without time zone", KInt, 8, 1183, 0, 'D', false},
	OIDTimestamp:      {"timestamp", "timestamp without time zone", KInt, 8, 1115, 0, 'D', false},
	OIDTimestamptz:    {"timestamptz", "timestamp with time zone", KInt, 8, 1185, 0, 'D', true},
	OIDInterval:       {"interval", "interval", KInterval, 16, 1187, 0, 'T', true},
	OIDNumeric:        {"numeric", "numeric", KNum, -1, 1231, 0, 'N', false},
	OIDRegclass:       {"regclass", "regclass", KInt, 4, 2210, 0, 'N', false},
	OIDRegtype:        {"regtype", "regtype", KInt, 4, 2211, 0, 'N', false},
	OIDRegnamespace:   {"regnamespace", "regnamespace", KInt, 4, 4090, 0, 'N', false},
	OIDRegprocedure:   {"regprocedure", "regprocedure", KInt, 4, 2207, 0, 'N', false},
	OIDRegoperator:    {"regoperator", "regoperator", KInt, 4, 2208, 0, 'N', false},
	OIDRecord:         {"record", "record", KArray, -1, 2287, 0, 'P', false},
	OIDUUID:           {"uuid", "uuid", KStr, 16, 2951, 0, 'U', false},
	OIDJSONB:          {"jsonb", "jsonb", KStr, -1, 3807, 0, 'U', false},
	OIDInt2Vector:     {"int2vector", "int2vector", KArray, -1, 1006, OIDInt2, 'A', false},
	OIDOidVector:      {"oidvector", "oidvector", KArray, -1, 1013, OIDOid, 'A', false},
	OIDCardinalNumber: {"cardinal_number", "information_schema.cardinal_number", KInt, 4, 0, 0, 'N', false},
	OIDCharacterData:  {"character_data", "information_schema.character_data", KStr, -1, 0, 0, 'S', false},
	OIDSQLIdentifier:  {"sql_identifier", "information_schema.sql_identifier", KStr, 64, 0, 0, 'S', false},
	OIDTimeStamp:      {"time_stamp", "information_schema.time_stamp", KInt, 8, 0, 0, 'D', false},
	OIDYesOrNo:        {"yes_or_no", "information_schema.yes_or_no", KStr, -1, 0, 0, 'S', false},
	OIDPgNodeTree:     {"pg_node_tree", "pg_node_tree", KStr, -1, 0, 0, 'Z', false},
	OIDVoid:           {"void", "void", KStr, 4, 0, 0, 'P', false},
	// catalog-only types: transaction ids and ACL items appear in catalog
	// columns (datfrozenxid, relacl) and compare and print as such
	OIDXid:     {"xid", "xid", KInt, 4, 1011, 0, 'U', false},
	OIDAclitem: {"aclitem", "aclitem", KStr, 12, OIDAclitemArray, 0, 'U', false},
	// pseudo-type of pg_attribute.attmissingval (always NULL here)
	OIDAnyArray: {"anyarray", "anyarray", KStr, -1, 0, 0, 'P', false},
	// vector(n): a float4 array in the Vec (Array.Items), not an SQL array
	OIDVector: {"vector", "vector", KArray, -1, 0, OIDFloat4, 'U', false},
	// catalog-only types of pg_statistic_ext_data's columns (never
	// filled: pggraph keeps no extended statistics); _pg_statistic is an
	// array in PostgreSQL, text here since nothing reads it
	3361:  {"pg_ndistinct", "pg_ndistinct", KStr, -1, 0, 0, 'Z', false},
	3402:  {"pg_dependencies", "pg_dependencies", KStr, -1, 0, 0, 'Z', false},
	5017:  {"pg_mcv_list", "pg_mcv_list", KStr, -1, 0, 0, 'Z', false},
	10028: {"_pg_statistic", "pg_statistic[]", KStr, -1, 0, 0, 'Z', false},
	// pg_subscription.subskiplsn (no subscriptions here)
	3220: {"pg_lsn", "pg_lsn", KStr, 8, 0, 0, 'U', false},
	// pseudo-types pg_proc's signatures name (polymorphic arguments,
	// type I/O and handler functions); no value has them, and they have
	// no SQL spelling (typeNames), so only the catalogs and regtype see
	// them
	OIDCstring:             {"cstring", "cstring", KStr, -2, 1263, 0, 'P', false},
	OIDInternal:            {"internal", "internal", KStr, 8, 0, 0, 'P', false},
	OIDAny:                 {"any", `"any"`, KStr, 4, 0, 0, 'P', false},
	OIDAnyElement:          {"anyelement", "anyelement", KStr, 4, 0, 0, 'P', false},
	OIDAnyNonArray:         {"anynonarray", "anynonarray", KStr, 4, 0, 0, 'P', false},
	OIDAnyCompatible:       {"anycompatible", "anycompatible", KStr, 4, 0, 0, 'P', false},
	OIDAnyCompatibleArray:  {"anycompatiblearray", "anycompatiblearray", KStr, -1, 0, 0, 'P', false},
	OIDAnyCompatibleNonArr: {"anycompatiblenonarray", "anycompatiblenonarray", KStr, 4, 0, 0, 'P', false},
	OIDAnyEnum:             {"anyenum", "anyenum", KStr, 4, 0, 0, 'P', false},
	OIDAnyRange:            {"anyrange", "anyrange", KStr, -1, 0, 0, 'P', false},
	OIDAnyMultirange:       {"anymultirange", "anymultirange", KStr, -1, 0, 0, 'P', false},
	OIDLanguageHandler:     {"language_handler", "language_handler", KStr, 4, 0, 0, 'P', false},
	OIDTableAMHandler:      {"table_am_handler", "table_am_handler", KStr, 4, 0, 0, 'P', false},
	OIDIndexAMHandler:      {"index_am_handler", "index_am_handler", KStr, 4, 0, 0, 'P', false},
	// trigger functions' result types (psql's \df excludes them by
	// 'trigger'::regtype; pggraph has no triggers)
	OIDTrigger:      {"trigger", "trigger", KStr, 4, 0, 0, 'P', false},
	OIDEventTrigger: {"event_trigger", "event_trigger", KStr, 4, 0, 0, 'P', false},
}

func init() {
	// Array types: one per element type above.
	for oid, ti := range typeInfos {
		if ti.array == 0 || ti.elem != 0 || ti.cat == 'A' {
			continue
		}
		typeInfos[ti.array] = &typeInfo{name: "_" + ti.name, sqlName: ti.sqlName + "[]", kind: KArray, len: -1, elem: oid, cat: 'A'}
	}
}

func info(oid uint32) *typeInfo {
	if ti, ok := typeInfos[oid]; ok {
		return ti
	}
	if IsEnumOID(oid) {
		return enumInfo(oid)
	}
	if IsDomainOID(oid) {
		return domainInfo(oid) // domains.go
	}
	return &typeInfo{name: fmt.Sprintf("%d", oid), sqlName: "???", kind: KStr, len: -1, cat: 'X'}
}

// kindTable caches Kind for low OIDs (every built-in type) so hot loops
// avoid a map lookup.
var kindTable [16384]Kind

func init() {
	for i := range kindTable {
		kindTable[i] = KStr
	}
	for oid, ti := range typeInfos {
		if oid < uint32(len(kindTable)) {
			kindTable[oid] = ti.kind
		}
	}
}

// Kind returns the physical representation of t.
func (t Type) Kind() Kind {
	if t.OID < uint32(len(kindTable)) {
		return kindTable[t.OID]
	}
	return info(t.OID).kind
}

// Name returns pg_type.typname.
func (t Type) Name() string { return info(t.OID).name }

// Len returns pg_type.typlen.
func (t Type) Len() int16 { return info(t.OID).len }

// IsArray reports whether t is an array type.
func (t Type) IsArray() bool { return info(t.OID).cat == 'A' }

// Elem returns the element type of an array type.
func (t Type) Elem() Type { return Type{info(t.OID).elem, t.Mod} }

// ArrayOf returns the array type whose elements are t.
func ArrayOf(t Type) (Type, bool) {
	a := info(t.OID).array
	if a == 0 {
		return Type{}, false
	}
	return Type{a, t.Mod}, true
}

func (t Type) category() byte  { return info(t.OID).cat }
func (t Type) preferred() bool { return info(t.OID).pref }

func (t Type) isInt() bool {
	return t.OID == OIDInt2 || t.OID == OIDInt4 || t.OID == OIDInt8
}
func (t Type) isString() bool {
	switch t.OID {
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDChar, OIDSQLIdentifier, OIDCharacterData, OIDYesOrNo, OIDPgNodeTree:
		return true
	}
	return false
}
func (t Type) isTemporal() bool {
	switch t.OID {
	case OIDDate, OIDTimestamp, OIDTimestamptz, OIDTime:
		return true
	}
	return false
}

// String is format_type(oid, typmod).
func (t Type) String() string { return FormatType(t.OID, t.Mod) }

// FormatType renders a type as PostgreSQL's format_type does.
func FormatType(oid uint32, mod int32) string {
	ti, ok := typeInfos[oid]
	if !ok && IsEnumOID(oid) {
		ti, ok = enumInfo(oid), true
	}
	if !ok && IsDomainOID(oid) {
		ti, ok = domainInfo(oid), true
	}
	if !ok {
		return "???"
	}
	if ti.cat == 'A' && oid != OIDInt2Vector && oid != OIDOidVector {
		return FormatType(ti.elem, mod) + "[]"
	}
	switch oid {
	case OIDNumeric:
		if mod >= 4 {
			m := mod - 4
			return fmt.Sprintf("numeric(%d,%d)", (m>>16)&0xffff, m&0xffff)
		}
	case OIDVarchar, OIDBpchar:
		if mod >= 4 {
			return fmt.Sprintf("%s(%d)", ti.sqlName, mod-4)
		}
		if oid == OIDBpchar {
			return "bpchar"
		}
	case OIDTimestamp, OIDTimestamptz, OIDTime:
		if mod >= 0 {
			base, rest, _ := strings.Cut(ti.sqlName, " ")
			return fmt.Sprintf("%s(%d) %s", base, mod, rest)
		}
	case OIDVector:
		if mod > 0 {
			return fmt.Sprintf("vector(%d)", mod)
		}
	}
	return ti.sqlName
}

// typeByName resolves a SQL type name (as written, lowercased) to a type OID.
var typeNames = map[string]uint32{
	"bool": OIDBool, "boolean": OIDBool,
	"bytea": OIDBytea, "char": OIDChar, "character": OIDBpchar, "bpchar": OIDBpchar,
	"name": OIDName, "int8": OIDInt8, "bigint": OIDInt8, "int2": OIDInt2, "smallint": OIDInt2,
	"int4": OIDInt4, "int": OIDInt4, "integer": OIDInt4, "text": OIDText, "oid": OIDOid,
	"json": OIDJSON, "jsonb": OIDJSONB, "float4": OIDFloat4, "real": OIDFloat4,
	"float8": OIDFloat8, "double precision": OIDFloat8, "float": OIDFloat8,
	"varchar": OIDVarchar, "character varying": OIDVarchar, "date": OIDDate,
	"time": OIDTime, "timestamp": OIDTimestamp, "timestamptz": OIDTimestamptz,
	"interval": OIDInterval, "numeric": OIDNumeric, "decimal": OIDNumeric,
	"regclass": OIDRegclass, "regtype": OIDRegtype, "regnamespace": OIDRegnamespace, "regprocedure": OIDRegprocedure, "regoperator": OIDRegoperator, "uuid": OIDUUID,
	"unknown": OIDUnknown, "record": OIDRecord, "regproc": OIDRegproc,
	"int2vector": OIDInt2Vector, "oidvector": OIDOidVector, "xid": OIDXid, "aclitem": OIDAclitem, "vector": OIDVector,
}

// TypeModNumeric encodes numeric(p,s) as PostgreSQL's typmod.
func TypeModNumeric(p, s int) int32 { return int32((p<<16)|s) + 4 }

// knownPostgresType lists PostgreSQL built-in types the engine does not
// implement: naming one answers 0A000 rather than "does not exist".
func knownPostgresType(name string) bool {
	switch name {
	case "money", "inet", "cidr", "macaddr", "macaddr8", "point", "line", "lseg", "box", "path", "polygon",
		"circle", "tsvector", "tsquery", "xml", "bit", "varbit", "bit varying", "timetz", "int4range", "int8range",
		"numrange", "tsrange", "tstzrange", "daterange", "int4multirange", "txid_snapshot", "pg_lsn", "regoper",
		"regconfig", "regdictionary", "regrole", "regcollation",
		"xid8", "cid", "tid", "pg_snapshot", "jsonpath", "float", "smallserial", "serial", "bigserial":
		return true
	}
	return false
}

// Record types: PostgreSQL's anonymous composite (OID 2249) identifies
// its row shape by a typmod it assigns at run time ("blessed" record
// types); the engine does the same. Type{OIDRecord, k} with k >= 0
// names row shape k of a process-wide, append-only registry, so a
// record-valued expression (a set-returning function with OUT
// parameters such as information_schema._pg_expandarray) carries its
// field names and types through subqueries to a field selection
// (rec).field. A record value is an *Array in the Vec's A slot whose
// Items hold the fields' text forms (TText, NULL for a NULL field); a
// field selection parses the field with its type's input function.

// RecordField is one named, typed field of a record type.
type RecordField struct {
	Name string
	Type Type
}

var recordShapes struct {
	sync.Mutex
	list  [][]RecordField
	byKey map[string]int32
}

// RecordType returns the record type with these fields (the same Type for
// the same field list).
func RecordType(fields []RecordField) Type {
	var key strings.Builder
	for _, f := range fields {
		fmt.Fprintf(&key, "%s\x00%d\x00%d\x00", f.Name, f.Type.OID, f.Type.Mod)
	}
	recordShapes.Lock()
	defer recordShapes.Unlock()
	if recordShapes.byKey == nil {
		recordShapes.byKey = map[string]int32{}
	}
	if k, ok := recordShapes.byKey[key.String()]; ok {
		return Type{OIDRecord, k}
	}
	k := int32(len(recordShapes.list))
	recordShapes.list = append(recordShapes.list, append([]RecordField(nil), fields...))
	recordShapes.byKey[key.String()] = k
	return Type{OIDRecord, k}
}

// RecordFields returns the fields of a record type made by RecordType
// (false for an anonymous record without a known shape).
func RecordFields(t Type) ([]RecordField, bool) {
	if t.OID != OIDRecord || t.Mod < 0 {
		return nil, false
	}
	recordShapes.Lock()
	defer recordShapes.Unlock()
	if int(t.Mod) >= len(recordShapes.list) {
		return nil, false
	}
	return recordShapes.list[t.Mod], true
}

// WireMod is the typmod a result column of type t reports in
// RowDescription: a record's shape number is internal (PostgreSQL
// reports -1 for record-valued expressions too).
func (t Type) WireMod() int32 {
	if t.OID == OIDRecord {
		return -1
	}
	return t.Mod
}

// newRecord builds a record value from its fields' text forms (nil =
// NULL field).
func newRecord(t Type, fields []*string) *Array {
	items := NewVec(TText, len(fields))
	for i, f := range fields {
		if f == nil {
			items.SetNull(i)
			continue
		}
		items.S[i] = *f
	}
	return &Array{Elem: t, Items: items}
}

// formatRecord is record_out: (f1,f2,...) with a field quoted when it is
// empty or holds a quote, backslash, parenthesis, comma or white space;
// a NULL field is empty.
func formatRecord(a *Array) string {
	var sb strings.Builder
	sb.WriteByte('(')
	for i := 0; i < a.Items.N; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		if a.Items.IsNull(i) {
			continue
		}
		s := a.Items.S[i]
		need := s == ""
		for k := 0; k < len(s) && !need; k++ {
			switch s[k] {
			case '"', '\\', '(', ')', ',', ' ', '\t', '\n', '\r', '\v', '\f':
				need = true
			}
		}
		if !need {
			sb.WriteString(s)
			continue
		}
		sb.WriteByte('"')
		for k := 0; k < len(s); k++ {
			if s[k] == '"' || s[k] == '\\' {
				sb.WriteByte(s[k])
			}
			sb.WriteByte(s[k])
		}
		sb.WriteByte('"')
	}
	sb.WriteByte(')')
	return sb.String()
}

// fieldSelectExpr is (rec).field: the field's text parsed with its type's
// input function; NULL when the record or the field is NULL.
type fieldSelectExpr struct {
	arg Expr
	idx int
	t   Type
}

func (f *fieldSelectExpr) Type() Type { return f.t }
func (f *fieldSelectExpr) String() string {
	return fmt.Sprintf("(%s).f%d", f.arg, f.idx)
}
func (f *fieldSelectExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	rv, err := f.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	var ferr error
	out := recordFieldVec(ec, rv, f.idx, f.t, func(e error) {
		if ferr == nil {
			ferr = e
		}
	}, sel...)
	return out, ferr
}

// recordFieldVec extracts field idx (of type t) from the records of rv at
// the selected rows (all rows when sel is empty); a field that does not
// parse reports through fail (ignored when nil).
func recordFieldVec(ec *evalCtx, rv *Vec, idx int, t Type, fail func(error), sel ...int32) *Vec {
	out := NewVec(t, rv.N)
	var loc *time.Location
	if ec != nil {
		loc = ec.loc
	}
	forEach(rv.N, sel, func(i int) {
		if rv.IsNull(i) || rv.A[i] == nil || idx >= rv.A[i].Items.N || rv.A[i].Items.IsNull(idx) {
			out.SetNull(i)
			return
		}
		if err := parseText(out, i, rv.A[i].Items.S[idx], loc); err != nil && fail != nil {
			fail(err)
		}
	})
	return out
}

// selectField binds (e).name on a record-typed expression.
func selectField(e Expr, name string) (Expr, error) {
	t := e.Type()
	fields, ok := RecordFields(t)
	if !ok {
		if t.OID == OIDRecord {
			return nil, errf(CodeFeatureNotSupported, "could not identify column \"%s\" in record data type", name)
		}
		return nil, errf(CodeWrongObjectType, "column notation .%s applied to type %s, which is not a composite type", name, t)
	}
	for i, f := range fields {
		if f.Name == name {
			return &fieldSelectExpr{arg: e, idx: i, t: f.Type}, nil
		}
	}
	return nil, errf(CodeUndefinedColumn, "could not identify column \"%s\" in record data type", name)
}

// VectorType is pgvector's vector(dims) (dims <= 0: vector without a
// dimension).
func VectorType(dims int) Type {
	if dims <= 0 {
		return Type{OIDVector, -1}
	}
	return Type{OIDVector, int32(dims)}
}

// vectorTypmod checks vector(n)'s modifier as pgvector does (22023
// outside 1..16000) and returns the typmod (n).
func vectorTypmod(mods []int64) (int32, error) {
	if len(mods) != 1 {
		return 0, errf(CodeInvalidParameterValue, "invalid type modifier")
	}
	if mods[0] < 1 {
		return 0, errf(CodeInvalidParameterValue, "dimensions for type vector must be at least 1")
	}
	if mods[0] > 16000 {
		return 0, errf(CodeInvalidParameterValue, "dimensions for type vector cannot exceed 16000")
	}
	return int32(mods[0]), nil
}
