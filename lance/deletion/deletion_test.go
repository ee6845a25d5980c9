package deletion

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/objstore"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata from the oracle")

func TestKey(t *testing.T) {
	if got := Key(3, 7, 42, KindBitmap); got != "_deletions/3-7-42.bin" {
		t.Fatal(got)
	}
	if got := Key(0, 3, 10898602844547460612, KindArrow); got != "_deletions/0-3-10898602844547460612.arrow" {
		t.Fatal(got)
	}
	if k, ok := KindOfKey("x.arrow"); !ok || k != KindArrow {
		t.Fatal("arrow kind")
	}
	if _, ok := KindOfKey("x.txt"); ok {
		t.Fatal("txt accepted")
	}
	if a, b := NewID(), NewID(); a == b {
		t.Fatal("ids repeat")
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	for _, rows := range [][]uint32{{0}, {1, 2, 15, 28, 29}, rangeOf(100, 70000), {0, 4294967295}} {
		bm := roaring.BitmapOf(rows...)
		key, _, n, err := Write(ctx, store, 5, 9, bm)
		if err != nil {
			t.Fatal(err)
		}
		if n != uint64(len(rows)) {
			t.Fatalf("count %d", n)
		}
		got, err := Read(ctx, store, key)
		if err != nil || !got.Equals(roaring.BitmapOf(rows...)) {
			t.Fatalf("bin round trip: %v", err)
		}
		ab, err := EncodeArrow(roaring.BitmapOf(rows...))
		if err != nil {
			t.Fatal(err)
		}
		got, err = Decode(KindArrow, ab)
		if err != nil || !got.Equals(roaring.BitmapOf(rows...)) {
			t.Fatalf("arrow round trip: %v", err)
		}
	}
}

func rangeOf(a, b uint32) []uint32 {
	var out []uint32
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// goldenCases are deletions the official Lance made (see TestOracleDeletions),
// kept in testdata so they are checked without node too.
var goldenCases = []struct {
	file string
	rows int
	pred string
	want []uint32
}{
	{"lance-small.arrow", 30, "id IN (1, 2, 15) OR id > 27", []uint32{1, 2, 15, 28, 29}},
	{"lance-large.bin", 6000, "id >= 100 AND id < 5600", rangeOf(100, 5600)},
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		kind, _ := KindOfKey(c.file)
		got, err := Decode(kind, b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if !got.Equals(roaring.BitmapOf(c.want...)) {
			t.Fatalf("%s: got %d rows %v...", c.file, got.GetCardinality(), got.ToArray()[:5])
		}
	}
}

// TestOracleDeletions lets Lance delete rows and decodes its deletion files.
func TestOracleDeletions(t *testing.T) {
	for _, c := range goldenCases {
		root := t.TempDir()
		var rows []oracle.Row
		for i := 0; i < c.rows; i++ {
			rows = append(rows, oracle.Row{"id": fmt.Sprint(i)})
		}
		oracle.Create(t, root, "t", []oracle.Column{{Name: "id", Type: "int64"}}, rows)
		oracle.Delete(t, root, "t", c.pred)
		files, _ := filepath.Glob(filepath.Join(root, "t.lance", "_deletions", "*"))
		if len(files) != 1 || filepath.Ext(files[0]) != filepath.Ext(c.file) {
			t.Fatalf("Lance wrote %v, expected one %s file", files, filepath.Ext(c.file))
		}
		store, err := objstore.NewLocal(filepath.Join(root, "t.lance"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Read(context.Background(), store, "_deletions/"+filepath.Base(files[0]))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equals(roaring.BitmapOf(c.want...)) {
			t.Fatalf("%s: got %d rows", c.pred, got.GetCardinality())
		}
		if *updateGolden {
			b, _ := os.ReadFile(files[0])
			if err := os.WriteFile(filepath.Join("testdata", c.file), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range goldenCases {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	small, _ := EncodeBitmap(roaring.BitmapOf(1, 2, 3, 100000))
	f.Add(small)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range []Kind{KindArrow, KindBitmap} {
			if _, err := Decode(k, b); err != nil && !IsCorrupt(err) {
				t.Fatalf("untyped error: %v", err)
			}
		}
	})
}
