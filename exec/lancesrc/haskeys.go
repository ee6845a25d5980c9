package lancesrc

import (
	"context"
	"fmt"

	"github.com/pggraph/pggraph/exec"
)

// HasKeys reports, for each value of keys, whether this version has a
// live row holding it in column (a NULL key: false). It answers from
// the key index alone, without reading the rows: existence probes (a
// foreign key's parent, COPY's checks) need no row values, and the
// by-address read LookupKeys does is most of such a probe's cost.
func (s *Source) HasKeys(ctx context.Context, column int, keys *exec.Vec) ([]bool, error) {
	s.logKeys(ctx, column, keys, true)
	if column < 0 || column >= len(s.cols) {
		return nil, fmt.Errorf("lancesrc: HasKeys on column %d of a %d-column table", column, len(s.cols))
	}
	idx, err := s.keyIndex(ctx, column)
	if err != nil {
		return nil, err
	}
	out := make([]bool, keys.N)
	ints := idx.base.ints && keys.T.Kind() == exec.KInt
	var kb []byte
	for i := 0; i < keys.N; i++ {
		if keys.IsNull(i) {
			continue
		}
		found := false
		mark := func(uint64) { found = true }
		if ints {
			idx.lookupInt(keys.I[i], mark)
		} else {
			kb = exec.AppendKey(kb[:0], keys, i)
			idx.lookup(string(kb), mark)
		}
		out[i] = found
	}
	return out, nil
}
