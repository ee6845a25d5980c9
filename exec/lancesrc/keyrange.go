package lancesrc

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/pggraph/pggraph/exec"
)

var _ exec.KeyRangeSource = (*Source)(nil)

// sortedKeys is an integer addrMap's distinct keys in ascending order.
// The maps are never written once their index is published, so the
// order is computed once, on the first range or ordered lookup, and
// shared by every index holding the same map.
type sortedKeys struct {
	once sync.Once
	keys []int64

	textOnce sync.Once
	texts    []string
}

// textKeySet is a set of text keys (encoded): an addrMap or
// addedLayers.
type textKeySet interface {
	valid() bool
	intKeyed() bool
	eachEncodedKey(func(string))
}

// textsOf is of for a text key column's keys: decoded, distinct, in byte
// order.
func (o *sortedKeys) textsOf(m textKeySet) []string {
	o.textOnce.Do(func() {
		if !m.valid() || m.intKeyed() {
			return
		}
		var keys []string
		m.eachEncodedKey(func(k string) {
			if v, ok := exec.TextKey(k); ok {
				keys = append(keys, v)
			}
		})
		slices.Sort(keys)
		o.texts = slices.Compact(keys) // layers may repeat a key
	})
	return o.texts
}

// eachEncodedKey calls fn with each distinct key of a text-keyed map.
func (m addrMap) eachEncodedKey(fn func(string)) {
	for k := range m.one {
		fn(k)
	}
	for k := range m.more {
		fn(k)
	}
}

// eachEncodedKey calls fn with each layer's keys (a key added in two
// layers comes twice).
func (a addedLayers) eachEncodedKey(fn func(string)) {
	for _, l := range a.layers {
		l.m.eachEncodedKey(fn)
	}
}

// intKeySet is a set of integer keys: an addrMap or addedLayers.
type intKeySet interface {
	intKeyed() bool
	eachKey(func(int64))
}

func (o *sortedKeys) of(m intKeySet) []int64 {
	o.once.Do(func() {
		if !m.intKeyed() {
			return
		}
		var keys []int64
		m.eachKey(func(v int64) { keys = append(keys, v) })
		slices.Sort(keys)
		o.keys = slices.Compact(keys) // a key may be in several layers
	})
	return o.keys
}

// KeysInRange implements exec.KeyRangeSource from the key index: the
// base's sorted keys and those of rows added since, merged within the
// bounds. Keys whose rows were all deleted since the base was built may
// be listed (their lookup finds nothing).
func (s *Source) KeysInRange(ctx context.Context, column int, lo, hi int64, desc bool, limit int) ([]int64, bool, error) {
	s.logRange(ctx, column, lo, hi)
	if column < 0 || column >= len(s.cols) {
		return nil, false, fmt.Errorf("lancesrc: KeysInRange on column %d of a %d-column table", column, len(s.cols))
	}
	if s.cols[column].Type.Kind() != exec.KInt {
		return nil, false, nil
	}
	idx, err := s.keyIndex(ctx, column)
	if err != nil {
		return nil, false, err
	}
	if !idx.base.ints {
		return nil, false, nil
	}
	a := within(idx.baseOrder.of(idx.base), lo, hi)
	var b []int64
	if idx.added.valid() {
		b = within(idx.addedOrder.of(idx.added), lo, hi)
	}
	return exec.MergeKeys(a, b, desc, limit), true, nil
}

// within is the part of ascending keys between lo and hi (inclusive).
func within(keys []int64, lo, hi int64) []int64 {
	i := sort.Search(len(keys), func(i int) bool { return keys[i] >= lo })
	j := sort.Search(len(keys), func(i int) bool { return keys[i] > hi })
	if i >= j {
		return nil
	}
	return keys[i:j]
}

// TextKeysInRange implements exec.KeyRangeSource for a text or varchar
// key column, as KeysInRange. The read set records a scan of the table:
// a text range has no place in the read log's integer ranges.
func (s *Source) TextKeysInRange(ctx context.Context, column int, lo, hi exec.TextBound, desc bool, limit int) ([]string, bool, error) {
	s.logRange(ctx, -1, 0, 0)
	if column < 0 || column >= len(s.cols) {
		return nil, false, fmt.Errorf("lancesrc: TextKeysInRange on column %d of a %d-column table", column, len(s.cols))
	}
	if t := s.cols[column].Type.OID; t != exec.OIDText && t != exec.OIDVarchar {
		return nil, false, nil
	}
	idx, err := s.keyIndex(ctx, column)
	if err != nil {
		return nil, false, err
	}
	if idx.base.ints {
		return nil, false, nil
	}
	a := exec.TextKeysWithin(idx.baseOrder.textsOf(idx.base), lo, hi)
	var b []string
	if idx.added.valid() {
		b = exec.TextKeysWithin(idx.addedOrder.textsOf(idx.added), lo, hi)
	}
	return exec.MergeTextKeys(a, b, desc, limit), true, nil
}
