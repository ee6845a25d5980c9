package exec

import (
	"context"
	"fmt"
	"strings"
	"time"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Expr is a bound, typed scalar expression evaluated a batch at a time.
// Eval computes the rows listed in sel (nil: all b.N rows) into a vector of
// length b.N; rows outside sel are left unspecified and are never
// evaluated, so errors (division by zero, casts) only come from live rows.
type Expr interface {
	Type() Type
	Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error)
	String() string
}

// evalCtx carries per-execution state into expression evaluation.
type evalCtx struct {
	ctx    context.Context
	params []*Vec // one single-row vector per $n
	loc    *time.Location
	outer  []outerRow // correlated subquery bindings, innermost last
	run    *runCtx
	style  DateStyle // without a run: the binding session's (constant folding)
}

// dateStyle is the session's DateStyle and IntervalStyle (the defaults
// when the context has no run, as while binding).
func (ec *evalCtx) dateStyle() DateStyle {
	if ec == nil {
		return DateStyle{}
	}
	if ec.run == nil {
		return ec.style
	}
	return ec.run.style
}

type outerRow struct {
	b   *Batch
	row int
}

// constExpr is a literal (or a folded constant).
type constExpr struct {
	t    Type
	val  *Vec // one row
	text string
	src  *q.A_Const // the literal it was bound from, while AnalyzeView traces
	// loc is the literal's byte offset in the statement plus one (0: not
	// from the text), so input errors point at it as PostgreSQL's do.
	loc int32
}

func newConst(v *Vec) *constExpr {
	c := &constExpr{t: v.T, val: v}
	if s, ok := FormatText(v, 0, time.UTC); ok {
		c.text = s
	} else {
		c.text = "NULL"
	}
	return c
}

func constNull(t Type) *constExpr {
	v := NewVec(t, 1)
	v.SetNull(0)
	return newConst(v)
}

func (c *constExpr) Type() Type     { return c.t }
func (c *constExpr) String() string { return fmt.Sprintf("%s::%s", c.text, c.t.Name()) }
func (c *constExpr) isNull() bool   { return c.val.IsNull(0) }
func (c *constExpr) Eval(_ *evalCtx, b *Batch, _ []int32) (*Vec, error) {
	return broadcast(c.val, 0, b.N), nil
}

// broadcast repeats row i of v n times.
func broadcast(v *Vec, i, n int) *Vec {
	out := NewVec(v.T, n)
	if v.IsNull(int(i)) {
		out.Nulls = make([]bool, n)
		for k := range out.Nulls {
			out.Nulls[k] = true
		}
		return out
	}
	switch v.T.Kind() {
	case KInt:
		fill(out.I, v.I[i])
	case KFloat:
		fill(out.F, v.F[i])
	case KBool:
		fill(out.B, v.B[i])
	case KStr:
		fill(out.S, v.S[i])
	case KInterval:
		fill(out.V, v.V[i])
	case KArray:
		fill(out.A, v.A[i])
	case KNum:
		for k := range out.D {
			out.D[k].Set(&v.D[i])
		}
	}
	return out
}

func fill[T any](s []T, x T) {
	for i := range s {
		s[i] = x
	}
}

// colRef reads a column of the input batch.
type colRef struct {
	idx  int
	t    Type
	name string
}

func (c *colRef) Type() Type     { return c.t }
func (c *colRef) String() string { return fmt.Sprintf("#%d", c.idx) }
func (c *colRef) Eval(_ *evalCtx, b *Batch, _ []int32) (*Vec, error) {
	return b.Cols[c.idx], nil
}

// outerRef reads a column of an enclosing query's current row.
type outerRef struct {
	level int // 1 = the directly enclosing query
	idx   int
	t     Type
}

func (o *outerRef) Type() Type     { return o.t }
func (o *outerRef) String() string { return fmt.Sprintf("outer%d#%d", o.level, o.idx) }
func (o *outerRef) Eval(ec *evalCtx, b *Batch, _ []int32) (*Vec, error) {
	r := ec.outer[len(ec.outer)-o.level]
	return broadcast(r.b.Cols[o.idx], r.row, b.N), nil
}

// paramExpr is $n. Its type lives in a slot shared by every occurrence
// of the same parameter, so the first context that fixes it fixes all.
type paramExpr struct {
	n    int
	slot *Type
}

func (p *paramExpr) Type() Type     { return *p.slot }
func (p *paramExpr) String() string { return fmt.Sprintf("$%d", p.n) }
func (p *paramExpr) setType(t Type) {
	if p.slot.OID == OIDUnknown {
		*p.slot = t
	}
}
func (p *paramExpr) Eval(ec *evalCtx, b *Batch, _ []int32) (*Vec, error) {
	if p.n > len(ec.params) {
		return nil, errf(CodeUndefinedParameter, "there is no parameter $%d", p.n)
	}
	v := ec.params[p.n-1]
	if v.T.OID != p.slot.OID {
		out := NewVec(*p.slot, 1)
		if err := castRows(ec, v, out, nonNull(1, nil, out, v), false); err != nil {
			return nil, err
		}
		v = out
	}
	return broadcast(v, 0, b.N), nil
}

// boolExpr is AND / OR / NOT with three-valued logic. AND and OR evaluate
// later arguments only on rows the earlier ones left undecided.
type boolExpr struct {
	op   string // "AND", "OR", "NOT"
	args []Expr
}

func (e *boolExpr) Type() Type { return TBool }
func (e *boolExpr) String() string {
	parts := make([]string, len(e.args))
	for i, a := range e.args {
		parts[i] = a.String()
	}
	if e.op == "NOT" {
		return "(NOT " + parts[0] + ")"
	}
	return "(" + strings.Join(parts, " "+e.op+" ") + ")"
}

func (e *boolExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	if e.op == "NOT" {
		v, err := e.args[0].Eval(ec, b, sel)
		if err != nil {
			return nil, err
		}
		out := NewVec(TBool, b.N)
		if v.Nulls != nil {
			out.Nulls = append([]bool(nil), v.Nulls...)
		}
		forEach(b.N, sel, func(i int) { out.B[i] = !v.B[i] })
		return out, nil
	}
	isAnd := e.op == "AND"
	out := NewVec(TBool, b.N)
	out.Nulls = make([]bool, b.N)
	// undecided rows start as the identity (true for AND, false for OR)
	pending := sel
	if pending == nil {
		pending = allRows(b.N)
	}
	forEach(b.N, pending, func(i int) { out.B[i] = isAnd })
	for _, a := range e.args {
		if len(pending) == 0 {
			break
		}
		v, err := a.Eval(ec, b, pending)
		if err != nil {
			return nil, err
		}
		next := pending[:0:0]
		for _, i := range pending {
			if v.IsNull(int(i)) {
				out.Nulls[i] = true
				next = append(next, i)
				continue
			}
			if v.B[i] != isAnd { // decided: false for AND, true for OR
				out.B[i] = v.B[i]
				out.Nulls[i] = false
				continue
			}
			next = append(next, i)
		}
		pending = next
	}
	return out, nil
}

// nullTest is IS [NOT] NULL.
type nullTest struct {
	arg Expr
	not bool
}

func (e *nullTest) Type() Type { return TBool }
func (e *nullTest) String() string {
	if e.not {
		return "(" + e.arg.String() + " IS NOT NULL)"
	}
	return "(" + e.arg.String() + " IS NULL)"
}
func (e *nullTest) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	v, err := e.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	out := NewVec(TBool, b.N)
	forEach(b.N, sel, func(i int) { out.B[i] = v.IsNull(i) != e.not })
	return out, nil
}

// boolTest is IS [NOT] TRUE / FALSE / UNKNOWN.
type boolTest struct {
	arg  Expr
	want int // 1 true, 0 false, -1 unknown
	not  bool
}

func (e *boolTest) Type() Type     { return TBool }
func (e *boolTest) String() string { return fmt.Sprintf("(%s IS %v %d)", e.arg, e.not, e.want) }
func (e *boolTest) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	v, err := e.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	out := NewVec(TBool, b.N)
	forEach(b.N, sel, func(i int) {
		var r bool
		switch {
		case v.IsNull(i):
			r = e.want == -1
		case e.want == -1:
			r = false
		default:
			r = v.B[i] == (e.want == 1)
		}
		out.B[i] = r != e.not
	})
	return out, nil
}

// caseExpr is the searched CASE (simple CASE is bound into this form).
type caseExpr struct {
	t     Type
	whens []Expr
	thens []Expr
	els   Expr // nil: NULL
}

func (e *caseExpr) Type() Type { return e.t }
func (e *caseExpr) String() string {
	var sb strings.Builder
	sb.WriteString("CASE")
	for i := range e.whens {
		fmt.Fprintf(&sb, " WHEN %s THEN %s", e.whens[i], e.thens[i])
	}
	if e.els != nil {
		fmt.Fprintf(&sb, " ELSE %s", e.els)
	}
	sb.WriteString(" END")
	return sb.String()
}

func (e *caseExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	out := NewVec(e.t, b.N)
	out.Nulls = make([]bool, b.N)
	pending := sel
	if pending == nil {
		pending = allRows(b.N)
	}
	for k, w := range e.whens {
		if len(pending) == 0 {
			break
		}
		c, err := w.Eval(ec, b, pending)
		if err != nil {
			return nil, err
		}
		var hit, rest []int32
		for _, i := range pending {
			if !c.IsNull(int(i)) && c.B[i] {
				hit = append(hit, i)
			} else {
				rest = append(rest, i)
			}
		}
		if len(hit) > 0 {
			v, err := e.thens[k].Eval(ec, b, hit)
			if err != nil {
				return nil, err
			}
			for _, i := range hit {
				out.copyRow(int(i), v, int(i))
			}
		}
		pending = rest
	}
	if len(pending) > 0 {
		if e.els == nil {
			for _, i := range pending {
				out.Nulls[i] = true
			}
		} else {
			v, err := e.els.Eval(ec, b, pending)
			if err != nil {
				return nil, err
			}
			for _, i := range pending {
				out.copyRow(int(i), v, int(i))
			}
		}
	}
	return out, nil
}

// coalesceExpr returns the first non-NULL argument, evaluating later
// arguments only where needed.
type coalesceExpr struct {
	t    Type
	args []Expr
}

func (e *coalesceExpr) Type() Type     { return e.t }
func (e *coalesceExpr) String() string { return fmt.Sprintf("COALESCE%v", e.args) }
func (e *coalesceExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	out := NewVec(e.t, b.N)
	out.Nulls = make([]bool, b.N)
	pending := sel
	if pending == nil {
		pending = allRows(b.N)
	}
	for _, a := range e.args {
		if len(pending) == 0 {
			break
		}
		v, err := a.Eval(ec, b, pending)
		if err != nil {
			return nil, err
		}
		var rest []int32
		for _, i := range pending {
			if v.IsNull(int(i)) {
				rest = append(rest, i)
			} else {
				out.copyRow(int(i), v, int(i))
			}
		}
		pending = rest
	}
	for _, i := range pending {
		out.Nulls[i] = true
	}
	return out, nil
}

// evalRow evaluates e for a single-row batch (constant folding, LIMIT).
func evalConst(ec *evalCtx, e Expr) (*Vec, error) {
	return e.Eval(ec, &Batch{N: 1}, nil)
}
