package exec

// Matches reports whether row i of v (the filter's column, as a Vec of the
// column's type) satisfies the hint. NULL satisfies only IS NULL, as in
// SQL. A source that drops rows with Matches never drops a row the
// engine would keep; an operator it does not know keeps the row.
func (f ScanFilter) Matches(v *Vec, i int) bool {
	switch f.Op {
	case "IS NULL":
		return v.IsNull(i)
	case "IS NOT NULL":
		return !v.IsNull(i)
	}
	op, ok := cmpOps[f.Op]
	if !ok || f.Value == nil || f.Value.N == 0 || f.Value.T.OID != v.T.OID {
		return true
	}
	if v.IsNull(i) || f.Value.IsNull(0) {
		return false
	}
	return op.holds(cmpRows(v, i, f.Value, 0))
}

// Narrow clears keep[i] for every row of v (the filter's column) that the
// hint rejects: Matches over a whole column, with typed loops for integer
// and float comparisons (sources call it on every scanned row).
func (f ScanFilter) Narrow(v *Vec, keep []bool) {
	op, isCmp := cmpOps[f.Op]
	if isCmp && f.Value != nil && f.Value.N == 1 && f.Value.T.OID == v.T.OID && !f.Value.IsNull(0) {
		switch v.T.Kind() {
		case KInt:
			narrowOrdered(v.I, f.Value.I[0], op, v.Nulls, keep)
			return
		case KFloat:
			if k := f.Value.F[0]; k == k { // NaN constants take the general path
				narrowFloat(v.F, k, op, v.Nulls, keep)
				return
			}
		}
	}
	for i := range keep {
		if keep[i] && !f.Matches(v, i) {
			keep[i] = false
		}
	}
}

func narrowOrdered(xs []int64, k int64, op cmpOp, nulls, keep []bool) {
	for i, x := range xs[:len(keep)] {
		var ok bool
		switch op {
		case opEq:
			ok = x == k
		case opNe:
			ok = x != k
		case opLt:
			ok = x < k
		case opLe:
			ok = x <= k
		case opGt:
			ok = x > k
		case opGe:
			ok = x >= k
		}
		if !ok || (nulls != nil && nulls[i]) {
			keep[i] = false
		}
	}
}

// narrowFloat compares with a non-NaN constant; NaN rows compare above
// every number (PostgreSQL), so only <> and > / >= keep them.
func narrowFloat(xs []float64, k float64, op cmpOp, nulls, keep []bool) {
	for i, x := range xs[:len(keep)] {
		var ok bool
		if x != x {
			ok = op == opNe || op == opGt || op == opGe
		} else {
			switch op {
			case opEq:
				ok = x == k
			case opNe:
				ok = x != k
			case opLt:
				ok = x < k
			case opLe:
				ok = x <= k
			case opGt:
				ok = x > k
			case opGe:
				ok = x >= k
			}
		}
		if !ok || (nulls != nil && nulls[i]) {
			keep[i] = false
		}
	}
}
