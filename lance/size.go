package lance

import (
	"context"
	"errors"

	"github.com/pggraph/pggraph/objstore"
)

// StorageSize is what one dataset version occupies in its store.
type StorageSize struct {
	// Data is the bytes of the data files the version's fragments
	// reference (shared with other versions that reference them too).
	Data int64
	// Deletions is the bytes of the fragments' deletion files.
	Deletions int64
	// Manifest is the bytes of the version's manifest.
	Manifest int64
}

// StorageSize adds up the files this version references: each data file
// by the size its manifest records (Stat when the writer recorded none),
// each deletion file by Stat. A file the store no longer has counts 0.
func (d *Dataset) StorageSize(ctx context.Context) (StorageSize, error) {
	out := StorageSize{Manifest: d.ManifestSize()}
	size := func(key string) (int64, error) {
		info, err := d.store.Stat(ctx, key)
		if errors.Is(err, objstore.ErrNotFound) {
			return 0, nil
		}
		return info.Size, err
	}
	for i := range d.Fragments() {
		fr := &d.Fragments()[i]
		for k := range fr.Files {
			df := &fr.Files[k]
			if df.FileSizeBytes > 0 {
				out.Data += int64(df.FileSizeBytes)
				continue
			}
			key, err := d.dataFileKey(df)
			if err != nil {
				return StorageSize{}, err
			}
			n, err := size(key)
			if err != nil {
				return StorageSize{}, err
			}
			out.Data += n
		}
		if fr.DeletionFile != nil {
			key, err := d.deletionFileKey(fr.ID, fr.DeletionFile)
			if err != nil {
				return StorageSize{}, err
			}
			n, err := size(key)
			if err != nil {
				return StorageSize{}, err
			}
			out.Deletions += n
		}
	}
	return out, nil
}
