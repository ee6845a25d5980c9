package wire

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// simpleQuery runs a Query message: every statement in order inside one
// implicit transaction (unless the statements manage their own), stopping
// at the first error, then one ReadyForQuery.
func (c *conn) simpleQuery(sql string) error {
	c.inCycle = false
	if e := checkUTF8(sql); e != nil {
		c.failStatement(e)
		c.readyForQuery()
		return nil
	}
	stmts, err := c.parseSQL(sql)
	if err != nil {
		c.failStatement(err)
		c.readyForQuery()
		return nil
	}
	if len(stmts) == 0 {
		c.send(&pgproto3.EmptyQueryResponse{})
		c.readyForQuery()
		return nil
	}
	c.multiStatement = len(stmts) > 1
	defer func() { c.multiStatement = false }()
	for _, st := range stmts {
		start := time.Now()
		err := c.runSimple(st)
		c.statementDone(st, start, err)
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) && pe.Fatal() {
				return pe
			}
			if errors.Is(err, errClientGone) {
				return err
			}
			c.failStatement(err)
			break
		}
	}
	if err := c.endImplicit(); err != nil {
		c.sendError(toPGError(context.Background(), err))
	}
	c.readyForQuery()
	return nil
}

// runSimple runs one statement of a Query message and sends its rows in
// text format.
func (c *conn) runSimple(st *Statement) error {
	ctx, done := c.statementContext()
	defer done()
	res, err := c.run(ctx, st, nil)
	if err != nil {
		if errors.Is(err, errClientGone) {
			return err
		}
		return shiftPosition(toPGError(ctx, err), st.Offset)
	}
	defer res.Close()
	if st.Kind == KindCopyTo {
		if err := c.copyOut(ctx, st, res); err != nil {
			return shiftPosition(toPGError(ctx, err), st.Offset)
		}
		return nil
	}
	cols := res.Columns()
	if cols != nil {
		c.send(rowDescription(cols, nil))
	}
	src := &rowSource{res: res, cols: cols}
	if _, err := c.stream(ctx, src, 0); err != nil {
		return shiftPosition(toPGError(ctx, err), st.Offset)
	}
	if tag := completeTag(res.Tag(), cols != nil, src.count); tag != "" || cols == nil {
		c.sendComplete(tag)
	}
	return nil
}
