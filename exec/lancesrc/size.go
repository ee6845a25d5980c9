package lancesrc

import (
	"context"
	"sync"

	"github.com/pggraph/pggraph/exec"
)

var _ exec.StorageSizer = (*Source)(nil)

// sizeMemo remembers a version's storage size: a version is immutable,
// so it is read once (a Stat per data file whose size the manifest does
// not record, one per deletion file).
type sizeMemo struct {
	mu   sync.Mutex
	done bool
	size exec.StorageSize
}

// StorageSize implements exec.StorageSizer: the data files of the
// version's fragments, then its deletion files and manifest.
func (s *Source) StorageSize(ctx context.Context) (exec.StorageSize, error) {
	s.size.mu.Lock()
	defer s.size.mu.Unlock()
	if s.size.done {
		return s.size.size, nil
	}
	sz, err := s.ds.StorageSize(ctx)
	if err != nil {
		return exec.StorageSize{}, err
	}
	s.size.size = exec.StorageSize{Data: sz.Data, Other: sz.Deletions + sz.Manifest}
	s.size.done = true
	return s.size.size, nil
}
