package exec

// sum(interval) and avg(interval): fields add separately (months, days,
// microseconds, as interval + interval; overflow is 22008), avg divides the
// sum by the count with interval / float8's cascade. Serial only (no
// mergeableAcc).
type intervalSumAcc struct {
	avg bool
	sum []Interval
	n   []int64
}

func (a *intervalSumAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	a.sum, a.n = growTo(a.sum, ng), growTo(a.n, ng)
	x := args[0]
	for k, r := range rows {
		if x.IsNull(int(r)) {
			continue
		}
		g := gids[k]
		s, err := addIntervals(a.sum[g], x.V[r])
		if err != nil {
			return err
		}
		a.sum[g] = s
		a.n[g]++
	}
	return nil
}

func (a *intervalSumAcc) result(ng int) (*Vec, error) {
	a.sum, a.n = growTo(a.sum, ng), growTo(a.n, ng)
	out := NewVec(TInterval, ng)
	for g := 0; g < ng; g++ {
		switch {
		case a.n[g] == 0:
			out.SetNull(g)
		case a.avg:
			out.V[g] = divideInterval(a.sum[g], float64(a.n[g]))
		default:
			out.V[g] = a.sum[g]
		}
	}
	return out, nil
}
