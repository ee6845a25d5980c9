package exec

import (
	"testing"
)

// TestEmitChunksDense: a large materialized batch is emitted as dense
// batches of at most batchSize rows (a batch that kept the full length
// under a selection made per-batch work such as constant broadcasts
// proportional to the whole result: quadratic GROUP BY ... HAVING).
func TestEmitChunksDense(t *testing.T) {
	for _, c := range []struct {
		n   int
		sel []int32
	}{{0, nil}, {5, nil}, {batchSize, nil}, {3*batchSize + 7, nil}, {3000, []int32{1, 2, 2999}}, {2500, allRows(2500)[100:2400]}} {
		v := NewVec(TInt8, c.n)
		s := NewVec(TText, c.n)
		for i := range c.n {
			v.I[i] = int64(i * 3)
			s.S[i] = itoa(int64(i))
			if i%7 == 0 {
				s.SetNull(i)
			}
		}
		var got []int64
		var nulls int
		err := emitChunks(&Batch{N: c.n, Cols: []*Vec{v, s}, Sel: c.sel}, func(b *Batch) error {
			if b.N > batchSize {
				t.Errorf("n=%d: a chunk of %d rows", c.n, b.N)
			}
			forEach(b.N, b.Sel, func(i int) {
				got = append(got, b.Cols[0].I[i])
				if b.Cols[1].IsNull(i) {
					nulls++
				} else if b.Cols[1].S[i] != itoa(b.Cols[0].I[i]/3) {
					t.Errorf("n=%d: row %d: text %q beside %d", c.n, i, b.Cols[1].S[i], b.Cols[0].I[i])
				}
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := c.sel
		if want == nil {
			want = allRows(c.n)
		}
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d rows emitted, want %d", c.n, len(got), len(want))
		}
		wantNulls := 0
		for k, r := range want {
			if got[k] != int64(r)*3 {
				t.Fatalf("n=%d: row %d is %d, want %d", c.n, k, got[k], int64(r)*3)
			}
			if r%7 == 0 {
				wantNulls++
			}
		}
		if nulls != wantNulls {
			t.Errorf("n=%d: %d NULLs, want %d", c.n, nulls, wantNulls)
		}
	}
}
