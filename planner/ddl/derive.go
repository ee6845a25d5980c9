package ddl

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance/schema"
)

// deriveMeta builds the meta of a table registered without one (created
// through the Go API rather than SQL): PostgreSQL types from the storage
// types, the primary key named <table>_pkey, graph kind from the entry's
// definition (node when it has a key).
func deriveMeta(name string, def graph.TableDef) (TableMeta, error) {
	m := TableMeta{Version: metaVersionTables, Relkind: RelTable, Graph: GraphMeta{Kind: graph.RelationTable}}
	for _, c := range def.Columns {
		t := PGType{OID: exec.OIDText, Mod: -1}
		if dt, err := schema.ParseLogicalType(c.Type); err == nil {
			if pt, ok := pgTypeOf(dt); ok {
				t = pt
			}
		}
		m.Columns = append(m.Columns, ColumnMeta{Name: c.Name, Type: t})
	}
	if len(def.PrimaryKey) > 0 {
		pk := makeObjectName(name, "", "pkey")
		m.PrimaryKey = &KeyConstraint{Name: pk, Columns: append([]string(nil), def.PrimaryKey...)}
		m.Indexes = []Index{{Name: pk, Columns: m.PrimaryKey.Columns, Unique: true, Primary: true, Constraint: pk}}
		m.Graph.Kind = graph.NodeTable
	}
	return m, nil
}

// pgTypeOf maps a storage type to the PostgreSQL type that reads it.
func pgTypeOf(dt arrow.DataType) (PGType, bool) {
	switch t := dt.(type) {
	case *arrow.Decimal128Type:
		return PGType{OID: exec.OIDNumeric, Mod: exec.TypeModNumeric(int(t.Precision), int(t.Scale))}, true
	case *arrow.FixedSizeListType:
		if t.Elem().ID() == arrow.FLOAT32 {
			return PGType{OID: oidFloat4Array, Mod: -1, Dims: t.Len()}, true
		}
		return PGType{}, false
	case *arrow.ListType:
		inner, ok := pgTypeOf(t.Elem())
		if !ok || inner.IsVector() {
			return PGType{}, false
		}
		at, ok := exec.ArrayOf(inner.Exec())
		if !ok || inner.Exec().IsArray() {
			return PGType{}, false
		}
		return PGType{OID: at.OID, Mod: inner.Mod}, true
	case *arrow.LargeStringType:
		return PGType{OID: exec.OIDText, Mod: -1}, true
	case *arrow.LargeBinaryType:
		return PGType{OID: exec.OIDBytea, Mod: -1}, true
	}
	for _, oid := range []uint32{exec.OIDInt8, exec.OIDInt4, exec.OIDInt2, exec.OIDFloat8, exec.OIDFloat4, exec.OIDBool,
		exec.OIDText, exec.OIDBytea, exec.OIDDate, exec.OIDTime, exec.OIDTimestamptz, exec.OIDTimestamp, exec.OIDUUID} {
		if arrow.TypeEqual(exec.ArrowType(exec.Type{OID: oid, Mod: -1}), dt) {
			return PGType{OID: oid, Mod: -1}, true
		}
	}
	return PGType{}, false
}
