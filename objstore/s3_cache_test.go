package objstore

import (
	"bytes"
	"testing"
)

// TestRangeEntrySlice: which reads a cached range answers, and with
// what bytes. Ranges follow GetRange: a range shorter than asked for
// ended at the object's end, so it also answers reads running past its
// end; an exact one does not know where the object ends.
func TestRangeEntrySlice(t *testing.T) {
	obj := []byte("0123456789") // a 10-byte object
	whole := &rangeEntry{rk: rangeKey{"k", 0, -1}, data: obj}
	exact := &rangeEntry{rk: rangeKey{"k", 2, 4}, data: obj[2:6]}      // [2, 6), object continues
	truncated := &rangeEntry{rk: rangeKey{"k", 6, 100}, data: obj[6:]} // [6, 10), the end
	tests := []struct {
		name  string
		entry *rangeEntry
		off   int64
		len   int64
		want  []byte // nil: not answered
	}{
		{"whole: a range", whole, 3, 4, obj[3:7]},
		{"whole: to the end", whole, 3, -1, obj[3:]},
		{"whole: the object", whole, 0, -1, obj},
		{"whole: past the end is truncated", whole, 8, 5, obj[8:]},
		{"whole: at the end is the server's", whole, 10, 1, nil},
		{"whole: empty is the server's", whole, 3, 0, nil},
		{"exact: inside", exact, 3, 2, obj[3:5]},
		{"exact: all of it", exact, 2, 4, obj[2:6]},
		{"exact: before it", exact, 1, 2, nil},
		{"exact: past it", exact, 4, 3, nil},
		{"exact: to the end, unknown", exact, 3, -1, nil},
		{"truncated: past its end", truncated, 7, 50, obj[7:]},
		{"truncated: to the end", truncated, 6, -1, obj[6:]},
		{"truncated: before it", truncated, 5, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.entry.slice(rangeKey{"k", tt.off, tt.len})
			if ok != (tt.want != nil) || !bytes.Equal(got, tt.want) {
				t.Fatalf("slice(%d, %d) = %q, %v; want %q", tt.off, tt.len, got, ok, tt.want)
			}
		})
	}
}
