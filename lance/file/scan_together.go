package file

import (
	"context"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// A scan reads the pages of its projected columns together: the pages a
// batch must decode now are fetched with coalesced reads (loadTogether),
// and so are the pages read ahead for the next batches
// (prefetchTogether). Each page is still decoded by a goroutine of its
// own, so decoding keeps both cores busy.

// loadTogether reads and decodes, with coalesced reads, the pages that
// the batch of n rows at s.row needs and no cursor holds or reads ahead
// — when there are at least two (a single page is take's work).
func (s *Scanner) loadTogether(ctx context.Context, n uint64) error {
	var idx, cis, pis []int
	for i, ci := range s.cols {
		c := &s.cur[i]
		starts, pages := s.r.pageStarts[ci], s.r.cols[ci].pages
		pi := sort.Search(len(starts), func(k int) bool { return starts[k] > s.row }) - 1
		if pi < 0 || pi >= len(pages) {
			continue // take reports it
		}
		pm := pages[pi]
		off := s.row - starts[pi]
		if off >= pm.length {
			continue
		}
		k := int(min(pm.length-off, n))
		if l := pm.layout; l.kind == layoutAllNull && len(l.layers) <= 1 {
			continue
		}
		if c.holds(pi, off, k) || (c.next != nil && c.next.page == pi) || s.sparse(ci, pi, s.row) {
			continue
		}
		idx, cis, pis = append(idx, i), append(cis, ci), append(pis, pi)
	}
	if len(idx) < 2 {
		return nil
	}
	reads, err := s.r.readPages(ctx, cis, pis)
	if err != nil {
		return err
	}
	arrs, err := decodeAll(s.r, reads)
	if err != nil {
		return err
	}
	for k, i := range idx {
		c := &s.cur[i]
		if c.arr != nil {
			c.arr.Release()
		}
		if c.next != nil {
			c.next.discard()
			c.next = nil
		}
		c.arr, c.page, c.first, c.pending = arrs[k], pis[k], 0, -1
		if np, ok := s.nextPage(cis[k], pis[k]); ok {
			c.pending = np
		}
	}
	return nil
}

// decodeAll decodes the pages in parallel; on an error it releases
// what it decoded.
func decodeAll(r *Reader, reads []pageRead) ([]arrow.Array, error) {
	arrs := make([]arrow.Array, len(reads))
	errs := make([]error, len(reads))
	var wg sync.WaitGroup
	for k := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arrs[k], errs[k] = reads[k].decode(r)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			for _, a := range arrs {
				if a != nil {
					a.Release()
				}
			}
			return nil, err
		}
	}
	return arrs, nil
}

// prefetchTogether starts reading ahead the pending next pages of every
// cursor: one goroutine fetches them with coalesced reads, then each page
// decodes in a goroutine of its own.
func (s *Scanner) prefetchTogether(ctx context.Context) {
	var cis, pis []int
	var ps []*prefetch
	for i, ci := range s.cols {
		c := &s.cur[i]
		if c.pending < 0 {
			continue
		}
		if c.next != nil {
			c.next.discard()
		}
		p := &prefetch{page: c.pending, done: make(chan struct{})}
		c.next, c.pending = p, -1
		cis, pis, ps = append(cis, ci), append(pis, p.page), append(ps, p)
	}
	if len(ps) == 0 {
		return
	}
	go func() {
		reads, err := s.r.readPages(ctx, cis, pis)
		if err != nil {
			for _, p := range ps {
				p.err = err
				close(p.done)
			}
			return
		}
		for k, p := range ps {
			go func() {
				defer close(p.done)
				p.arr, p.err = reads[k].decode(s.r)
			}()
		}
	}()
}
