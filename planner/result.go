package planner

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/wire"
)

// result streams a query's rows: exec produces batches in a coroutine
// (the session's queryRunner) that runs only while the connection goroutine waits for the
// next batch inside Execute or Next, so memory is one batch plus what the
// plan buffers, a suspended portal costs nothing, and exec's reads of the
// session settings happen on behalf of the connection goroutine (no
// concurrent access). Cancelling the context of the waiting call stops
// the query.
type result struct {
	cols   []wire.Column
	cells  cellCodec
	s      *session
	run    *queryRunner       // nil once the query ended and the runner went back
	closed bool               // Close was called: the query stops at its next batch
	cancel context.CancelFunc // the query's own context
	cur    *exec.Batch
	i      int
	tag    string
	err    error // the query's error once it ended
	done   bool
}

// errStopped ends a query whose result was closed early.
var errStopped = errors.New("planner: result closed")

// startResult runs prep as a coroutine and pulls its first batch, so an
// error in the first batch is Execute's error.
func (s *session) startResult(ctx context.Context, st *wire.Statement, prep *exec.Prepared, params []any) (*result, error) {
	qctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &result{s: s, cols: columns(prep.Columns), cells: cellCodec{m: s.typeMap(), loc: s.location(), style: s.dateStyle()}, cancel: cancel}
	sess := s.execSession()
	r.run = s.takeRunner()
	r.run.job = func(yield func(*exec.Batch) bool) {
		tag, err := prep.Stream(qctx, sess, params, func(b *exec.Batch, _ *time.Location) error {
			// Close resumes a running query only to end it
			if r.closed || !yield(b) || r.closed {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			r.err = s.errFor(st, err)
		}
		r.tag = tag
	}
	if err := r.pull(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// typeMap is the session's pgtype map for result cells, made once: a map
// per statement was a tenth of a point lookup's allocations in planner.
// Results are read on the connection goroutine only.
func (s *session) typeMap() *pgtype.Map {
	if s.types == nil {
		s.types = pgtype.NewMap()
	}
	return s.types
}

// pull resumes the query until its next non-empty batch or its end, with
// ctx's cancellation forwarded to the query.
func (r *result) pull(ctx context.Context) error {
	r.cur, r.i = nil, 0
	for !r.done {
		unlink := context.AfterFunc(ctx, r.cancel)
		b, ok := r.run.resume()
		unlink()
		if !ok || b == nil {
			r.finish()
			return r.err
		}
		if b.N > 0 {
			r.cur = b
			return nil
		}
	}
	return r.err
}

// Columns implements wire.Result.
func (r *result) Columns() []wire.Column {
	if r.cols == nil {
		return []wire.Column{} // a query's rows may have no columns (SELECT;)
	}
	return r.cols
}

// Next implements wire.Result.
func (r *result) Next(ctx context.Context) ([]any, bool, error) {
	if r.cur == nil || r.i >= r.cur.N {
		if err := r.pull(ctx); err != nil {
			return nil, false, err
		}
		if r.cur == nil {
			return nil, false, nil
		}
	}
	row := make([]any, len(r.cur.Cols))
	for c, v := range r.cur.Cols {
		row[c] = r.cells.value(v, r.i)
	}
	r.i++
	return row, true, nil
}

// NextText implements wire.TextRows: the next row's values in
// PostgreSQL's text output, written straight from the column vectors.
func (r *result) NextText(ctx context.Context, buf []byte, ends []int) ([]byte, []int, bool, error) {
	if r.cur == nil || r.i >= r.cur.N {
		if err := r.pull(ctx); err != nil {
			return buf, ends, false, err
		}
		if r.cur == nil {
			return buf, ends, false, nil
		}
	}
	for _, v := range r.cur.Cols {
		if v.IsNull(r.i) {
			ends = append(ends, -1)
			continue
		}
		buf = exec.AppendTextStyle(buf, v, r.i, r.cells.loc, r.cells.style)
		ends = append(ends, len(buf))
	}
	r.i++
	return buf, ends, true, nil
}

// Tag implements wire.Result. A SELECT's tag is left without its count:
// wire counts the rows it sent, which after a suspended portal is what
// PostgreSQL reports.
func (r *result) Tag() string {
	if r.tag == "SELECT" || strings.HasPrefix(r.tag, "SELECT ") {
		return "SELECT"
	}
	return r.tag
}

// finish marks the query ended and hands the runner back to the session.
func (r *result) finish() {
	r.done = true
	if q := r.run; q != nil {
		r.run = nil
		r.s.returnRunner(q)
	}
}

// Close implements wire.Result: it ends the query if it is still running
// (its next batch is refused, and the runner resumed up to the end
// marker).
func (r *result) Close() error {
	r.cancel()
	r.closed = true
	if q := r.run; q != nil && !r.done && q.usable() {
		for {
			b, ok := q.resume()
			if !ok || b == nil {
				break
			}
		}
	}
	r.finish()
	r.cur = nil
	return nil
}
