package exec

import (
	"hash/maphash"
	"math"
)

// Group keys of plain types — integers, floats, booleans and text
// (other than jsonb and char(n), whose equality is not byte equality) —
// are grouped by a 64-bit hash of the key columns, computed a column at
// a time, with each candidate group's keys compared value by value: no
// per-row key encoding (rowKey) and no string-keyed map. Groups whose
// hashes collide are chained. Equality is appendKey's: -0 = 0, NaN =
// NaN, NULL = NULL.

// hashKeyable reports whether the key columns kv can be grouped by hash.
func hashKeyable(kv []*Vec) bool {
	for _, v := range kv {
		switch v.T.Kind() {
		case KInt, KFloat, KBool:
		case KStr:
			if v.T.OID == OIDJSONB || v.T.OID == OIDBpchar {
				return false
			}
		default:
			return false
		}
	}
	return true
}

var groupHashSeed = maphash.MakeSeed()

// groupHashes sets out[k] to the hash of row rows[k]'s keys.
func groupHashes(kv []*Vec, rows []int32, out []uint64) {
	for k := range out {
		out[k] = 0xcbf29ce484222325
	}
	for c, v := range kv {
		salt := uint64(c+1) * 0x9E3779B97F4A7C15
		for k, r := range rows {
			var x uint64
			switch {
			case v.IsNull(int(r)):
				x = salt ^ 0x5bd1e995
			case v.T.Kind() == KInt:
				x = uint64(v.I[r])
			case v.T.Kind() == KFloat:
				x = floatKeyBits(v.F[r])
			case v.T.Kind() == KBool:
				if v.B[r] {
					x = 1
				}
			default:
				x = maphash.String(groupHashSeed, v.S[r])
			}
			h := (out[k] ^ x) * 0x100000001b3
			out[k] = h ^ (h >> 29) ^ salt
		}
	}
}

// floatKeyBits is f's key: -0 as 0, every NaN as one NaN.
func floatKeyBits(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	if math.IsNaN(f) {
		f = math.NaN()
	}
	return math.Float64bits(f)
}

// keyEqual reports whether row i of a and row j of b (same types) are
// the same group key value.
func keyEqual(a *Vec, i int, b *Vec, j int) bool {
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		return an == bn
	}
	switch a.T.Kind() {
	case KInt:
		return a.I[i] == b.I[j]
	case KFloat:
		return floatKeyBits(a.F[i]) == floatKeyBits(b.F[j])
	case KBool:
		return a.B[i] == b.B[j]
	default:
		return a.S[i] == b.S[j]
	}
}

// assignHashed is assign for hashKeyable keys. Groups before the state's
// stored keys' end are compared with those; groups made in this call
// with their first row in kv.
func (st *aggState) assignHashed(kv []*Vec, rows, gids []int32) []int32 {
	if st.hindex == nil {
		st.hindex = map[uint64]int32{}
	}
	if cap(st.hashes) < len(rows) {
		st.hashes = make([]uint64, max(len(rows), batchSize))
	}
	hs := st.hashes[:len(rows)]
	groupHashes(kv, rows, hs)
	stored := int32(st.keys.n)
	var newRows []int32
	same := func(r, g int32) bool {
		for c, v := range kv {
			if g < stored {
				if !keyEqual(v, int(r), st.keys.cols[c], int(g)) {
					return false
				}
			} else if !keyEqual(v, int(r), v, int(newRows[g-stored])) {
				return false
			}
		}
		return true
	}
	for k, r := range rows {
		h := hs[k]
		head, ok := st.hindex[h]
		g := int32(-1)
		if ok {
			for c := head; c >= 0; c = st.hnext[c] {
				if same(r, c) {
					g = c
					break
				}
			}
		}
		if g < 0 {
			g = int32(st.ngroups)
			st.ngroups++
			if ok {
				st.hnext = append(st.hnext, head)
			} else {
				st.hnext = append(st.hnext, -1)
			}
			st.hindex[h] = g
			newRows = append(newRows, r)
		}
		gids[k] = g
	}
	return newRows
}

// findHashed reports whether row r's group exists (assignHashed's
// index; every group's keys are stored).
func (st *aggState) findHashed(kv []*Vec, r int32) bool {
	if st.hindex == nil {
		return false
	}
	hs := []uint64{0}
	groupHashes(kv, []int32{r}, hs)
	head, ok := st.hindex[hs[0]]
	if !ok {
		return false
	}
	for g := head; g >= 0; g = st.hnext[g] {
		eq := true
		for c, v := range kv {
			if !keyEqual(v, int(r), st.keys.cols[c], int(g)) {
				eq = false
				break
			}
		}
		if eq {
			return true
		}
	}
	return false
}
