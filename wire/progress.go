package wire

import (
	"time"

	"github.com/pggraph/pggraph/observe"
)

// Long COPYs report progress: to pg_stat_progress_copy and graph.progress
// (observe.Progress, read by the catalogs), and, when the session opted
// in with graph.progress_interval, as NOTICE messages at that interval,
// sent and flushed from the session's own goroutine between rows.

// progressCheckRows is how many rows pass between looks at the clock.
const progressCheckRows = 1024

// startCopyProgress registers a COPY of the session.
func (c *conn) startCopyProgress(command string, table string) *observe.Progress {
	return observe.StartProgress(&observe.Progress{PID: int32(c.pid), Database: c.database, Command: command, Relation: table, Type: "PIPE"})
}

// progressRow counts one row of p and sends a progress NOTICE when one is
// due.
func (c *conn) progressRow(p *observe.Progress, rows *int64) {
	*rows++
	if *rows%progressCheckRows != 0 {
		return
	}
	p.AddRows(progressCheckRows, 0)
	if c.settings == nil {
		return
	}
	if interval := c.settings.Duration("graph.progress_interval"); p.NoticeDue(time.Now(), interval) {
		c.noticeNow(&Error{Severity: SeverityNotice, Message: p.Snapshot().Message()})
	}
}

// finishProgressRows adds the rows counted since the last full batch.
func finishProgressRows(p *observe.Progress, rows int64) {
	p.AddRows(rows%progressCheckRows, 0)
}
