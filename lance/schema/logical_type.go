package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// LogicalType returns Lance's logical-type string for an Arrow type
// (e.g. "int64", "string", "timestamp:us:UTC", "fixed_size_list:float:128").
func LogicalType(dt arrow.DataType) (string, error) {
	switch t := dt.(type) {
	case *arrow.NullType:
		return "null", nil
	case *arrow.BooleanType:
		return "bool", nil
	case *arrow.Int8Type:
		return "int8", nil
	case *arrow.Int16Type:
		return "int16", nil
	case *arrow.Int32Type:
		return "int32", nil
	case *arrow.Int64Type:
		return "int64", nil
	case *arrow.Uint8Type:
		return "uint8", nil
	case *arrow.Uint16Type:
		return "uint16", nil
	case *arrow.Uint32Type:
		return "uint32", nil
	case *arrow.Uint64Type:
		return "uint64", nil
	case *arrow.Float16Type:
		return "halffloat", nil
	case *arrow.Float32Type:
		return "float", nil
	case *arrow.Float64Type:
		return "double", nil
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal:128:%d:%d", t.Precision, t.Scale), nil
	case *arrow.Decimal256Type:
		return fmt.Sprintf("decimal:256:%d:%d", t.Precision, t.Scale), nil
	case *arrow.StringType:
		return "string", nil
	case *arrow.LargeStringType:
		return "large_string", nil
	case *arrow.BinaryType:
		return "binary", nil
	case *arrow.LargeBinaryType:
		return "large_binary", nil
	case *arrow.Date32Type:
		return "date32:day", nil
	case *arrow.Date64Type:
		return "date64:ms", nil
	case *arrow.Time32Type:
		return "time32:" + unitString(t.Unit), nil
	case *arrow.Time64Type:
		return "time64:" + unitString(t.Unit), nil
	case *arrow.DurationType:
		return "duration:" + unitString(t.Unit), nil
	case *arrow.TimestampType:
		tz := t.TimeZone
		if tz == "" {
			tz = "-"
		}
		return "timestamp:" + unitString(t.Unit) + ":" + tz, nil
	case *arrow.StructType:
		return "struct", nil
	case *arrow.ListType:
		if _, ok := t.Elem().(*arrow.StructType); ok {
			return "list.struct", nil
		}
		return "list", nil
	case *arrow.LargeListType:
		if _, ok := t.Elem().(*arrow.StructType); ok {
			return "large_list.struct", nil
		}
		return "large_list", nil
	case *arrow.FixedSizeListType:
		inner, err := LogicalType(t.Elem())
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("fixed_size_list:%s:%d", inner, t.Len()), nil
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("fixed_size_binary:%d", t.ByteWidth), nil
	case *arrow.DictionaryType:
		v, err := LogicalType(t.ValueType)
		if err != nil {
			return "", err
		}
		k, err := LogicalType(t.IndexType)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("dict:%s:%s:false", v, k), nil
	}
	return "", unsupported("", "arrow type %s", dt)
}

func unitString(u arrow.TimeUnit) string {
	switch u {
	case arrow.Second:
		return "s"
	case arrow.Millisecond:
		return "ms"
	case arrow.Microsecond:
		return "us"
	default:
		return "ns"
	}
}

func parseUnit(s string) (arrow.TimeUnit, bool) {
	switch s {
	case "s":
		return arrow.Second, true
	case "ms":
		return arrow.Millisecond, true
	case "us":
		return arrow.Microsecond, true
	case "ns":
		return arrow.Nanosecond, true
	}
	return 0, false
}

var simpleTypes = map[string]arrow.DataType{
	"null":         arrow.Null,
	"bool":         arrow.FixedWidthTypes.Boolean,
	"int8":         arrow.PrimitiveTypes.Int8,
	"int16":        arrow.PrimitiveTypes.Int16,
	"int32":        arrow.PrimitiveTypes.Int32,
	"int64":        arrow.PrimitiveTypes.Int64,
	"uint8":        arrow.PrimitiveTypes.Uint8,
	"uint16":       arrow.PrimitiveTypes.Uint16,
	"uint32":       arrow.PrimitiveTypes.Uint32,
	"uint64":       arrow.PrimitiveTypes.Uint64,
	"halffloat":    arrow.FixedWidthTypes.Float16,
	"float":        arrow.PrimitiveTypes.Float32,
	"double":       arrow.PrimitiveTypes.Float64,
	"string":       arrow.BinaryTypes.String,
	"large_string": arrow.BinaryTypes.LargeString,
	"binary":       arrow.BinaryTypes.Binary,
	"large_binary": arrow.BinaryTypes.LargeBinary,
	"json":         arrow.BinaryTypes.LargeBinary,
	"date32:day":   arrow.FixedWidthTypes.Date32,
	"date64:ms":    arrow.FixedWidthTypes.Date64,
}

// ParseLogicalType maps a non-nested logical-type string to an Arrow type.
// Nested types as Lance writes them ("struct", "list", "large_list") need
// their child fields and are handled by ToArrow. The spelled-out forms
// "list:<element type>" and "large_list:<element type>" (not a Lance
// spelling; what graph column definitions store for SQL arrays) give a
// list of a nullable "item" element, e.g. "list:int32",
// "list:timestamp:us:UTC".
func ParseLogicalType(lt string) (arrow.DataType, error) {
	if t, ok := simpleTypes[lt]; ok {
		return t, nil
	}
	parts := strings.Split(lt, ":")
	bad := func() (arrow.DataType, error) { return nil, unsupported("", "logical type %q", lt) }
	switch parts[0] {
	case "time32", "time64", "duration":
		if len(parts) != 2 {
			return bad()
		}
		u, ok := parseUnit(parts[1])
		if !ok {
			return bad()
		}
		switch {
		case parts[0] == "duration":
			return &arrow.DurationType{Unit: u}, nil
		case parts[0] == "time32" && (u == arrow.Second || u == arrow.Millisecond):
			return &arrow.Time32Type{Unit: u}, nil
		case parts[0] == "time64" && (u == arrow.Microsecond || u == arrow.Nanosecond):
			return &arrow.Time64Type{Unit: u}, nil
		}
		return bad()
	case "timestamp":
		// The zone may itself contain ':' (e.g. "+05:30"): everything after
		// the unit is the zone.
		if len(parts) < 3 {
			return bad()
		}
		u, ok := parseUnit(parts[1])
		if !ok {
			return bad()
		}
		tz := strings.Join(parts[2:], ":")
		if tz == "-" {
			tz = ""
		}
		return &arrow.TimestampType{Unit: u, TimeZone: tz}, nil
	case "decimal":
		if len(parts) != 4 {
			return bad()
		}
		p, err1 := strconv.ParseInt(parts[2], 10, 32)
		s, err2 := strconv.ParseInt(parts[3], 10, 32)
		if err1 != nil || err2 != nil {
			return bad()
		}
		switch parts[1] {
		case "128":
			if p < 1 || p > 38 {
				return bad()
			}
			return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}, nil
		case "256":
			if p < 1 || p > 76 {
				return bad()
			}
			return &arrow.Decimal256Type{Precision: int32(p), Scale: int32(s)}, nil
		}
		return bad()
	case "list", "large_list":
		if len(parts) < 2 {
			return bad()
		}
		inner, err := ParseLogicalType(strings.Join(parts[1:], ":"))
		if err != nil {
			return nil, err
		}
		item := arrow.Field{Name: "item", Type: inner, Nullable: true}
		if parts[0] == "large_list" {
			return arrow.LargeListOfField(item), nil
		}
		return arrow.ListOfField(item), nil
	case "fixed_size_binary":
		if len(parts) != 2 {
			return bad()
		}
		n, err := strconv.ParseInt(parts[1], 10, 32)
		if err != nil || n < 1 {
			return bad()
		}
		return &arrow.FixedSizeBinaryType{ByteWidth: int(n)}, nil
	case "fixed_size_list":
		if len(parts) < 3 {
			return bad()
		}
		n, err := strconv.ParseInt(parts[len(parts)-1], 10, 32)
		if err != nil || n < 1 {
			return bad()
		}
		inner, err := ParseLogicalType(strings.Join(parts[1:len(parts)-1], ":"))
		if err != nil {
			return nil, err
		}
		return arrow.FixedSizeListOfField(int32(n), arrow.Field{Name: "item", Type: inner, Nullable: true}), nil
	case "dict":
		if len(parts) != 4 {
			return bad()
		}
		v, err := ParseLogicalType(parts[1])
		if err != nil {
			return nil, err
		}
		k, err := ParseLogicalType(parts[2])
		if err != nil {
			return nil, err
		}
		return &arrow.DictionaryType{IndexType: k, ValueType: v}, nil
	}
	return bad()
}
