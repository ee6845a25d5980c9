package lance

import (
	"errors"
	"strings"

	"github.com/pggraph/pggraph/lance/format"
)

// ErrUnresolvableBase: a file lives in a base path (branch parent,
// shallow clone source) that is not inside this dataset's location.
var ErrUnresolvableBase = errors.New("lance: base path outside the dataset location")

// RowAddress is (fragment_id << 32) | row offset within the fragment.
func RowAddress(fragmentID uint64, offset uint32) uint64 { return fragmentID<<32 | uint64(offset) }

// SplitRowAddress returns the fragment id and row offset of an address.
func SplitRowAddress(addr uint64) (fragmentID uint64, offset uint32) {
	return addr >> 32, uint32(addr)
}

// basePrefix returns the key prefix files with the given base id live
// under, and whether that prefix is a dataset root (with data/ and
// _deletions/ below it). nil = this branch's own directory.
func (d *Dataset) basePrefix(id *uint32) (string, bool, error) {
	if id == nil {
		return d.base(), true, nil
	}
	var bp *format.BasePath
	if m := d.Manifest(); m != nil {
		for i := range m.BasePaths {
			if m.BasePaths[i].ID == *id {
				bp = &m.BasePaths[i]
			}
		}
	}
	if bp == nil {
		return "", false, wrapf(ErrCorrupt, "file references base id %d, which the manifest does not define", *id)
	}
	p := strings.TrimPrefix(bp.Path, "file://")
	p = strings.TrimRight(p, "/")
	loc := d.location
	switch {
	case loc != "" && p == loc:
		return d.root, bp.IsDatasetRoot, nil
	case loc != "" && strings.HasPrefix(p, loc+"/"):
		return join(d.root, strings.TrimPrefix(p, loc+"/")), bp.IsDatasetRoot, nil
	}
	return "", false, &baseError{path: bp.Path, location: loc}
}

type baseError struct{ path, location string }

func (e *baseError) Error() string {
	return "lance: base path " + e.path + " is outside the dataset location " + e.location + " (set Options.Location)"
}

func (e *baseError) Unwrap() error { return ErrUnresolvableBase }

// dataFileKey is the object key of a fragment's data file.
func (d *Dataset) dataFileKey(df *format.DataFile) (string, error) {
	prefix, isRoot, err := d.basePrefix(df.BaseID)
	if err != nil {
		return "", err
	}
	if isRoot {
		return join(prefix, dataDir, df.Path), nil
	}
	return join(prefix, df.Path), nil
}

// deletionFileKey is the object key of a fragment's deletion file.
func (d *Dataset) deletionFileKey(fragmentID uint64, del *format.DeletionFile) (string, error) {
	prefix, _, err := d.basePrefix(del.BaseID)
	if err != nil {
		return "", err
	}
	return join(prefix, deletionsDir, del.FileName(fragmentID)), nil
}
