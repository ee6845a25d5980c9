package exec

// Key-only lookups: a key lookup whose reader needs no column of the
// table but the key itself (no other column, no row address) is answered
// from the index's counts (KeyCountSource): each key is emitted once per
// live row holding it, the other columns are NULL placeholders, and no
// row is read. Counting the last hop of a traversal, a semi join's
// existence test and count(*) of a key lookup are such reads.

// keyOnly answers a lookup of keys (distinct, of the key column's type)
// on table column col from the index counts when the scan's projection
// reads nothing but that column; ok is false when it cannot.
func (s *scanNode) keyOnly(ec *evalCtx, col int, keys *Vec, emit func(*Batch) error) (ok bool, err error) {
	kc, isCounter := s.table.Source.(KeyCountSource)
	if !isCounter {
		return false, nil
	}
	req, conv := s.prepare()
	if req.NeedAddrs {
		return false, nil
	}
	for _, c := range req.Columns {
		// the key's values are given for the stored ones only where equal
		// keys are the same value (not numeric 1.0 for a stored 1.00)
		if c != col || !identityKey(s.table.Columns[col].Type) || keys.T.OID != s.table.Columns[col].Type.OID {
			return false, nil
		}
	}
	counts, err := kc.CountKeys(ec.run.ctx, col, keys)
	if err != nil {
		return true, stopOK(err)
	}
	var rows []int32
	for i, n := range counts {
		for ; n > 0; n-- {
			rows = append(rows, int32(i))
		}
	}
	for lo := 0; lo < len(rows); lo += batchSize {
		hi := min(lo+batchSize, len(rows))
		b := &Batch{N: hi - lo, Cols: make([]*Vec, len(s.cols))}
		var kv *Vec
		for i, p := range conv.pos {
			switch {
			case p >= 0:
				if kv == nil {
					kv = keys.Gather(rows[lo:hi])
				}
				b.Cols[i] = kv
			case p == -3:
				v := NewVec(TOid, hi-lo)
				for k := range v.I {
					v.I[k] = int64(s.table.OID)
				}
				b.Cols[i] = v
			default:
				b.Cols[i] = placeholder(s.cols[i].t, hi-lo)
			}
		}
		if err := emit(b); err != nil {
			return true, err
		}
	}
	return true, nil
}

// distinctKeys is keys without repeated values (a key listed twice in an
// IN list matches its rows once).
func distinctKeys(keys *Vec) *Vec {
	if keys.N < 2 {
		return keys
	}
	seen := make(map[string]struct{}, keys.N)
	var kb []byte
	var pick []int32
	for i := 0; i < keys.N; i++ {
		kb = appendKey(kb[:0], keys, i)
		if _, ok := seen[string(kb)]; !ok {
			seen[string(kb)] = struct{}{}
			pick = append(pick, int32(i))
		}
	}
	if len(pick) == keys.N {
		return keys
	}
	return keys.Gather(pick)
}
