package exec

import (
	"math"
	"testing"
	"time"
)

// TestAppendTextMatchesFormatText: AppendText writes what FormatText
// returns, for the types it writes itself and the ones it hands on.
func TestAppendTextMatchesFormatText(t *testing.T) {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		loc = time.FixedZone("x", 9*3600)
	}
	cases := []struct {
		t    Type
		vals []any
	}{
		{TInt2, []any{int64(-32768), int64(0), int64(7)}},
		{TInt4, []any{int64(-2147483648), int64(42)}},
		{TInt8, []any{int64(-9223372036854775808), int64(9223372036854775807)}},
		{TBool, []any{true, false}},
		{TText, []any{"", "a\tb\n'c'", "ünïcode"}},
		{TVarchar, []any{"x", ""}},
		{TFloat8, []any{1.5, math.Copysign(0, -1), 1e300}},
		{TNumeric, []any{"1.50", "-0", "NaN"}},
		{TDate, []any{"2020-02-29"}},
		{TTimestamptz, []any{"2020-06-01 12:00:00+00"}},
		{TBytea, []any{"\\x00ff"}},
		{TOid, []any{int64(4294967295)}},
	}
	for _, c := range cases {
		v := NewVec(c.t, len(c.vals))
		for i, x := range c.vals {
			if s, ok := x.(string); ok && c.t.Kind() != KStr {
				if err := parseText(v, i, s, loc); err != nil {
					t.Fatalf("%v %q: %v", c.t, s, err)
				}
				continue
			}
			v.SetDatum(i, x)
		}
		for i := range c.vals {
			want, _ := FormatText(v, i, loc)
			if got := string(AppendText([]byte("prefix:"), v, i, loc)); got != "prefix:"+want {
				t.Errorf("%v row %d: AppendText %q, FormatText %q", c.t, i, got, want)
			}
		}
	}
}
