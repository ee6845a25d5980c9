package lance

import (
	"context"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/pggraph/pggraph/lance/deletion"
	"github.com/pggraph/pggraph/lance/format"
)

// deletionVector returns the set of deleted row offsets of a fragment
// (empty when it has no deletion file). Both .bin and .arrow files are
// read through lance/deletion.
func (d *Dataset) deletionVector(ctx context.Context, fr *format.Fragment) (*roaring.Bitmap, error) {
	if fr.DeletionFile == nil {
		return roaring.New(), nil
	}
	key, err := d.deletionFileKey(fr.ID, fr.DeletionFile)
	if err != nil {
		return nil, err
	}
	b, err := d.store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	bm, err := deletion.Decode(deletion.Kind(fr.DeletionFile.FileType), b)
	if err != nil {
		return nil, err
	}
	if got := bm.GetCardinality(); got != fr.DeletionFile.NumDeletedRows && fr.DeletionFile.NumDeletedRows != 0 {
		return nil, wrapf(ErrCorrupt, "deletion file %s holds %d rows, manifest says %d", key, got, fr.DeletionFile.NumDeletedRows)
	}
	return bm, nil
}

func encodeDeletionBitmap(bm *roaring.Bitmap) ([]byte, error) { return deletion.EncodeBitmap(bm) }

// DeletedOffsets returns the deleted row offsets of one of this
// version's fragments, read from its deletion file alone (no data or
// address scan): exec/lancesrc derives a key index's liveness filter
// from it, in time proportional to the deletions, not the fragment.
func (d *Dataset) DeletedOffsets(ctx context.Context, fr *format.Fragment) (*roaring.Bitmap, error) {
	return d.deletionVector(ctx, fr)
}
