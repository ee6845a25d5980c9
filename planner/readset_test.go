package planner

import (
	"testing"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
)

func int8Vec(vals ...int64) *exec.Vec {
	v := exec.NewVec(exec.TInt8, len(vals))
	copy(v.I, vals)
	return v
}

func textVec(vals ...string) *exec.Vec {
	v := exec.NewVec(exec.TText, len(vals))
	copy(v.S, vals)
	return v
}

// TestReadHits: a changed row conflicts with a logged read exactly when
// the read would have selected it; what cannot be judged conflicts.
func TestReadHits(t *testing.T) {
	td := &exec.TableDef{Name: "kv", Columns: []exec.ColumnDef{{Name: "k", Type: exec.TInt8}, {Name: "v", Type: exec.TText}}}
	// the changed rows: (5, 'a'), (9, 'b')
	rows := []*exec.Vec{int8Vec(5, 9), textVec("a", "b")}
	gt := func(col string, n int64) lancesrc.ReadFilter {
		return lancesrc.ReadFilter{Column: col, ScanFilter: exec.ScanFilter{Op: ">", Value: int8Vec(n)}}
	}
	eq := func(col, s string) lancesrc.ReadFilter {
		return lancesrc.ReadFilter{Column: col, ScanFilter: exec.ScanFilter{Op: "=", Value: textVec(s)}}
	}
	cases := []struct {
		name string
		r    lancesrc.Read
		hit  bool
	}{
		{"int key looked up", lancesrc.Read{Kind: lancesrc.ReadKeys, Column: "k", Keys: int8Vec(1, 9)}, true},
		{"int keys not changed", lancesrc.Read{Kind: lancesrc.ReadKeys, Column: "k", Keys: int8Vec(1, 2)}, false},
		{"text key looked up", lancesrc.Read{Kind: lancesrc.ReadKeys, Column: "v", Keys: textVec("b")}, true},
		{"text key not changed", lancesrc.Read{Kind: lancesrc.ReadKeys, Column: "v", Keys: textVec("c")}, false},
		{"key of another kind", lancesrc.Read{Kind: lancesrc.ReadKeys, Column: "v", Keys: int8Vec(9)}, true},
		{"range holding a changed key", lancesrc.Read{Kind: lancesrc.ReadRange, Column: "k", Lo: 6, Hi: 9}, true},
		{"range between changed keys", lancesrc.Read{Kind: lancesrc.ReadRange, Column: "k", Lo: 6, Hi: 8}, false},
		{"range over text", lancesrc.Read{Kind: lancesrc.ReadRange, Column: "v", Lo: 0, Hi: 1}, true},
		{"filters all hold for a row", lancesrc.Read{Kind: lancesrc.ReadScan, Filters: []lancesrc.ReadFilter{gt("k", 6), eq("v", "b")}}, true},
		{"filters hold for different rows", lancesrc.Read{Kind: lancesrc.ReadScan, Filters: []lancesrc.ReadFilter{gt("k", 6), eq("v", "a")}}, false},
		{"filter on a dropped column", lancesrc.Read{Kind: lancesrc.ReadScan, Filters: []lancesrc.ReadFilter{gt("gone", 0)}}, true},
		{"key column dropped", lancesrc.Read{Kind: lancesrc.ReadKeys, Column: "gone", Keys: int8Vec(1)}, true},
		{"addresses are judged by address", lancesrc.Read{Kind: lancesrc.ReadAddrs, Addrs: []uint64{1}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := readHits(c.r, td, rows); got != c.hit {
				t.Fatalf("readHits = %v, want %v", got, c.hit)
			}
		})
	}
}
