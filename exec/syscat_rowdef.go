package exec

import (
	"reflect"
	"strings"
)

// A typed catalog relation is defined by a Go struct: each field is a
// column, in field order, named and typed by its `pg` tag ("relname
// name"). The struct is the one place a column's position, name, SQL
// type and Go type are written, so rows are built with named fields
// instead of positional value lists that must line up with a column
// string kept elsewhere.
//
// Field types are those setSysValue stores: integers of any width for
// integer, oid and xid columns, float64, bool, string (text, name,
// "char" and anything parsed from text), and `any` for a column whose
// value may be NULL or of a composite shape (aclitem[], text[]).

// typedRelation is a system relation whose rows are Row structs.
func typedRelation[Row any](oid uint32, rows func(c *catalogSet) []Row) *sysRelation {
	cols := rowColumns(reflect.TypeFor[Row]())
	return &sysRelation{oid, cols, func(c *catalogSet) [][]any {
		typed := rows(c)
		out := make([][]any, len(typed))
		for i := range typed {
			out[i] = rowValues(reflect.ValueOf(&typed[i]).Elem())
		}
		return out
	}}
}

// rowColumns is the column list ("name type, …") of a row struct.
func rowColumns(t reflect.Type) string {
	cols := make([]string, t.NumField())
	for i := range cols {
		tag := t.Field(i).Tag.Get("pg")
		if tag == "" {
			panic("exec: catalog row field " + t.Name() + "." + t.Field(i).Name + " has no pg tag")
		}
		cols[i] = tag
	}
	return strings.Join(cols, ", ")
}

// rowValues lists a row struct's field values in column order.
func rowValues(v reflect.Value) []any {
	vals := make([]any, v.NumField())
	for i := range vals {
		vals[i] = v.Field(i).Interface()
	}
	return vals
}
