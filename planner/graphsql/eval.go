package graphsql

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
)

// Evaluating a recognized call: its arguments run through the executor
// as one SELECT of text casts (so literals, casts, $n parameters and
// expressions all work, with the session's settings), then the procedure
// runs and its value is shaped for the call's form.

// Result is what a graph procedure answered.
type Result struct {
	Function string
	// Type and Value are the procedure's value: text (a branch name, a
	// commit id) or int8 (recover's count); Value is nil for NULL.
	Type  exec.Type
	Value any
	// Columns is the row description of the SELECT forms (empty for CALL).
	Columns []exec.Column
	// Row is the one row of the SELECT forms (nil for CALL).
	Row []any
	// Tag is the command tag: "CALL" or "SELECT 1".
	Tag string
}

// argQuery is the SELECT that evaluates the given arguments as text, and
// for each argument where its text starts in that query.
func (inv *Invocation) argQuery() (string, []int, []int) {
	var b strings.Builder
	var at, idx []int
	b.WriteString("SELECT ")
	for i, a := range inv.args {
		if a == nil {
			continue
		}
		if len(idx) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("CAST((")
		at = append(at, b.Len())
		idx = append(idx, i)
		b.WriteString(a.text)
		b.WriteString("\n) AS text)") // the newline ends a trailing -- comment
	}
	return b.String(), at, idx
}

// engine returns eng, or an engine over an empty catalog.
func engine(eng *exec.Engine) *exec.Engine {
	if eng == nil {
		return &exec.Engine{Catalog: exec.NewMemCatalog()}
	}
	return eng
}

// Describe returns the statement's parameter types and its result
// columns (none for CALL), for the extended protocol's Describe.
// declared are the parameter types the client declared (0 = unknown).
func (inv *Invocation) Describe(eng *exec.Engine, sess *exec.Session, declared []uint32) (params []uint32, cols []exec.Column, err error) {
	q, at, _ := inv.argQuery()
	if len(at) > 0 {
		prep, err := engine(eng).PrepareFor(sess, q, declared)
		if err != nil {
			return nil, nil, inv.argError(err, q, at)
		}
		for _, t := range prep.ParamTypes {
			params = append(params, t.OID)
		}
	}
	return params, inv.columns(), nil
}

func (inv *Invocation) columns() []exec.Column {
	if inv.Form == FormCall {
		return nil
	}
	t := inv.fn.result
	return []exec.Column{{Name: inv.Column, TypeOID: t.OID, TypeLen: t.Len(), TypeMod: t.Mod}}
}

// Args evaluates the arguments through the executor (parameters bound
// from params, TimeZone and settings from sess) and returns their text
// by parameter position (nil = NULL or not given).
func (inv *Invocation) Args(ctx context.Context, eng *exec.Engine, sess *exec.Session, declared []uint32, params []any) ([]*string, error) {
	out := make([]*string, len(inv.args))
	q, at, idx := inv.argQuery()
	if len(at) == 0 {
		return out, nil
	}
	prep, err := engine(eng).PrepareFor(sess, q, declared)
	if err != nil {
		return nil, inv.argError(err, q, at)
	}
	res, err := prep.Execute(ctx, sess, params)
	if err != nil {
		return nil, inv.argError(err, q, at)
	}
	if res.NumRows() != 1 {
		return nil, errf(CodeInternalError, "evaluating the arguments of %s.%s returned %d rows", Schema, inv.Function, res.NumRows())
	}
	for c, i := range idx {
		if s, ok := res.Text(0, c); ok {
			out[i] = &s
		}
	}
	return out, nil
}

// argError converts an executor error about the argument query into one
// about the statement: its position is moved onto the argument's text.
func (inv *Invocation) argError(err error, q string, at []int) error {
	var ee *exec.Error
	if !errors.As(err, &ee) {
		return err
	}
	w := *ee
	w.Position, w.Cause = 0, err
	if ee.Position > 0 {
		// a character position in q; map it back when it falls in an
		// argument's text
		p := byteOffset(q, int(ee.Position)-1)
		k := 0
		for _, a := range inv.args {
			if a == nil {
				continue
			}
			if p >= at[k] && p < at[k]+len(a.text) {
				w.Position = int32(charPos(inv.sql, a.offset+p-at[k]))
			}
			k++
		}
	}
	return &w
}

// charPos is the 1-based character position of byte offset off in s
// (PostgreSQL reports positions in characters).
func charPos(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	return utf8.RuneCountInString(s[:off]) + 1
}

// byteOffset is the byte offset of the n-th (0-based) character of s.
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// Execute evaluates the arguments and runs the procedure, shaping the
// result for the invocation's form.
func (inv *Invocation) Execute(ctx context.Context, g *adapters.Graph, env Env, eng *exec.Engine, sess *exec.Session, declared []uint32, params []any) (*Result, error) {
	args, err := inv.Args(ctx, eng, sess, declared, params)
	if err != nil {
		return nil, err
	}
	if env.TimeZone == nil && sess != nil {
		env.TimeZone = sess.TimeZone
	}
	res, err := call(ctx, g, env, inv.fn, args)
	if err != nil {
		return nil, err
	}
	if inv.Form != FormCall {
		res.Columns = inv.columns()
		res.Row = []any{res.Value}
		res.Tag = "SELECT 1"
	}
	return res, nil
}
