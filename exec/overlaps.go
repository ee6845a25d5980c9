package exec

// (s1, e1) OVERLAPS (s2, e2) for date, time, timestamp and timestamptz
// (and (start, interval) pairs), with PostgreSQL's NULL rules: a NULL end
// makes the period a point at its start, and the answer is NULL where the
// non-NULL ends cannot decide it.

// overlapsKernel evaluates OVERLAPS over four int64 slots of one type.
func overlapsKernel(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
	for _, i := range sel {
		r, null := overlaps(a[0], a[1], a[2], a[3], int(i))
		if null {
			out.SetNull(int(i))
			continue
		}
		out.B[i] = r
	}
	return nil
}

func overlaps(s1v, e1v, s2v, e2v *Vec, i int) (result, null bool) {
	type end struct {
		v    int64
		null bool
	}
	norm := func(sv, ev *Vec) (s, e end, ok bool) {
		s = end{null: sv.IsNull(i)}
		e = end{null: ev.IsNull(i)}
		if !s.null {
			s.v = sv.I[i]
		}
		if !e.null {
			e.v = ev.I[i]
		}
		if s.null {
			if e.null {
				return s, e, false
			}
			s, e = end{v: e.v}, end{null: true}
		} else if !e.null && s.v > e.v {
			s, e = e, s
		}
		return s, e, true
	}
	s1, e1, ok1 := norm(s1v, e1v)
	s2, e2, ok2 := norm(s2v, e2v)
	if !ok1 || !ok2 {
		return false, true
	}
	switch {
	case s1.v > s2.v:
		if e2.null {
			return false, true
		}
		if s1.v < e2.v {
			return true, false
		}
		if e1.null {
			return false, true
		}
		return false, false
	case s1.v < s2.v:
		if e1.null {
			return false, true
		}
		if s2.v < e1.v {
			return true, false
		}
		if e2.null {
			return false, true
		}
		return false, false
	}
	if e1.null || e2.null {
		return false, true
	}
	return true, false
}

func init() {
	for _, t := range []Type{TTimestamp, TTimestamptz, TTime} {
		def("overlaps", fnSig{args: []Type{t, t, t, t}, ret: TBool, nonStrict: true, k: overlapsKernel})
	}
}
