package exec

import (
	"slices"
	"testing"
)

// TestWithTempSchema: the temporary schema goes first unless the path
// names pg_temp (or the schema), where it then stands; without one,
// pg_temp names nothing.
func TestWithTempSchema(t *testing.T) {
	for _, tc := range []struct {
		path []string
		temp string
		want []string
	}{
		{[]string{"app", "public"}, "pg_temp_3", []string{"pg_temp_3", "app", "public"}},
		{[]string{"public", "pg_temp"}, "pg_temp_3", []string{"public", "pg_temp_3"}},
		{[]string{"public", "pg_temp_3"}, "pg_temp_3", []string{"public", "pg_temp_3"}},
		{[]string{"pg_temp", "public", "pg_temp"}, "pg_temp_3", []string{"pg_temp_3", "public"}},
		{[]string{"public", "pg_temp"}, "", []string{"public"}},
		{[]string{"public"}, "", []string{"public"}},
	} {
		if got := WithTempSchema(tc.path, tc.temp); !slices.Equal(got, tc.want) {
			t.Errorf("WithTempSchema(%v, %q) = %v, want %v", tc.path, tc.temp, got, tc.want)
		}
	}
}
