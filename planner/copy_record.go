package planner

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/exec"
)

// copyRecord builds the stored record of a COPY batch (vecs in table
// order). The batch's int8, float8 and text columns become Arrow arrays
// over the batch's own buffers without copying (nothing writes to them
// after parsing); other columns (defaults, other types, varchar/char
// whose values the length check may rewrite) are converted as
// recordFromVecs does.
func copyRecord(ti *tableInfo, targets []int, b *copyBatch, vecs []*exec.Vec) (arrow.RecordBatch, error) {
	fields := ti.schema.Fields()
	arrs := make([]arrow.Array, len(fields))
	for i, c := range targets {
		if c < len(fields) {
			arrs[c] = b.cols[i].array(b.n, fields[c].Type)
		}
	}
	var rest []int
	for c := range fields {
		if arrs[c] == nil {
			rest = append(rest, c)
		}
	}
	if len(rest) > 0 {
		b.fillStrings(vecs) // a text column stored in another Arrow type
		sub := make([]arrow.Field, len(rest))
		cols := make([]exec.ColumnDef, len(rest))
		vs := make([]*exec.Vec, len(rest))
		for k, c := range rest {
			sub[k], cols[k], vs[k] = fields[c], ti.def.Columns[c], vecs[c]
		}
		rec, err := recordFromVecs(arrow.NewSchema(sub, nil), cols, vs)
		if err != nil {
			return nil, err
		}
		for k, c := range rest {
			arrs[c] = rec.Column(k)
		}
	}
	return array.NewRecordBatch(ti.schema, arrs, int64(b.n)), nil
}

// array returns the column as an Arrow array of type dt sharing its
// buffers, or nil when it is not one of the shared forms.
func (c *copyColumn) array(n int, dt arrow.DataType) arrow.Array {
	var bufs []*memory.Buffer
	switch {
	case c.t.OID == exec.OIDInt8 && arrow.TypeEqual(dt, arrow.PrimitiveTypes.Int64):
		bufs = []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.ints[:n]))}
	case c.t.OID == exec.OIDFloat8 && arrow.TypeEqual(dt, arrow.PrimitiveTypes.Float64):
		bufs = []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(c.flts[:n]))}
	case c.t.OID == exec.OIDText && arrow.TypeEqual(dt, arrow.BinaryTypes.String):
		offs := make([]int32, n+1)
		copy(offs[1:], c.ends)
		bufs = []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)), memory.NewBufferBytes(c.data)}
	default:
		return nil
	}
	nulls := 0
	if c.nulls != nil {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		for i, null := range c.nulls[:n] {
			if null {
				nulls++
			} else {
				bitutil.SetBit(bm, i)
			}
		}
		if nulls > 0 {
			bufs[0] = memory.NewBufferBytes(bm)
		}
	}
	data := array.NewData(dt, n, bufs, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}
