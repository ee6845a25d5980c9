package lance

import (
	"context"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// StorageSize counts exactly the files a version references: its data
// files, deletion files and manifest, and not the files of other
// versions or the store's other objects.
func TestStorageSize(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds, err := Create(ctx, store, "d.lance", rowsReader(t, 0, 100, 30), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v1 := ds
	st, err := ds.StageAppend(ctx, rowsReader(t, 100, 200, 25), StageOptions{MaxRowsPerFile: 40})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if st, err = ds.StageDelete(ctx, []uint64{RowAddress(0, 3), RowAddress(1, 2)}, StageOptions{}); err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	// what the store holds under the version's data and deletion dirs
	// (the dataset has no other versions' data files: nothing compacted)
	sum := func(dir string) int64 {
		objs, err := store.List(ctx, "d.lance/"+dir+"/")
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, o := range objs {
			n += o.Size
		}
		return n
	}
	manifest, err := store.Stat(ctx, ds.manifestKey(ds.Version()))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		ds   *Dataset
		want StorageSize
	}{
		{"latest", ds, StorageSize{Data: sum("data"), Deletions: sum("_deletions"), Manifest: manifest.Size}},
		{"first version", v1, StorageSize{Data: firstDataBytes(t, store, v1), Manifest: v1.ManifestSize()}},
	}
	for _, c := range cases {
		got, err := c.ds.StorageSize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want || got.Data == 0 || got.Manifest == 0 {
			t.Errorf("%s: StorageSize %+v, want %+v", c.name, got, c.want)
		}
	}
	if got, _ := ds.StorageSize(ctx); got.Deletions == 0 {
		t.Errorf("deletion files not counted: %+v", got)
	}
}

// firstDataBytes is the size of the one data file version 1 has.
func firstDataBytes(t *testing.T, store objstore.Store, ds *Dataset) int64 {
	t.Helper()
	fr := ds.Fragments()
	if len(fr) != 1 || len(fr[0].Files) != 1 {
		t.Fatalf("version 1 has %d fragments", len(fr))
	}
	info, err := store.Stat(context.Background(), "d.lance/data/"+strings.TrimPrefix(fr[0].Files[0].Path, "data/"))
	if err != nil {
		t.Fatal(err)
	}
	return info.Size
}
