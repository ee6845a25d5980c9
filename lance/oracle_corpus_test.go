package lance

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// The corpus under testdata/oracle/g.lance was written by the official
// Lance 8.0.0 (npm @lancedb/lancedb 0.31.0): create 10 rows, append 10,
// append 10, delete "id IN (1, 2, 15) OR id > 27", tag after-appends→3,
// mergeInsert (Update), branch feature/x from v5 + append 5 on it,
// optimize (ReserveFragments + Rewrite). The branch manifests record the
// absolute path the dataset had then.
const corpusLocation = "/tmp/lx/db/g.lance"

// TestCorpusCodecsByteExact re-encodes every manifest and transaction
// Lance wrote and expects the identical bytes.
func TestCorpusCodecsByteExact(t *testing.T) {
	var n int
	err := filepath.Walk("testdata/oracle/g.lance", func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(p, ".manifest"):
			n++
			mf, err := format.DecodeManifestFile(b)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			pos := binary.LittleEndian.Uint64(b[len(b)-16:])
			orig := b[pos+4 : len(b)-16]
			if got := mf.Manifest.Encode(); !bytes.Equal(got, orig) {
				t.Errorf("%s: manifest re-encoding differs", p)
			}
			if mf.Transaction == nil {
				t.Errorf("%s: no inline transaction", p)
			}
		case strings.HasSuffix(p, ".txn"):
			n++
			txn, err := format.DecodeTransaction(b)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if got := txn.Encode(); !bytes.Equal(got, b) {
				t.Errorf("%s: transaction re-encoding differs", p)
			}
			if !strings.HasSuffix(p, txn.TxnFileName()) {
				t.Errorf("%s: name does not match %s", p, txn.TxnFileName())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 18 {
		t.Fatalf("walked %d manifests+transactions, want 18", n)
	}
}

func TestCorpusOpen(t *testing.T) {
	ctx := context.Background()
	store, err := objstore.NewLocal("testdata/oracle")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		opts     Options
		version  uint64
		rows     uint64
		frags    int
		lastOp   string
		basePath bool
	}{
		{"latest", Options{}, 7, 26, 1, "Rewrite", false},
		{"v1", Options{Version: 1}, 1, 10, 1, "Overwrite", false},
		{"after delete", Options{Version: 4}, 4, 25, 3, "Delete", false},
		{"merge insert", Options{Version: 5}, 5, 26, 4, "Update", false},
		{"tag", Options{Tag: "after-appends"}, 3, 30, 3, "Append", false},
		{"branch latest", Options{Branch: "feature/x"}, 6, 31, 5, "Append", true},
		{"branch fork", Options{Branch: "feature/x", Version: 5}, 5, 26, 4, "Clone", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Location = corpusLocation
			ds, err := Open(ctx, store, "g.lance", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if ds.Version() != tc.version || ds.CountRows() != tc.rows || len(ds.Fragments()) != tc.frags {
				t.Fatalf("v%d rows %d frags %d", ds.Version(), ds.CountRows(), len(ds.Fragments()))
			}
			txn, err := ds.Transaction(ctx, ds.Version())
			if err != nil || txn.Op.Kind().String() != tc.lastOp {
				t.Fatalf("txn %v %v", txn, err)
			}
			if got := len(ds.Manifest().BasePaths) > 0; got != tc.basePath {
				t.Fatalf("base paths %v", ds.Manifest().BasePaths)
			}
			if sch := ds.Schema(); sch.NumFields() != 2 || sch.Field(0).Name != "id" || sch.Field(1).Name != "name" {
				t.Fatalf("schema %v", sch)
			}
		})
	}
	ds, _ := Open(ctx, store, "g.lance", Options{})
	vs, err := ds.ListVersions(ctx)
	if err != nil || len(vs) != 7 {
		t.Fatalf("versions %v %v", vs, err)
	}
	tags, err := ds.ListTags(ctx)
	if err != nil || len(tags) != 1 || tags[0].Name != "after-appends" || tags[0].Version != 3 || tags[0].ManifestSize == 0 {
		t.Fatalf("tags %v %v", tags, err)
	}
	brs, err := ds.ListBranches(ctx)
	if err != nil || len(brs) != 1 || brs[0].Name != "feature/x" || brs[0].ParentVersion != 5 {
		t.Fatalf("branches %v %v", brs, err)
	}
	if _, err := Open(ctx, store, "g.lance", Options{Branch: "nope"}); !IsNotFound(err) {
		t.Fatalf("missing branch: %v", err)
	}
}

// corpusWant returns the expected (id → name) of the corpus at a version.
func corpusWant(version uint64, branch bool) map[int64]*string {
	name := func(i int64) *string {
		if i%4 == 0 {
			return nil
		}
		s := fmt.Sprintf("n%d", i)
		return &s
	}
	str := func(s string) *string { return &s }
	w := map[int64]*string{}
	upTo := map[uint64]int64{1: 10, 2: 20, 3: 30}[version]
	if version >= 4 {
		upTo = 28
	}
	for i := int64(0); i < upTo; i++ {
		w[i] = name(i)
	}
	if version >= 4 {
		delete(w, 1)
		delete(w, 2)
		delete(w, 15)
	}
	if version >= 5 {
		w[3] = str("upd")
		w[100] = str("new")
	}
	if branch && version >= 6 {
		for i := int64(200); i < 205; i++ {
			w[i] = name(i)
		}
	}
	return w
}

// TestCorpusScan reads every version of the Lance-written corpus (arrow
// deletion files, merge-insert, compaction, a branch with inherited
// fragments resolved through base_paths) value by value.
func TestCorpusScan(t *testing.T) {
	ctx := context.Background()
	store, err := objstore.NewLocal("testdata/oracle")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		branch  string
		version uint64
	}{
		{"", 1}, {"", 2}, {"", 3}, {"", 4}, {"", 5}, {"", 6}, {"", 7},
		{"feature/x", 5}, {"feature/x", 6},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s@%d", tc.branch, tc.version), func(t *testing.T) {
			ds, err := Open(ctx, store, "g.lance", Options{Branch: tc.branch, Version: tc.version, Location: corpusLocation})
			if err != nil {
				t.Fatal(err)
			}
			want := corpusWant(tc.version, tc.branch != "")
			sc, err := ds.Scan(ctx, ScanOptions{WithRowAddress: true, BatchRows: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			seen := map[int64]bool{}
			for {
				rec, err := sc.Next(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				ids := rec.Column(0).(*array.Int64)
				names := rec.Column(1).(*array.String)
				for i := 0; i < int(rec.NumRows()); i++ {
					id := ids.Value(i)
					exp, ok := want[id]
					if !ok || seen[id] {
						t.Fatalf("unexpected or duplicate id %d", id)
					}
					seen[id] = true
					if (exp == nil) != names.IsNull(i) || (exp != nil && *exp != names.Value(i)) {
						t.Fatalf("id %d: name %q, want %v", id, names.Value(i), exp)
					}
				}
				rec.Release()
			}
			if len(seen) != len(want) || uint64(len(want)) != ds.CountRows() {
				t.Fatalf("saw %d rows, want %d (count %d)", len(seen), len(want), ds.CountRows())
			}
		})
	}
}
