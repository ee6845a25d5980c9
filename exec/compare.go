package exec

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// cmpFloat orders floats as PostgreSQL does: NaN equals NaN and sorts
// above every other value.
func cmpFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpNum(a, b *apd.Decimal) int {
	an, bn := a.Form == apd.NaN, b.Form == apd.NaN
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return a.Cmp(b)
}

func intervalSpan(v Interval) (int64, int64) {
	// (days, µs) with months as 30 days, normalized so µs < one day
	days := int64(v.Months)*30 + int64(v.Days)
	us := v.Micros
	days += floorDiv(us, usPerDay)
	us -= floorDiv(us, usPerDay) * usPerDay
	return days, us
}

func cmpInterval(a, b Interval) int {
	ad, au := intervalSpan(a)
	bd, bu := intervalSpan(b)
	if c := cmpInt(ad, bd); c != 0 {
		return c
	}
	return cmpInt(au, bu)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func cmpString(t Type, a, b string) int {
	switch t.OID {
	case OIDBpchar:
		a, b = strings.TrimRight(a, " "), strings.TrimRight(b, " ")
	case OIDJSONB:
		return cmpJSONB(a, b)
	}
	return strings.Compare(a, b)
}

// cmpRows compares non-NULL row i of a with non-NULL row j of b (same Kind).
func cmpRows(a *Vec, i int, b *Vec, j int) int {
	switch a.T.Kind() {
	case KInt:
		return cmpInt(a.I[i], b.I[j])
	case KFloat:
		return cmpFloat(a.F[i], b.F[j])
	case KBool:
		return cmpBool(a.B[i], b.B[j])
	case KStr:
		return cmpString(a.T, a.S[i], b.S[j])
	case KNum:
		return cmpNum(&a.D[i], &b.D[j])
	case KInterval:
		return cmpInterval(a.V[i], b.V[j])
	case KArray:
		if a.T.OID == OIDRecord {
			return cmpRecord(a.A[i], b.A[j])
		}
		return cmpArray(a.A[i], b.A[j])
	}
	return 0
}

// cmpRecord compares records field by field in their fields' types (a
// record holds its fields' text forms); NULL fields sort last.
func cmpRecord(x, y *Array) int {
	fx, okx := RecordFields(x.Elem)
	fy, oky := RecordFields(y.Elem)
	n := min(x.Items.N, y.Items.N)
	for k := 0; k < n; k++ {
		xn, yn := x.Items.IsNull(k), y.Items.IsNull(k)
		switch {
		case xn && yn:
			continue
		case xn:
			return 1
		case yn:
			return -1
		}
		c := 0
		if okx && oky && k < len(fx) && k < len(fy) && fx[k].Type.OID == fy[k].Type.OID {
			xv, yv := NewVec(fx[k].Type, 1), NewVec(fy[k].Type, 1)
			if parseText(xv, 0, x.Items.S[k], nil) == nil && parseText(yv, 0, y.Items.S[k], nil) == nil {
				c = cmpRows(xv, 0, yv, 0)
			} else {
				c = strings.Compare(x.Items.S[k], y.Items.S[k])
			}
		} else {
			c = strings.Compare(x.Items.S[k], y.Items.S[k])
		}
		if c != 0 {
			return c
		}
	}
	return cmpInt(int64(x.Items.N), int64(y.Items.N))
}

// cmpArray compares arrays element-wise; NULL elements sort last.
func cmpArray(x, y *Array) int {
	n := min(x.Items.N, y.Items.N)
	for k := 0; k < n; k++ {
		xn, yn := x.Items.IsNull(k), y.Items.IsNull(k)
		switch {
		case xn && yn:
			continue
		case xn:
			return 1
		case yn:
			return -1
		}
		if c := cmpRows(x.Items, k, y.Items, k); c != 0 {
			return c
		}
	}
	return cmpInt(int64(x.Items.N), int64(y.Items.N))
}

// cmpOp is a comparison operator.
type cmpOp uint8

const (
	opEq cmpOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var cmpOps = map[string]cmpOp{"=": opEq, "<>": opNe, "!=": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}

func (o cmpOp) holds(c int) bool {
	switch o {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	}
	return c >= 0
}

// compareVecs evaluates l op r on the live non-NULL rows of sel into out.
func compareVecs(op cmpOp, l, r *Vec, out *Vec, sel []int32) {
	switch l.T.Kind() {
	case KInt:
		cmpLoop(op, l.I, r.I, out.B, sel, cmpInt)
	case KFloat:
		cmpLoop(op, l.F, r.F, out.B, sel, cmpFloat)
	case KStr:
		if l.T.OID == OIDBpchar || l.T.OID == OIDJSONB {
			for _, i := range sel {
				out.B[i] = op.holds(cmpString(l.T, l.S[i], r.S[i]))
			}
			return
		}
		cmpLoop(op, l.S, r.S, out.B, sel, strings.Compare)
	default:
		for _, i := range sel {
			out.B[i] = op.holds(cmpRows(l, int(i), r, int(i)))
		}
	}
}

// cmpLoop is the typed comparison kernel.
func cmpLoop[T any](op cmpOp, a, b []T, out []bool, sel []int32, cmp func(T, T) int) {
	for _, i := range sel {
		out[i] = op.holds(cmp(a[i], b[i]))
	}
}

// nonNull returns the rows of sel (nil = all n) where every vector is
// non-NULL, and marks the others NULL in out.
func nonNull(n int, sel []int32, out *Vec, vs ...*Vec) []int32 {
	anyNulls := false
	for _, v := range vs {
		if v.Nulls != nil {
			anyNulls = true
		}
	}
	if !anyNulls {
		if sel == nil {
			return allRows(n)
		}
		return sel
	}
	if out.Nulls == nil {
		out.Nulls = make([]bool, out.N)
	}
	live := make([]int32, 0, n)
	forEach(n, sel, func(i int) {
		for _, v := range vs {
			if v.IsNull(i) {
				out.Nulls[i] = true
				return
			}
		}
		live = append(live, int32(i))
	})
	return live
}
