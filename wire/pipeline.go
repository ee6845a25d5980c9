package wire

import (
	"context"
	"encoding/binary"
)

// Extended-protocol pipelines. PostgreSQL runs every statement between
// two Syncs in one implicit transaction: nothing is committed before the
// Sync, and an error skips to the Sync and rolls all of it back (pgx
// batches, node-postgres pipelining and pgjdbc batches rely on it). wire
// keeps that transaction open until Sync already; the session also needs
// to know, when a statement runs, whether it shares the transaction with
// other statements (then its writes must wait for the Sync) or is alone
// (then it may publish at once, before answering, and retry a lost race
// transparently). InPipeline tells it.
//
// A statement shares the transaction when an earlier statement of the
// same cycle ran, or when the client has already sent another Execute
// before the next Sync. The second is seen without blocking: messageReader
// hands pgproto3 one message at a time, so the bytes after the current
// message stay in its buffer, where aheadExecute scans them. A client
// whose next Execute has not arrived yet is treated as alone for that
// statement (the later ones see the earlier one and wait for Sync).

type pipelineKey struct{}

// InPipeline reports whether the statement running with ctx shares its
// implicit transaction with other statements of an extended-protocol
// pipeline (before Sync). Sessions keep such a statement's writes until
// Commit.
func InPipeline(ctx context.Context) bool {
	v, _ := ctx.Value(pipelineKey{}).(bool)
	return v
}

func withPipeline(ctx context.Context) context.Context {
	return context.WithValue(ctx, pipelineKey{}, true)
}

// aheadExecute reports whether the bytes already received after the
// current message hold an Execute before the next Sync.
func (m *messageReader) aheadExecute() bool {
	buf, _ := m.br.Peek(m.br.Buffered())
	if m.left > 0 && m.msg == nil {
		if m.left >= len(buf) {
			return false
		}
		buf = buf[m.left:]
	}
	for len(buf) >= 5 {
		switch buf[0] {
		case 'E':
			return true
		case 'S', 'Q', 'X':
			return false
		}
		n := int(binary.BigEndian.Uint32(buf[1:5]))
		if n < 4 || 1+n > len(buf) {
			return false
		}
		buf = buf[1+n:]
	}
	return false
}
