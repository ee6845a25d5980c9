package lancesrc

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// TestHasKeysAgreesWithLookup: HasKeys answers exactly the keys whose
// live rows LookupKeys reads, and CountKeys counts them — deleted rows, updated-away keys, NULL
// probes and keys never written are false — for integer and text keys.
func TestHasKeysAgreesWithLookup(t *testing.T) {
	ctx := context.Background()
	ds := committer(t)(lance.New(objstore.NewMem(), "h.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 300)), lance.StageOptions{MaxRowsPerFile: 100}))
	ds = committer(t)(ds.StageAppend(ctx, idRows(t, []int64{1000, 1001, -1}), lance.StageOptions{}))
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8}, {Name: "v", Type: exec.TText}}
	// build this version's index first, so the later version's is derived
	// (deleted rows are then masked by liveness, not absent)
	if _, err := New(ds, cols, []int{0, 1}).HasKeys(ctx, 0, intVec(5)); err != nil {
		t.Fatal(err)
	}
	live := liveKeys(t, ds)
	// delete the rows of keys 5 and 1000; update key 7's row to key 2000
	var del []uint64
	for _, k := range []int64{5, 1000} {
		del = append(del, live[string(exec.AppendKey(nil, intVec(k), 0))]...)
	}
	ds = committer(t)(ds.StageDelete(ctx, del, lance.StageOptions{}))
	ds = committer(t)(ds.StageUpdate(ctx, live[string(exec.AppendKey(nil, intVec(7), 0))], idRows(t, []int64{2000}), lance.StageOptions{}))

	src := New(ds, cols, []int{0, 1})
	probe := exec.NewVec(exec.TInt8, 9)
	copy(probe.I, []int64{0, 5, 7, 299, 300, 1000, 1001, 2000})
	probe.SetNull(8)
	want := []bool{true, false, false, true, false, false, true, true, false}
	got, err := src.HasKeys(ctx, 0, probe)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("HasKeys(int) = %v, want %v", got, want)
		}
	}
	// the same answers as LookupKeys' rows, key by key
	for i := 0; i < probe.N; i++ {
		one := exec.NewVec(exec.TInt8, 1)
		if probe.IsNull(i) {
			one.SetNull(0)
		} else {
			one.I[0] = probe.I[i]
		}
		rows := 0
		if err := src.LookupKeys(ctx, 0, one, exec.ScanRequest{Columns: []int{0}}, func(rec arrow.RecordBatch, _ []uint64) error {
			rows += int(rec.NumRows())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if (rows > 0) != got[i] {
			t.Fatalf("key %d: LookupKeys found %d rows, HasKeys says %v", probe.I[i], rows, got[i])
		}
		// CountKeys (key-only lookups) counts exactly those rows
		n, err := src.CountKeys(ctx, 0, one)
		if err != nil {
			t.Fatal(err)
		}
		if n[0] != rows {
			t.Fatalf("key %d: LookupKeys found %d rows, CountKeys %d", probe.I[i], rows, n[0])
		}
	}
	// text keys use the encoded form
	texts := exec.NewVec(exec.TText, 4)
	texts.S[0], texts.S[1], texts.S[2], texts.S[3] = "v1", "v5", "v2000", "nope"
	gotText, err := src.HasKeys(ctx, 1, texts)
	if err != nil {
		t.Fatal(err)
	}
	if wantText := []bool{true, false, true, false}; !equalBools(gotText, wantText) {
		t.Fatalf("HasKeys(text) = %v, want %v", gotText, wantText)
	}
	if _, err := src.HasKeys(ctx, 5, texts); err == nil {
		t.Fatal("HasKeys on a column out of range: no error")
	}
}

func intVec(v int64) *exec.Vec {
	x := exec.NewVec(exec.TInt8, 1)
	x.I[0] = v
	return x
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
