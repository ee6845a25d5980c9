package planner

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/exec"
)

// TestPendingFollowedRowsKeepIdentity: a followed pending row keeps its
// handle while statements remove other pending rows (before it, after
// it, in other records, with base rows), its position always naming the
// same row; once a statement removes the row itself the handle reports
// it gone, and a savepoint copy keeps its own positions.
func TestPendingFollowedRowsKeepIdentity(t *testing.T) {
	// each step removes pending rows by their current values (as a
	// statement would, by the addresses it just read)
	cases := []struct {
		name    string
		records [][]int64 // pending insert records, by value
		follow  []int64   // values of the followed rows
		removes [][]int64 // successive statements' removals, by value
		gone    []int64   // followed values removed by then
	}{
		{"nothing removed", [][]int64{{1, 2, 3}}, []int64{2}, nil, nil},
		{"earlier row removed", [][]int64{{1, 2, 3}}, []int64{3}, [][]int64{{1}}, nil},
		{"later row removed", [][]int64{{1, 2, 3}}, []int64{1}, [][]int64{{3}}, nil},
		{"earlier record emptied", [][]int64{{1, 2}, {3, 4}}, []int64{4, 3}, [][]int64{{1, 2}}, nil},
		{"the row itself", [][]int64{{1, 2, 3}}, []int64{2, 3}, [][]int64{{2}}, []int64{2}},
		{"two statements", [][]int64{{1, 2}, {3}}, []int64{1, 3}, [][]int64{{1}, {2}}, []int64{1}},
		{"many statements", [][]int64{{10, 11, 12, 13}, {14, 15}, {16}}, []int64{12, 15, 16, 10},
			[][]int64{{11}, {13, 14}, {10}, {16}, {12}}, []int64{10, 16, 12}},
	}
	cols := []exec.ColumnDef{{Name: "v", Type: exec.TInt8}}
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	values := func(p *pendingTable) []int64 {
		var out []int64
		for _, rec := range p.inserts {
			out = append(out, rec.Column(0).(*array.Int64).Int64Values()...)
		}
		return out
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &pendingTable{schema: schema, cols: cols}
			for _, vs := range tc.records {
				v := exec.NewVec(exec.TInt8, len(vs))
				copy(v.I, vs)
				rec, err := recordFromVecs(schema, cols, []*exec.Vec{v})
				if err != nil {
					t.Fatal(err)
				}
				p.inserts = append(p.inserts, newPendingRecord(rec))
			}
			handles := map[int64]int{}
			for _, f := range tc.follow {
				handles[f] = p.follow(uint64(slices.Index(values(p), f)))
			}
			saved := p.clone()
			for i, rm := range tc.removes {
				addrs := []uint64{uint64(i) + 7} // a base row with each statement
				for _, v := range rm {
					addrs = append(addrs, pendingAddrBit|uint64(slices.Index(values(p), v)))
				}
				if _, err := p.remove(addrs); err != nil {
					t.Fatal(err)
				}
			}
			now := values(p)
			for f, h := range handles {
				pos, live := p.followedRow(h)
				if slices.Contains(tc.gone, f) {
					if live {
						t.Errorf("row %d: still followed at %d after its removal (rows %v)", f, pos, now)
					}
					continue
				}
				if !live || int(pos) >= len(now) || now[pos] != f {
					t.Errorf("row %d: followed at %d (live %v), rows now %v", f, pos, live, now)
				}
			}
			// the copy taken before the removals still names the rows
			// where they were
			was := values(saved)
			for f, h := range handles {
				if pos, live := saved.followedRow(h); !live || was[pos] != f {
					t.Errorf("savepoint copy: row %d at %d (live %v) of %v", f, pos, live, was)
				}
			}
		})
	}
}
