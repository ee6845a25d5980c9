package lancesrc

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestExecFormVectors: fixed-size lists become lists over the same
// values, NULL vectors and slices (non-zero offsets) included; other
// columns pass unchanged.
func TestExecFormVectors(t *testing.T) {
	b := array.NewFixedSizeListBuilder(memory.DefaultAllocator, 2, arrow.PrimitiveTypes.Float32)
	defer b.Release()
	vb := b.ValueBuilder().(*array.Float32Builder)
	b.Append(true)
	vb.AppendValues([]float32{1, 2}, nil)
	b.AppendNull() // the builder adds the NULL vector's placeholder values
	b.Append(true)
	vb.AppendValues([]float32{5, 6}, nil)
	full := b.NewArray()
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.AppendValues([]int64{1, 2, 3}, nil)
	ids := ib.NewArray()
	cases := []struct {
		name     string
		from, to int64
		want     string
	}{
		{"whole", 0, 3, "[[1 2] (null) [5 6]]"},
		{"slice", 1, 3, "[(null) [5 6]]"},
		{"last", 2, 3, "[[5 6]]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vecs := array.NewSlice(full, c.from, c.to)
			id := array.NewSlice(ids, c.from, c.to)
			sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: full.DataType(), Nullable: true}}, nil)
			out := ExecForm(array.NewRecordBatch(sch, []arrow.Array{id, vecs}, c.to-c.from))
			got := out.Column(1)
			if got.DataType().ID() != arrow.LIST || fmt.Sprint(got) != c.want {
				t.Fatalf("got %v (%s), want %s as a list", got, got.DataType(), c.want)
			}
			if out.Column(0) != id {
				t.Fatal("the id column was copied")
			}
		})
	}
}
