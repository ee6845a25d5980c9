package planner

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Storage forms: some column types are stored in a different Arrow type
// than the one exec computes with. numeric(p,s) is stored as
// decimal128(p,s) (exec: its own decimal form) and vector(n) as
// fixed_size_list<float32>[n] (exec: real[] = list<float32>). Values are
// converted when a pending record is built (storageArray: a value that
// does not fit is an error, never a NULL) and back to exec's form when
// exec reads a pending record (execRecord).

// storageArray converts a column to its storage type dt. fallback is the
// column in exec's Arrow form; it is returned unchanged when dt needs no
// conversion.
func storageArray(v *exec.Vec, dt arrow.DataType, fallback arrow.Array) (arrow.Array, error) {
	switch t := dt.(type) {
	case *arrow.Decimal128Type:
		return decimalArray(v, t)
	case *arrow.FixedSizeListType:
		return vectorArray(fallback, t)
	}
	return fallback, nil
}

func decimalArray(v *exec.Vec, dec *arrow.Decimal128Type) (arrow.Array, error) {
	b := array.NewDecimal128Builder(memory.DefaultAllocator, dec)
	defer b.Release()
	for i := 0; i < v.N; i++ {
		if v.IsNull(i) {
			b.AppendNull()
			continue
		}
		txt, _ := exec.FormatText(v, i, nil)
		n, err := decimal128.FromString(txt, dec.Precision, dec.Scale)
		if err != nil || !n.FitsInPrecision(dec.Precision) {
			return nil, wire.Errorf(pgerr.NumericValueOutOfRange, "numeric field overflow").
				WithDetail(fmt.Sprintf("A field with precision %d, scale %d cannot hold the value %s.", dec.Precision, dec.Scale, txt))
		}
		b.Append(n)
	}
	return b.NewArray(), nil
}

// vectorArray builds fixed_size_list<float32>[n] from a list column,
// checking every vector's dimension as pgvector does.
func vectorArray(src arrow.Array, t *arrow.FixedSizeListType) (arrow.Array, error) {
	if fsl, ok := src.(*array.FixedSizeList); ok && arrow.TypeEqual(fsl.DataType(), t) {
		// exec's vector(n) values: dimensions already checked by its cast
		fsl.Retain()
		return fsl, nil
	}
	lst, ok := src.(*array.List)
	if !ok {
		return nil, wire.Errorf(pgerr.DatatypeMismatch, "cannot store %s as %s", src.DataType(), t)
	}
	dim := int(t.Len())
	b := array.NewFixedSizeListBuilderWithField(memory.DefaultAllocator, t.Len(), t.ElemField())
	defer b.Release()
	fb, ok := b.ValueBuilder().(*array.Float32Builder)
	if !ok {
		return nil, wire.Errorf(pgerr.DatatypeMismatch, "cannot store a vector of %s", t.Elem())
	}
	vals := lst.ListValues()
	for i := 0; i < lst.Len(); i++ {
		if lst.IsNull(i) {
			b.AppendNull()
			continue
		}
		lo, hi := lst.ValueOffsets(i)
		if int(hi-lo) != dim {
			return nil, wire.Errorf(pgerr.DataException, "expected %d dimensions, not %d", dim, hi-lo)
		}
		b.Append(true)
		for j := int(lo); j < int(hi); j++ {
			if vals.IsNull(j) {
				return nil, wire.Errorf(pgerr.NullValueNotAllowed, "array must not contain nulls")
			}
			var f float32
			switch a := vals.(type) {
			case *array.Float32:
				f = a.Value(j)
			case *array.Float64:
				f = float32(a.Value(j))
			default:
				return nil, wire.Errorf(pgerr.DatatypeMismatch, "cannot store %s as a vector", vals.DataType())
			}
			if math.IsNaN(float64(f)) {
				return nil, wire.Errorf(pgerr.DataException, "NaN not allowed in vector")
			}
			if math.IsInf(float64(f), 0) {
				return nil, wire.Errorf(pgerr.DataException, "infinite value not allowed in vector")
			}
			fb.Append(f)
		}
	}
	return b.NewArray(), nil
}

// execRecord presents a record in exec's Arrow forms (vector columns as
// lists over the same values).
func execRecord(rec arrow.RecordBatch) arrow.RecordBatch {
	if pr, ok := rec.(*pendingRecord); ok {
		return pr.execView() // without reading a staged record's columns
	}
	return lancesrc.ExecForm(rec)
}
