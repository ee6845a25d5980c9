package objstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// TestMemMatchesLocal runs the same random operation sequences against
// Mem and Local: every result (content, error class, listing) must agree,
// so tests that use Mem say something about the real filesystem.
func TestMemMatchesLocal(t *testing.T) {
	t.Parallel() // own server, store and directory; mostly waits on requests and fsyncs
	ctx := context.Background()
	keys := []string{"a", "a/b", "a/c", "b/x/y", "b/x/z", "b/w", "c.lance/_versions/1.manifest", "c.lance/data/f"}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		mem := objstore.NewTracing(objstore.NewMem())
		loc := objstore.NewTracing(newLocal(t))
		for step := range 300 {
			k := keys[rng.IntN(len(keys))]
			data := []byte(fmt.Sprint(step))
			switch rng.IntN(6) {
			case 0:
				_ = mem.Put(ctx, k, data)
				_ = loc.Put(ctx, k, data)
			case 1:
				_ = mem.PutIfAbsent(ctx, k, data)
				_ = loc.PutIfAbsent(ctx, k, data)
			case 2:
				_ = mem.Delete(ctx, k)
				_ = loc.Delete(ctx, k)
			case 3:
				a, _ := mem.Get(ctx, k)
				b, _ := loc.Get(ctx, k)
				if string(a) != string(b) {
					t.Fatalf("seed %d step %d: Get(%q) mem %q local %q", seed, step, k, a, b)
				}
			case 4:
				off := int64(rng.IntN(4))
				a, _ := mem.GetRange(ctx, k, off, 2)
				b, _ := loc.GetRange(ctx, k, off, 2)
				if string(a) != string(b) {
					t.Fatalf("seed %d step %d: GetRange(%q) mem %q local %q", seed, step, k, a, b)
				}
			case 5:
				p := k[:rng.IntN(len(k)+1)]
				a, _ := mem.List(ctx, p)
				b, _ := loc.List(ctx, p)
				if len(a) != len(b) {
					t.Fatalf("seed %d step %d: List(%q) mem %v local %v", seed, step, p, a, b)
				}
				for i := range a {
					if a[i].Key != b[i].Key || a[i].Size != b[i].Size {
						t.Fatalf("seed %d step %d: List(%q) mem %v local %v", seed, step, p, a, b)
					}
				}
			}
		}
		ml, ll := mem.Lines(), loc.Lines()
		for i := range ml {
			if ml[i] != ll[i] {
				t.Fatalf("seed %d: traces diverge at op %d:\nmem   %s\nlocal %s", seed, i, ml[i], ll[i])
			}
		}
	}
}
