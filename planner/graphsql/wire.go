package graphsql

import (
	"context"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/wire"
)

// WireColumns converts result columns to the wire's row description.
func WireColumns(cs []exec.Column) []wire.Column {
	if len(cs) == 0 {
		return nil
	}
	out := make([]wire.Column, len(cs))
	for i, c := range cs {
		out[i] = wire.Column{Name: c.Name, TableOID: c.TableOID, AttrNum: uint16(c.AttNum), TypeOID: c.TypeOID, TypeSize: c.TypeLen, TypeMod: c.TypeMod}
	}
	return out
}

// WireDescribe is Describe shaped for wire.Session.Describe.
func (inv *Invocation) WireDescribe(eng *exec.Engine, sess *exec.Session, declared []uint32) (wire.Description, error) {
	params, cols, err := inv.Describe(eng, sess, declared)
	if err != nil {
		return wire.Description{}, err
	}
	return wire.Description{Params: params, Columns: WireColumns(cols)}, nil
}

// Wire returns the result as a wire.Result: no rows and tag CALL for
// CALL; one row for the SELECT forms (tag "SELECT": wire counts the
// rows it sent, as for every SELECT).
func (r *Result) Wire() wire.Result { return &wireResult{r: r} }

type wireResult struct {
	r    *Result
	sent bool
}

func (w *wireResult) Columns() []wire.Column { return WireColumns(w.r.Columns) }

func (w *wireResult) Next(context.Context) ([]any, bool, error) {
	if w.sent || w.r.Row == nil {
		return nil, false, nil
	}
	w.sent = true
	return w.r.Row, true, nil
}

func (w *wireResult) Tag() string {
	if w.r.Row != nil {
		return "SELECT"
	}
	return w.r.Tag
}

func (w *wireResult) Close() error { return nil }
