package seq

import (
	"context"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// FuzzStoredBlock feeds arbitrary bytes as the tail block: the allocator
// answers a value or an error, never panics, and never hands out a value
// outside the sequence's range.
func FuzzStoredBlock(f *testing.F) {
	for _, s := range []string{
		`{"first":1,"count":32,"inc":1,"next":33}`,
		`{"first":5,"count":0,"inc":1,"next":5}`,
		`{"first":1,"count":1,"inc":1,"next":2,"end":true}`,
		`{"first":1,"count":-1,"inc":0,"next":0}`,
		`{"next":9223372036854775807,"inc":1}`,
		`not json`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ctx := context.Background()
		st := objstore.NewMem()
		if err := st.Put(ctx, blockKey("k", 0), raw); err != nil {
			t.Fatal(err)
		}
		s := spec("k", opts(1, 1, 1, 1000, false))
		v, err := Open(st).Next(ctx, s)
		if err == nil && (v < s.Min || v > s.Max) {
			t.Fatalf("value %d outside 1..1000", v)
		}
	})
}
