package planner

import (
	"context"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
)

// Set-based key work for DML: the keys a statement removes, probes or
// adds are sets (a typed int64 hash set for single integer keys, encoded
// bytes otherwise), matched against a table with one batched probe per
// constraint, and rows are fetched by address (only the columns needed)
// instead of scanning the table. Memory is proportional to the rows a
// statement changes, not to the table.

// keySet is a set of key tuples, remembering the first row that added
// each. A single integer column (int2/int4/int8, also dates and times:
// their exec kind is int64) is kept as int64 values; other shapes as
// exec's canonical key encoding.
type keySet struct {
	ints map[int64]int32
	strs map[string]int32
	kb   []byte
}

// newKeySet makes a set for key columns of the given types (the types of
// the vectors that will be added and probed).
func newKeySet(types []exec.Type, n int) *keySet {
	if len(types) == 1 && types[0].Kind() == exec.KInt {
		return &keySet{ints: make(map[int64]int32, n)}
	}
	return &keySet{strs: make(map[string]int32, n)}
}

func vecTypes(vecs []*exec.Vec) []exec.Type {
	out := make([]exec.Type, len(vecs))
	for i, v := range vecs {
		out[i] = v.T
	}
	return out
}

// add records row i of vecs; it reports false when a part is NULL (NULL
// keys never match) or the key is already present. Vectors of another
// kind than the set's never match an integer set.
func (ks *keySet) add(vecs []*exec.Vec, i int) bool {
	if ks.ints != nil {
		if vecs[0].T.Kind() != exec.KInt || vecs[0].IsNull(i) {
			return false
		}
		k := vecs[0].I[i]
		if _, ok := ks.ints[k]; ok {
			return false
		}
		ks.ints[k] = int32(i)
		return true
	}
	k, ok := keyOf(ks.kb[:0], vecs, i)
	ks.kb = k
	if !ok {
		return false
	}
	if _, dup := ks.strs[string(k)]; dup {
		return false
	}
	ks.strs[string(k)] = int32(i)
	return true
}

// find returns the row that added row i's key of vecs.
func (ks *keySet) find(vecs []*exec.Vec, i int) (int32, bool) {
	if ks.ints != nil {
		if vecs[0].T.Kind() != exec.KInt || vecs[0].IsNull(i) {
			return 0, false
		}
		r, ok := ks.ints[vecs[0].I[i]]
		return r, ok
	}
	k, ok := keyOf(ks.kb[:0], vecs, i)
	ks.kb = k
	if !ok {
		return 0, false
	}
	r, found := ks.strs[string(k)]
	return r, found
}

func (ks *keySet) len() int {
	if ks.ints != nil {
		return len(ks.ints)
	}
	return len(ks.strs)
}

// keySetOf builds the set of the keys of vecs' rows.
func keySetOf(vecs []*exec.Vec) *keySet {
	n := vecs[0].N
	ks := newKeySet(vecTypes(vecs), n)
	for i := 0; i < n; i++ {
		ks.add(vecs, i)
	}
	return ks
}

// rows is a set of rows of one table: their addresses and some of their
// columns (cols[c] nil for columns not read), aligned.
type rows struct {
	addrs []uint64
	cols  []*exec.Vec
}

func (r *rows) n() int { return len(r.addrs) }

// addrSet is a set of row addresses.
type addrSet map[uint64]struct{}

func addrSetOf(addrs []uint64) addrSet {
	s := make(addrSet, len(addrs))
	for _, a := range addrs {
		s[a] = struct{}{}
	}
	return s
}

// addrScanner is a snapshot source that reads rows by address without a
// scan (exec/lancesrc.Source).
type addrScanner interface {
	ScanAddrs(ctx context.Context, addrs []uint64, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error
}

// fetchRows reads columns cols of ti's rows at addrs as the view sees
// them (pending inserts by their top-bit addresses, snapshot rows by
// address through the source when it can, else one filtered scan). The
// result is full width (unread columns nil), in no particular order;
// addresses not found are left out.
func (w *writer) fetchRows(ti *tableInfo, addrs []uint64, cols []int) (*rows, error) {
	out := &rows{cols: make([]*exec.Vec, len(ti.def.Columns))}
	var parts [][]*exec.Vec
	var base, pend []uint64
	for _, a := range addrs {
		if a&pendingAddrBit != 0 {
			pend = append(pend, a)
		} else {
			base = append(base, a)
		}
	}
	convert := func(rec arrow.RecordBatch, sel []int32) error {
		vecs := make([]*exec.Vec, len(cols))
		for k, c := range cols {
			v, err := exec.VecFromArrow(rec.Column(k), ti.def.Columns[c].Type)
			if err != nil {
				return err
			}
			if sel != nil {
				v = v.Gather(sel)
			}
			detachStrings(v, v.N)
			vecs[k] = v
		}
		parts = append(parts, vecs)
		return nil
	}
	if len(base) > 0 {
		req := exec.ScanRequest{Columns: cols, NeedAddrs: true}
		if as, ok := ti.def.Source.(addrScanner); ok {
			err := as.ScanAddrs(w.ctx, base, req, func(rec arrow.RecordBatch, ad []uint64) error {
				out.addrs = append(out.addrs, ad...)
				return convert(rec, nil)
			})
			if err != nil {
				return nil, err
			}
		} else {
			want := addrSetOf(base)
			err := ti.def.Source.Scan(w.ctx, req, func(rec arrow.RecordBatch, ad []uint64) error {
				var sel []int32
				for i, a := range ad {
					if _, ok := want[a]; ok {
						sel = append(sel, int32(i))
						out.addrs = append(out.addrs, a)
					}
				}
				if len(sel) == 0 {
					return nil
				}
				return convert(rec, sel)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if p := w.v.pend.tables[ti.def.Name]; p != nil && len(pend) > 0 {
		want := addrSetOf(pend)
		var seq uint64
		for _, rec := range p.inserts {
			var sel []int32
			for i := 0; i < int(rec.NumRows()); i++ {
				if _, ok := want[pendingAddrBit|seq]; ok {
					sel = append(sel, int32(i))
					out.addrs = append(out.addrs, pendingAddrBit|seq)
				}
				seq++
			}
			if len(sel) == 0 {
				continue
			}
			xr := execRecord(rec)
			arrs := make([]arrow.Array, len(cols))
			for k, c := range cols {
				arrs[k] = xr.Column(c)
			}
			if err := convert(projectRecord(arrs, rec.NumRows()), sel); err != nil {
				return nil, err
			}
		}
	}
	for k, c := range cols {
		col := make([]*exec.Vec, len(parts))
		for i, p := range parts {
			col[i] = p[k]
		}
		out.cols[c] = catVecs(ti.def.Columns[c].Type, col)
	}
	return out, nil
}

// catVecs concatenates vectors of one type (typed copies, no boxing).
func catVecs(t exec.Type, parts []*exec.Vec) *exec.Vec {
	if len(parts) == 1 {
		return parts[0]
	}
	n := 0
	nulls := false
	for _, p := range parts {
		n += p.N
		nulls = nulls || p.Nulls != nil
	}
	if len(parts) > 0 {
		t = parts[0].T
	}
	out := exec.NewVec(t, 0)
	if nulls {
		out.Nulls = make([]bool, 0, n)
	}
	for _, p := range parts {
		if nulls {
			if p.Nulls != nil {
				out.Nulls = append(out.Nulls, p.Nulls[:p.N]...)
			} else {
				out.Nulls = append(out.Nulls, make([]bool, p.N)...)
			}
		}
		switch t.Kind() {
		case exec.KInt:
			out.I = append(out.I, p.I[:p.N]...)
		case exec.KFloat:
			out.F = append(out.F, p.F[:p.N]...)
		case exec.KBool:
			out.B = append(out.B, p.B[:p.N]...)
		case exec.KStr:
			out.S = append(out.S, p.S[:p.N]...)
		case exec.KInterval:
			out.V = append(out.V, p.V[:p.N]...)
		case exec.KArray:
			out.A = append(out.A, p.A[:p.N]...)
		case exec.KNum:
			base := len(out.D)
			out.D = slices.Grow(out.D, p.N)[:base+p.N]
			for i := 0; i < p.N; i++ {
				out.D[base+i].Set(&p.D[i])
			}
		}
		out.N += p.N
	}
	return out
}

// batchVec is column c of a result batch holding exactly its live rows.
func batchVec(b *exec.Batch, c int) *exec.Vec {
	v := b.Cols[c]
	if b.Sel != nil {
		return v.Gather(b.Sel)
	}
	if v.N == b.N {
		return v
	}
	idx := make([]int32, b.N)
	for i := range idx {
		idx[i] = int32(i)
	}
	return v.Gather(idx)
}

// detachStrings copies the first n string values of v (when it holds
// strings) into one allocation of their own. exec's strings read from a
// scan alias the Arrow page they came from: a statement keeping a few
// rows of every page would otherwise keep the whole column in memory.
func detachStrings(v *exec.Vec, n int) {
	if v == nil || v.T.Kind() != exec.KStr || n == 0 {
		return
	}
	n = min(n, len(v.S))
	total := 0
	for _, s := range v.S[:n] {
		total += len(s)
	}
	var sb strings.Builder
	sb.Grow(total)
	for _, s := range v.S[:n] {
		sb.WriteString(s)
	}
	arena := sb.String()
	off := 0
	for i, s := range v.S[:n] {
		v.S[i] = arena[off : off+len(s)]
		off += len(s)
	}
}

// sameKindRetype gives vecs the types of like where the kinds agree (the
// key encoding then agrees too); others stay as they are.
func sameKindRetype(vecs, like []*exec.Vec) []*exec.Vec {
	out := make([]*exec.Vec, len(vecs))
	for k, v := range vecs {
		out[k] = v
		if k < len(like) && v.T.Kind() == like[k].T.Kind() {
			out[k] = retype(v, like[k].T)
		}
	}
	return out
}
