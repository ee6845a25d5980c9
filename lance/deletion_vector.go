package lance

import (
	"bytes"
	"context"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/pggraph/pggraph/lance/format"
)

// deletionVector returns the set of deleted row offsets of a fragment
// (empty when it has no deletion file).
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
	return decodeDeletionFile(fr.DeletionFile.FileType, b)
}

func decodeDeletionFile(t format.DeletionFileType, b []byte) (*roaring.Bitmap, error) {
	if t != format.DeletionBitmap {
		return nil, &format.UnsupportedError{Feature: "arrow deletion files (pending lance/deletion)"}
	}
	bm := roaring.New()
	if _, err := bm.ReadFrom(bytes.NewReader(b)); err != nil {
		return nil, wrapf(ErrCorrupt, "deletion bitmap: %v", err)
	}
	return bm, nil
}

func encodeDeletionBitmap(bm *roaring.Bitmap) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := bm.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
