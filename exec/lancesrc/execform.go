package lancesrc

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Storage forms exec does not compute with: vector(n) columns are stored
// as fixed_size_list<float32>[n] but exec sees them as real[]
// (list<float32>). Scans hand exec the list form.

// ExecForm presents a record in exec's Arrow forms: vector columns
// (fixed_size_list) become lists over the same values. Other columns are
// shared unchanged.
func ExecForm(rec arrow.RecordBatch) arrow.RecordBatch {
	var cols []arrow.Array
	var fields []arrow.Field
	for i, c := range rec.Columns() {
		fsl, ok := c.(*array.FixedSizeList)
		if !ok {
			continue
		}
		if cols == nil {
			cols = append([]arrow.Array(nil), rec.Columns()...)
			fields = append([]arrow.Field(nil), rec.Schema().Fields()...)
		}
		cols[i] = listFromFixed(fsl)
		fields[i].Type = cols[i].DataType()
	}
	if cols == nil {
		return rec
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// listFromFixed views a fixed-size list as a list (offsets i*n).
func listFromFixed(a *array.FixedSizeList) arrow.Array {
	t := a.DataType().(*arrow.FixedSizeListType)
	n := int32(t.Len())
	// offsets are indexed from the array's data offset, like the validity
	// bitmap shared with it.
	offs := make([]int32, a.Data().Offset()+a.Len()+1)
	for i := range offs {
		offs[i] = int32(i) * n
	}
	lt := arrow.ListOfField(t.ElemField())
	data := array.NewData(lt, a.Len(), []*memory.Buffer{a.Data().Buffers()[0], memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs))},
		[]arrow.ArrayData{a.ListValues().Data()}, a.NullN(), a.Data().Offset())
	defer data.Release()
	return array.MakeFromData(data)
}
