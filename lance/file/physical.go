package file

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// physKind says how a column's values are laid out in mini-block chunks.
type physKind int

const (
	physFixed    physKind = iota + 1 // flat{bits}: ints, floats, dates, timestamps, decimal, fixed_size_binary
	physBool                         // flat{1}: LSB-first bits
	physVariable                     // variable{offsets flat{32|64}}: utf8/binary and their large forms
	physFSL                          // fixed_size_list{dim}{flat{bits}}: vectors of a fixed-width element
	physList                         // list of a primitive: rep/def levels over the item column
)

// physical describes a column's physical layout.
type physical struct {
	kind      physKind
	bits      int // fixed: bits per value; fsl: bits per element; variable: offset bits
	dim       int // fsl: elements per row
	elem      arrow.DataType
	item      *physical // list: the item's layout
	largeList bool
}

// physicalOf maps an Arrow type to its layout, or an unsupported error.
func physicalOf(col string, dt arrow.DataType) (*physical, error) {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return &physical{kind: physBool, bits: 1}, nil
	case *arrow.Int8Type, *arrow.Uint8Type:
		return &physical{kind: physFixed, bits: 8}, nil
	case *arrow.Int16Type, *arrow.Uint16Type, *arrow.Float16Type:
		return &physical{kind: physFixed, bits: 16}, nil
	case *arrow.Int32Type, *arrow.Uint32Type, *arrow.Float32Type, *arrow.Date32Type, *arrow.Time32Type:
		return &physical{kind: physFixed, bits: 32}, nil
	case *arrow.Int64Type, *arrow.Uint64Type, *arrow.Float64Type, *arrow.Date64Type, *arrow.Time64Type,
		*arrow.TimestampType, *arrow.DurationType:
		return &physical{kind: physFixed, bits: 64}, nil
	case *arrow.Decimal128Type:
		return &physical{kind: physFixed, bits: 128}, nil
	case *arrow.Decimal256Type:
		return &physical{kind: physFixed, bits: 256}, nil
	case *arrow.FixedSizeBinaryType:
		return &physical{kind: physFixed, bits: 8 * t.ByteWidth}, nil
	case *arrow.StringType, *arrow.BinaryType:
		return &physical{kind: physVariable, bits: 32}, nil
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		return &physical{kind: physVariable, bits: 64}, nil
	case *arrow.FixedSizeListType:
		inner, err := physicalOf(col, t.Elem())
		if err != nil {
			return nil, err
		}
		if inner.kind != physFixed {
			return nil, unsupported(col, "fixed_size_list of %s (only fixed-width elements)", t.Elem())
		}
		return &physical{kind: physFSL, bits: inner.bits, dim: int(t.Len()), elem: t.Elem()}, nil
	case *arrow.ListType, *arrow.LargeListType:
		elem := dt.(arrow.ListLikeType).Elem()
		inner, err := physicalOf(col, elem)
		if err != nil {
			return nil, err
		}
		if inner.kind == physList || inner.kind == physFSL {
			return nil, unsupported(col, "list of %s (only lists of primitives)", elem)
		}
		_, large := dt.(*arrow.LargeListType)
		return &physical{kind: physList, item: inner, elem: elem, largeList: large}, nil
	}
	return nil, unsupported(col, "arrow type %s", dt)
}
