package file

import (
	"context"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
)

// maxCoalescedRead bounds one read that serves several buffers: the
// pages decoded from it may keep the whole read alive until the last of
// them is released, so the bound is also what a scan may hold beyond its
// pages.
const maxCoalescedRead = 8 << 20

// readSpans fetches spans (already checked to lie inside the file) with
// as few reads as their layout allows: in file order, a span joins the
// read before it when the hole between them is at most maxReadGap and the
// read stays within maxCoalescedRead. Why: on object storage every read
// is a request of tens of milliseconds, and a writer lays out the pages
// of one flush (every column's page for the same rows) next to each
// other, so a scan's first batch — one page per projected column — is
// usually one read instead of one per column.
func (r *Reader) readSpans(ctx context.Context, spans []span) ([][]byte, error) {
	bufs := make([][]byte, len(spans))
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return spans[order[a]].pos < spans[order[b]].pos })
	for g := 0; g < len(order); {
		lo, hi := spans[order[g]].pos, spans[order[g]].pos+spans[order[g]].size
		e := g + 1
		for ; e < len(order); e++ {
			s := spans[order[e]]
			end := max(hi, s.pos+s.size)
			if s.pos > hi+maxReadGap || end-lo > maxCoalescedRead {
				break
			}
			hi = end
		}
		all, err := r.src.readAt(ctx, lo, hi-lo)
		if err != nil {
			return nil, err
		}
		for _, i := range order[g:e] {
			s := spans[i]
			bufs[i] = all[s.pos-lo : s.pos-lo+s.size : s.pos-lo+s.size]
		}
		g = e
	}
	return bufs, nil
}

// checkSpans verifies that every span lies inside the file.
func (r *Reader) checkSpans(spans []span) error {
	for _, s := range spans {
		if s.pos > r.size || s.size > r.size-s.pos {
			return corrupt("", "page buffer %d+%d beyond file end %d", s.pos, s.size, r.size)
		}
	}
	return nil
}

// pageBufferSpans are the buffers of a page that decoding reads (the
// first three: chunk table or rep index, data, dictionary).
func pageBufferSpans(pm pageMeta) []span { return pm.buffers[:min(len(pm.buffers), 3)] }

// pageRead is one page fetched by readPages, decoded by decode.
type pageRead struct {
	ci, pi int
	pm     pageMeta
	bufs   [][]byte
}

// readPages fetches the buffers of pages pis[k] of columns cis[k] with
// coalesced reads (readSpans).
func (r *Reader) readPages(ctx context.Context, cis, pis []int) ([]pageRead, error) {
	var spans []span
	out := make([]pageRead, len(cis))
	firsts := make([]int, len(cis)+1)
	for k, ci := range cis {
		pm := r.cols[ci].pages[pis[k]]
		if err := r.checkPage(ci, pm); err != nil {
			return nil, err
		}
		ps := pageBufferSpans(pm)
		if err := r.checkSpans(ps); err != nil {
			return nil, err
		}
		out[k] = pageRead{ci: ci, pi: pis[k], pm: pm}
		firsts[k] = len(spans)
		spans = append(spans, ps...)
	}
	firsts[len(cis)] = len(spans)
	bufs, err := r.readSpans(ctx, spans)
	if err != nil {
		return nil, err
	}
	for k := range out {
		out[k].bufs = bufs[firsts[k]:firsts[k+1]]
	}
	return out, nil
}

// decode decodes the page from its buffers and checks its length.
func (p *pageRead) decode(r *Reader) (arrow.Array, error) {
	a, err := r.decodeBuffers(p.ci, p.pm.layout, p.pm.length, p.bufs, nil)
	if err != nil {
		return nil, err
	}
	if uint64(a.Len()) != p.pm.length {
		a.Release()
		return nil, corrupt(r.schema.Field(p.ci).Name, "page %d decodes to %d rows, metadata says %d", p.pi, a.Len(), p.pm.length)
	}
	return a, nil
}
