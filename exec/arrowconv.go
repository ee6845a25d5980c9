package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
)

// ArrowType is the Arrow storage type the engine uses for a PostgreSQL type.
func ArrowType(t Type) arrow.DataType {
	switch t.OID {
	case OIDBool:
		return arrow.FixedWidthTypes.Boolean
	case OIDInt2:
		return arrow.PrimitiveTypes.Int16
	case OIDInt4:
		return arrow.PrimitiveTypes.Int32
	case OIDInt8:
		return arrow.PrimitiveTypes.Int64
	case OIDOid, OIDRegclass, OIDRegtype, OIDRegproc, OIDRegprocedure, OIDRegoperator, OIDRegnamespace:
		return arrow.PrimitiveTypes.Uint32
	case OIDFloat4:
		return arrow.PrimitiveTypes.Float32
	case OIDFloat8:
		return arrow.PrimitiveTypes.Float64
	case OIDDate:
		return arrow.FixedWidthTypes.Date32
	case OIDTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case OIDTimestamptz:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case OIDTime:
		return arrow.FixedWidthTypes.Time64us
	case OIDBytea:
		return arrow.BinaryTypes.Binary
	case OIDUUID:
		return &arrow.FixedSizeBinaryType{ByteWidth: 16}
	case OIDInterval:
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	case OIDVector:
		// pgvector columns are stored as fixed_size_list<float32>[n]
		// (planner/ddl); a vector without a dimension as a list
		item := arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float32, Nullable: true}
		if t.Mod > 0 {
			return arrow.FixedSizeListOfField(t.Mod, item)
		}
		return arrow.ListOfField(item)
	}
	if t.IsArray() {
		return arrow.ListOf(ArrowType(t.Elem()))
	}
	// numeric without a bounded precision, text family, json: text
	return arrow.BinaryTypes.String
}

// vecFromArrow converts an Arrow column to a Vec of type t.
func vecFromArrow(arr arrow.Array, t Type) (*Vec, error) {
	n := arr.Len()
	var v *Vec
	switch a := arr.(type) {
	case *array.Int64:
		if t.Kind() == KInt {
			v = &Vec{T: t, N: n, I: a.Int64Values()}
		}
	case *array.Float64:
		v = &Vec{T: t, N: n, F: a.Float64Values()}
	}
	if v != nil {
		if arr.NullN() > 0 {
			v.Nulls = make([]bool, n)
			for i := 0; i < n; i++ {
				v.Nulls[i] = arr.IsNull(i)
			}
		}
		return v, nil
	}
	v = NewVec(t, n)
	if arr.NullN() > 0 {
		v.Nulls = make([]bool, n)
		for i := 0; i < n; i++ {
			v.Nulls[i] = arr.IsNull(i)
		}
	}
	switch a := arr.(type) {
	case *array.Int64:
		if t.Kind() == KInt {
			v.I = a.Int64Values()
			return v, nil
		}
	case *array.Int32:
		for i, x := range a.Int32Values() {
			v.I[i] = int64(x)
		}
		return v, nil
	case *array.Int16:
		for i, x := range a.Int16Values() {
			v.I[i] = int64(x)
		}
		return v, nil
	case *array.Uint32:
		for i, x := range a.Uint32Values() {
			v.I[i] = int64(x)
		}
		return v, nil
	case *array.Float64:
		v.F = a.Float64Values()
		return v, nil
	case *array.Float32:
		for i, x := range a.Float32Values() {
			v.F[i] = float64(x)
		}
		return v, nil
	case *array.Boolean:
		// unpack the bitmap directly (no per-value call)
		bits := a.Data().Buffers()[1].Bytes()
		off := a.Data().Offset()
		for i := range v.B {
			j := off + i
			v.B[i] = bits[j>>3]&(1<<(j&7)) != 0
		}
		return v, nil
	case *array.Date32:
		for i, x := range a.Date32Values() {
			v.I[i] = int64(x)
		}
		return v, nil
	case *array.Time64:
		for i, x := range a.Time64Values() {
			v.I[i] = int64(x)
		}
		return v, nil
	case *array.Timestamp:
		mul, div := int64(1), int64(1)
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			mul = 1_000_000
		case arrow.Millisecond:
			mul = 1000
		case arrow.Nanosecond:
			div = 1000
		}
		for i, x := range a.TimestampValues() {
			v.I[i] = int64(x) * mul / div
		}
		return v, nil
	case *array.String:
		if t.Kind() == KStr {
			for i := 0; i < n; i++ {
				v.S[i] = a.Value(i)
			}
			return v, nil
		}
		for i := 0; i < n; i++ {
			if !v.IsNull(i) {
				if err := parseText(v, i, a.Value(i), nil); err != nil {
					return nil, err
				}
			}
		}
		return v, nil
	case *array.LargeString:
		for i := 0; i < n; i++ {
			v.S[i] = a.Value(i)
		}
		return v, nil
	case *array.Binary:
		for i := 0; i < n; i++ {
			v.S[i] = string(a.Value(i))
		}
		return v, nil
	case *array.FixedSizeBinary:
		for i := 0; i < n; i++ {
			if !v.IsNull(i) {
				u, err := uuid.FromBytes(a.Value(i))
				if err != nil {
					return nil, err
				}
				v.S[i] = u.String()
			}
		}
		return v, nil
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		for i := 0; i < n; i++ {
			x := a.Value(i)
			v.D[i].Coeff.SetMathBigInt(x.BigInt())
			if v.D[i].Coeff.Sign() < 0 {
				v.D[i].Coeff.Neg(&v.D[i].Coeff)
				v.D[i].Negative = true
			}
			v.D[i].Exponent = -scale
		}
		return v, nil
	case *array.MonthDayNanoInterval:
		for i := 0; i < n; i++ {
			x := a.Value(i)
			v.V[i] = Interval{Months: x.Months, Days: x.Days, Micros: x.Nanoseconds / 1000}
		}
		return v, nil
	case *array.FixedSizeList:
		// vector(n) storage: n float32 per row
		if t.Kind() != KArray {
			break
		}
		dims := int64(a.DataType().(*arrow.FixedSizeListType).Len())
		et := t.Elem()
		if t.OID == OIDVector {
			et = TFloat4
		}
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				continue
			}
			lo := (int64(a.Offset()) + int64(i)) * dims
			items, err := vecFromArrow(array.NewSlice(a.ListValues(), lo, lo+dims), et)
			if err != nil {
				return nil, err
			}
			v.A[i] = &Array{Elem: et, Items: items}
		}
		return v, nil
	case *array.List:
		et := t.Elem()
		if t.OID == OIDVector {
			et = TFloat4
		}
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				continue
			}
			lo, hi := a.ValueOffsets(i)
			items, err := vecFromArrow(array.NewSlice(a.ListValues(), lo, hi), et)
			if err != nil {
				return nil, err
			}
			v.A[i] = &Array{Elem: et, Items: items, vector: t.OID == OIDInt2Vector || t.OID == OIDOidVector}
		}
		return v, nil
	}
	return nil, unsupported("Arrow type %s for a %s column is not supported", arr.DataType(), t)
}

// vecToArrow builds an Arrow array from rows of v.
func vecToArrow(mem memory.Allocator, v *Vec) arrow.Array {
	b := array.NewBuilder(mem, ArrowType(v.T))
	defer b.Release()
	appendToBuilder(b, v)
	return b.NewArray()
}

func appendToBuilder(b array.Builder, v *Vec) {
	for i := 0; i < v.N; i++ {
		if v.IsNull(i) {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.BooleanBuilder:
			bb.Append(v.B[i])
		case *array.Int16Builder:
			bb.Append(int16(v.I[i]))
		case *array.Int32Builder:
			bb.Append(int32(v.I[i]))
		case *array.Int64Builder:
			bb.Append(v.I[i])
		case *array.Uint32Builder:
			bb.Append(uint32(v.I[i]))
		case *array.Float32Builder:
			bb.Append(float32(v.F[i]))
		case *array.Float64Builder:
			bb.Append(v.F[i])
		case *array.Date32Builder:
			bb.Append(arrow.Date32(v.I[i]))
		case *array.Time64Builder:
			bb.Append(arrow.Time64(v.I[i]))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(v.I[i]))
		case *array.BinaryBuilder:
			bb.Append([]byte(v.S[i]))
		case *array.FixedSizeBinaryBuilder:
			u, _ := uuid.Parse(v.S[i])
			bb.Append(u[:])
		case *array.MonthDayNanoIntervalBuilder:
			x := v.V[i]
			bb.Append(arrow.MonthDayNanoInterval{Months: x.Months, Days: x.Days, Nanoseconds: x.Micros * 1000})
		case *array.ListBuilder:
			bb.Append(true)
			appendToBuilder(bb.ValueBuilder(), v.A[i].Items)
		case *array.FixedSizeListBuilder:
			// vector(n): the value's dimension count was checked when it
			// was cast to the column type; a short one is padded with
			// NULLs rather than corrupting the array
			bb.Append(true)
			dims := int(bb.Type().(*arrow.FixedSizeListType).Len())
			items := v.A[i].Items
			vb := bb.ValueBuilder()
			fb, isF32 := vb.(*array.Float32Builder)
			for k := 0; k < dims; k++ {
				switch {
				case k >= items.N || items.IsNull(k):
					vb.AppendNull()
				case isF32 && items.T.Kind() == KFloat:
					fb.Append(float32(items.F[k]))
				default:
					appendToBuilder(vb, sliceVec(items, k))
				}
			}
		case *array.StringBuilder:
			bb.Append(formatValue(v, i, nil))
		default:
			panic(fmt.Sprintf("exec: no Arrow builder for %T", b))
		}
	}
}

func sliceArray(a arrow.Array, lo, hi int) arrow.Array {
	return array.NewSlice(a, int64(lo), int64(hi))
}

// VecFromArrow converts an Arrow column to a Vec of type t.
func VecFromArrow(arr arrow.Array, t Type) (*Vec, error) { return vecFromArrow(arr, t) }
