package adapters

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// chainReader streams several sources one after another, opening each
// only when the previous one is exhausted (bounded memory), with the
// context of the write that reads them (a cancelled write stops them).
type chainReader struct {
	ctx     context.Context
	refs    atomic.Int64
	schema  *arrow.Schema
	sources []Source
	cur     array.RecordReader
	err     error
}

func newChain(ctx context.Context, s *arrow.Schema, sources []Source) *chainReader {
	c := &chainReader{ctx: ctx, schema: s, sources: sources}
	c.refs.Store(1)
	return c
}

func (c *chainReader) Retain() { c.refs.Add(1) }
func (c *chainReader) Release() {
	if c.refs.Add(-1) == 0 && c.cur != nil {
		c.cur.Release()
		c.cur = nil
	}
}
func (c *chainReader) Schema() *arrow.Schema { return c.schema }
func (c *chainReader) Err() error            { return c.err }

func (c *chainReader) Next() bool {
	for c.err == nil {
		if c.cur != nil {
			if c.cur.Next() {
				return true
			}
			if err := c.cur.Err(); err != nil {
				c.err = err
				return false
			}
			c.cur.Release()
			c.cur = nil
		}
		if len(c.sources) == 0 {
			return false
		}
		r, err := c.sources[0](c.ctx)
		c.sources = c.sources[1:]
		if err != nil {
			c.err = err
			return false
		}
		c.cur = r
	}
	return false
}

func (c *chainReader) RecordBatch() arrow.RecordBatch {
	if c.cur == nil {
		return nil
	}
	return c.cur.RecordBatch()
}

// Record is the deprecated alias of RecordBatch.
func (c *chainReader) Record() arrow.RecordBatch { return c.RecordBatch() }
