package planner

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/wire"
)

// result hands out an executed query's rows one at a time, so wire can
// suspend it at a portal's row limit and resume on the next Execute.
type result struct {
	res   *exec.Result
	cells cellCodec
	cols  []wire.Column
	b, i  int // next row: batch b, row i
}

func newResult(res *exec.Result, loc *time.Location) *result {
	return &result{res: res, cells: cellCodec{m: pgtype.NewMap(), loc: loc}, cols: columns(res.Columns)}
}

// Columns implements wire.Result.
func (r *result) Columns() []wire.Column {
	if len(r.cols) == 0 {
		return nil
	}
	return r.cols
}

// Next implements wire.Result.
func (r *result) Next(ctx context.Context) ([]any, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, wire.Errorf("57014", "canceling statement due to user request")
	}
	for r.b < len(r.res.Batches) && r.i >= r.res.Batches[r.b].N {
		r.b, r.i = r.b+1, 0
	}
	if r.b >= len(r.res.Batches) {
		return nil, false, nil
	}
	bt := r.res.Batches[r.b]
	row := make([]any, len(bt.Cols))
	for c, v := range bt.Cols {
		row[c] = r.cells.value(v, r.i)
	}
	r.i++
	return row, true, nil
}

// Tag implements wire.Result.
// A SELECT's tag is left without its count: wire counts the rows it sent,
// which after a suspended portal is what PostgreSQL reports.
func (r *result) Tag() string {
	if strings.HasPrefix(r.res.Tag, "SELECT ") {
		return "SELECT"
	}
	return r.res.Tag
}

// Close implements wire.Result.
func (r *result) Close() error { r.res = &exec.Result{}; return nil }
