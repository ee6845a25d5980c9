package graphsql

import (
	"context"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/observe"
)

// ViewProgress lists the process's long operations while they run: COPY
// (also in pg_stat_progress_copy), merges, cleanup and optimize.
const ViewProgress = "progress"

const oidProgress uint32 = 16221

func nullIfZero(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

func progressView() *viewSource[observe.ProgressSnapshot] {
	type p = observe.ProgressSnapshot
	return &viewSource[p]{
		cols: []viewCol[p]{
			{name: "pid", typ: exec.TInt4, get: func(s p) any {
				if s.PID == 0 {
					return nil // background work, not a session's
				}
				return int64(s.PID)
			}},
			textCol("branch", func(s p) any { return nullIfEmpty(s.Database) }),
			textCol("command", func(s p) any { return s.Command }),
			textCol("relation", func(s p) any { return nullIfEmpty(s.Relation) }),
			textCol("phase", func(s p) any { return nullIfEmpty(s.Phase) }),
			int8Col("rows_done", func(s p) any { return s.Rows }),
			int8Col("rows_total", func(s p) any { return nullIfZero(s.TotalRows) }),
			int8Col("bytes_done", func(s p) any { return s.Bytes }),
			int8Col("bytes_total", func(s p) any { return nullIfZero(s.TotalBytes) }),
			int8Col("units_done", func(s p) any { return s.UnitsDone }),
			int8Col("units_total", func(s p) any { return nullIfZero(s.UnitsTotal) }),
			timeCol("started", func(s p) any { return s.Started }),
		},
		estimate: 10,
		rows: func(_ context.Context, _ []exec.ScanFilter, yield func(p) error) error {
			for _, s := range observe.RunningProgress() {
				if err := yield(s); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
