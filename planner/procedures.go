package planner

import (
	"context"

	"github.com/pggraph/pggraph/wire"
)

// CALL of a procedure (docs/sql.md, "Procedures"): the executor binds it
// as a one-row query (exec/procedures.go) that runs the body through the
// session like a function call, inside the statement's transaction. The
// row is read here, so the body has run when the statement completes;
// PostgreSQL answers it with the INOUT parameters' row, or none, and the
// tag CALL.
func callResult(ctx context.Context, res wire.Result) (wire.Result, error) {
	cols := res.Columns()
	var rows [][]any
	for {
		row, ok, err := res.Next(ctx)
		if err != nil {
			res.Close()
			return nil, err
		}
		if !ok {
			break
		}
		rows = append(rows, row)
	}
	if err := res.Close(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return &tagResult{tag: "CALL"}, nil
	}
	return &rowsResult{cols: cols, rows: rows, tag: "CALL"}, nil
}
