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

// TestCountKeys: a key-only read changed only when, over the versions
// since the snapshot, rows holding one of its keys were added or
// removed on balance; a row replaced by one with the same key (an
// UPDATE of other columns) leaves it as it was.
func TestCountKeys(t *testing.T) {
	td := &exec.TableDef{Name: "kv", Columns: []exec.ColumnDef{{Name: "k", Type: exec.TInt8}, {Name: "v", Type: exec.TText}}}
	read := lancesrc.Read{Kind: lancesrc.ReadKeys, Column: "k", Keys: int8Vec(1, 2), KeysOnly: true}
	type change struct{ ins, del []int64 }
	cases := []struct {
		name     string
		versions []change
		changed  bool
	}{
		{"other columns of a read key updated", []change{{ins: []int64{1}, del: []int64{1}}}, false},
		{"read key deleted", []change{{del: []int64{2}}}, true},
		{"read key inserted", []change{{ins: []int64{2}}}, true},
		{"deleted, then inserted again by a later version", []change{{del: []int64{1}}, {ins: []int64{1}}}, false},
		{"key changed from a read key to another", []change{{ins: []int64{7}, del: []int64{1}}}, true},
		{"keys nobody read", []change{{ins: []int64{5}, del: []int64{6}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			counts := map[string]int{}
			for _, v := range c.versions {
				for sign, ks := range map[int][]int64{1: v.ins, -1: v.del} {
					rows := []*exec.Vec{int8Vec(ks...), textVec(make([]string, len(ks))...)}
					if !countKeys(read, td, rows, sign, counts) {
						t.Fatal("countKeys could not judge an int8 key")
					}
				}
			}
			changed := false
			for _, n := range counts {
				changed = changed || n != 0
			}
			if changed != c.changed {
				t.Fatalf("changed = %v (counts %v), want %v", changed, counts, c.changed)
			}
		})
	}
	if countKeys(lancesrc.Read{Kind: lancesrc.ReadKeys, Column: "v", Keys: int8Vec(1), KeysOnly: true}, td, []*exec.Vec{int8Vec(1), textVec("x")}, 1, map[string]int{}) {
		t.Fatal("a key of another kind than its column was judged")
	}
}
