package lance

import (
	"context"
	"errors"
	"testing"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

func TestLocateCorpusFiles(t *testing.T) {
	ctx := context.Background()
	store, err := objstore.NewLocal("testdata/oracle")
	if err != nil {
		t.Fatal(err)
	}
	for _, br := range []string{"", "feature/x"} {
		ds, err := Open(ctx, store, "g.lance", Options{Branch: br, Location: corpusLocation})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []uint64{ds.Version(), ds.Version() - 1} {
			d, err := ds.Checkout(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			for i := range d.Fragments() {
				fr := &d.Fragments()[i]
				for j := range fr.Files {
					key, err := d.dataFileKey(&fr.Files[j])
					if err != nil {
						t.Fatal(err)
					}
					if _, err := store.Stat(ctx, key); err != nil {
						t.Errorf("branch %q v%d fragment %d: %v", br, v, fr.ID, err)
					}
				}
				if fr.DeletionFile != nil {
					key, err := d.deletionFileKey(fr.ID, fr.DeletionFile)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := store.Stat(ctx, key); err != nil {
						t.Errorf("deletion file: %v", err)
					}
				}
			}
		}
	}
}

func TestBasePrefix(t *testing.T) {
	id := func(v uint32) *uint32 { return &v }
	d := &Dataset{root: "r/x.lance", branch: "b/c", location: "/abs/data/r/x.lance", mf: &format.ManifestFile{Manifest: &format.Manifest{
		BasePaths: []format.BasePath{
			{ID: 0, IsDatasetRoot: true, Path: "/abs/data/r/x.lance"},
			{ID: 1, IsDatasetRoot: true, Path: "file:///abs/data/r/x.lance/tree/a"},
			{ID: 2, Path: "/elsewhere/x"},
			{ID: 3, IsDatasetRoot: false, Path: "/abs/data/r/x.lance/extra"},
		},
	}}}
	cases := []struct {
		id     *uint32
		prefix string
		isRoot bool
		err    error
	}{
		{nil, "r/x.lance/tree/b/c", true, nil},
		{id(0), "r/x.lance", true, nil},
		{id(1), "r/x.lance/tree/a", true, nil},
		{id(2), "", false, ErrUnresolvableBase},
		{id(3), "r/x.lance/extra", false, nil},
		{id(9), "", false, ErrCorrupt},
	}
	for _, c := range cases {
		p, root, err := d.basePrefix(c.id)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%v: want %v, got %v", c.id, c.err, err)
			}
			continue
		}
		if err != nil || p != c.prefix || root != c.isRoot {
			t.Errorf("%v: got %q %v %v", c.id, p, root, err)
		}
	}
	df := &format.DataFile{Path: "f.lance", BaseID: id(3)}
	if k, _ := d.dataFileKey(df); k != "r/x.lance/extra/f.lance" {
		t.Fatal(k)
	}
}
