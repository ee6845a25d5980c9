package exec

import (
	"math"
	"testing"
)

func TestScanFilterMatches(t *testing.T) {
	ints := NewVec(TInt8, 4)
	copy(ints.I, []int64{1, 5, 9, 0})
	ints.SetNull(3)
	text := NewVec(TText, 3)
	copy(text.S, []string{"a", "b", "c"})
	one := func(t Type, x any) *Vec { v := NewVec(t, 1); v.SetDatum(0, x); return v }
	cases := []struct {
		f    ScanFilter
		v    *Vec
		want []bool
	}{
		{ScanFilter{Op: "=", Value: one(TInt8, int64(5))}, ints, []bool{false, true, false, false}},
		{ScanFilter{Op: "<>", Value: one(TInt8, int64(5))}, ints, []bool{true, false, true, false}},
		{ScanFilter{Op: "<", Value: one(TInt8, int64(5))}, ints, []bool{true, false, false, false}},
		{ScanFilter{Op: ">=", Value: one(TInt8, int64(5))}, ints, []bool{false, true, true, false}},
		{ScanFilter{Op: "IS NULL"}, ints, []bool{false, false, false, true}},
		{ScanFilter{Op: "IS NOT NULL"}, ints, []bool{true, true, true, false}},
		{ScanFilter{Op: ">", Value: one(TText, "a")}, text, []bool{false, true, true}},
		// a hint of another type or operator never removes rows
		{ScanFilter{Op: "=", Value: one(TText, "x")}, ints, []bool{true, true, true, true}},
		{ScanFilter{Op: "~~", Value: one(TText, "x")}, text, []bool{true, true, true}},
	}
	floats := NewVec(TFloat8, 5)
	copy(floats.F, []float64{-1, 0, 2.5, math.NaN(), 7})
	floats.SetNull(4)
	nan := one(TFloat8, math.NaN())
	cases = append(cases,
		struct {
			f    ScanFilter
			v    *Vec
			want []bool
		}{ScanFilter{Op: ">", Value: one(TFloat8, 0.0)}, floats, []bool{false, false, true, true, false}},
		struct {
			f    ScanFilter
			v    *Vec
			want []bool
		}{ScanFilter{Op: "<=", Value: one(TFloat8, 2.5)}, floats, []bool{true, true, true, false, false}},
		struct {
			f    ScanFilter
			v    *Vec
			want []bool
		}{ScanFilter{Op: "=", Value: nan}, floats, []bool{false, false, false, true, false}},
		struct {
			f    ScanFilter
			v    *Vec
			want []bool
		}{ScanFilter{Op: "<", Value: nan}, floats, []bool{true, true, true, false, false}},
	)
	for _, c := range cases {
		keep := make([]bool, len(c.want))
		for i := range keep {
			keep[i] = true
		}
		c.f.Narrow(c.v, keep)
		for i, w := range c.want {
			if got := c.f.Matches(c.v, i); got != w {
				t.Errorf("%s row %d: got %v want %v", c.f.Op, i, got, w)
			}
			if keep[i] != w {
				t.Errorf("%s row %d: Narrow kept %v want %v", c.f.Op, i, keep[i], w)
			}
		}
	}
}
