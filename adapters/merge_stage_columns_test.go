package adapters

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestConflictColumns: the columns a staged row conflict is about and
// the row staged for it — a row both sides updated is merged per column
// (the source's value where only it changed a column, the target's where
// both set it), other conflicts keep the target's row.
func TestConflictColumns(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	row := func(v ...int64) arrow.RecordBatch {
		if v == nil {
			return nil
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		for i, x := range v {
			b.Field(i).(*array.Int64Builder).Append(x)
		}
		return b.NewRecordBatch()
	}
	cases := []struct {
		name               string
		base, ours, theirs []int64
		perColumn          bool
		cols               []int
		staged             []int64 // nil: the target's row as it is
	}{
		{"same column both sides", []int64{1, 0, 0}, []int64{1, 1, 0}, []int64{1, 2, 0}, true, []int{1}, nil},
		{"other column taken from the source", []int64{1, 0, 0}, []int64{1, 1, 0}, []int64{1, 2, 5}, true, []int{1}, []int64{1, 1, 5}},
		{"target changed both", []int64{1, 0, 0}, []int64{1, 1, 7}, []int64{1, 2, 0}, true, []int{1}, nil},
		{"both columns set differently", []int64{1, 0, 0}, []int64{1, 1, 1}, []int64{1, 2, 2}, true, []int{1, 2}, nil},
		{"re-columned base: no per-column merge", []int64{1, 0, 0}, []int64{1, 1, 0}, []int64{1, 2, 5}, false, []int{1, 2}, nil},
		{"added on both", nil, []int64{1, 1, 0}, []int64{1, 2, 0}, true, []int{1}, nil},
		{"deleted on the source", []int64{1, 0, 0}, []int64{1, 1, 0}, nil, true, []int{0, 1, 2}, nil},
		{"deleted on the target", []int64{1, 0, 0}, nil, []int64{1, 1, 0}, true, []int{0, 1, 2}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := RowConflict{Base: row(tc.base...), Ours: row(tc.ours...), Theirs: row(tc.theirs...)}
			cols, merged := conflictColumns(rc, tc.perColumn)
			if !slices.Equal(cols, tc.cols) {
				t.Errorf("columns %v, want %v", cols, tc.cols)
			}
			var got []int64
			for _, a := range merged {
				got = append(got, a.(*array.Int64).Value(0))
			}
			if !slices.Equal(got, tc.staged) {
				t.Errorf("staged %v, want %v", got, tc.staged)
			}
		})
	}
}
