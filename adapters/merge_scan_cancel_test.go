package adapters

import (
	"context"
	"errors"
	"testing"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// A merge's row scans (rowsAt, chained by concatSources) read with the
// context of the write that reads them: cancelling it stops the scan at
// the next batch with the context's error, before or during the read.
func TestMergeScanCancelled(t *testing.T) {
	bg := context.Background()
	src, err := rowsOf(1, 2, 3)(bg)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := lance.Create(bg, objstore.NewMem(), "t.lance", src, lance.Options{})
	src.Release()
	if err != nil {
		t.Fatal(err)
	}
	addrs := []uint64{lance.RowAddress(0, 0), lance.RowAddress(0, 2)}
	scan := concatSources(testSchema, rowsAt(ds, addrs), rowsAt(ds, addrs))

	count := func(ctx context.Context, cancelAfter int) (int, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		r, err := scan(ctx)
		if err != nil {
			return 0, err
		}
		defer r.Release()
		n, batches := 0, 0
		for {
			if batches == cancelAfter {
				cancel()
			}
			if !r.Next() {
				break
			}
			batches++
			n += int(r.RecordBatch().NumRows())
		}
		return n, r.Err()
	}
	cases := []struct {
		name        string
		cancelAfter int // batches read before cancelling; -1: never
		rows        int
		err         error
	}{
		{"not cancelled", -1, 4, nil},
		{"cancelled before the first batch", 0, 0, context.Canceled},
		{"cancelled between the scans", 1, 2, context.Canceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := count(bg, c.cancelAfter)
			if n != c.rows || !errors.Is(err, c.err) || (c.err == nil && err != nil) {
				t.Fatalf("read %d rows, error %v; want %d rows, error %v", n, err, c.rows, c.err)
			}
		})
	}
}
