package lancesrc

import (
	"context"
	"fmt"

	"github.com/pggraph/pggraph/exec"
)

var _ exec.KeyCountSource = (*Source)(nil)

// CountKeys implements exec.KeyCountSource from the key index alone
// (live addresses only, as LookupKeys finds them), reading no rows.
func (s *Source) CountKeys(ctx context.Context, column int, keys *exec.Vec) ([]int, error) {
	s.logKeys(ctx, column, keys, true)
	if column < 0 || column >= len(s.cols) {
		return nil, fmt.Errorf("lancesrc: CountKeys on column %d of a %d-column table", column, len(s.cols))
	}
	idx, err := s.keyIndex(ctx, column)
	if err != nil {
		return nil, err
	}
	out := make([]int, keys.N)
	ints := idx.base.ints && keys.T.Kind() == exec.KInt
	var kb []byte
	for i := 0; i < keys.N; i++ {
		if keys.IsNull(i) {
			continue
		}
		n := 0
		count := func(uint64) { n++ }
		if ints {
			idx.lookupInt(keys.I[i], count)
		} else {
			kb = exec.AppendKey(kb[:0], keys, i)
			idx.lookup(string(kb), count)
		}
		out[i] = n
	}
	return out, nil
}
