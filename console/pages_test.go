package console

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/observe"
)

// Every page renders with every optional part present (the browser test
// sees a quiet server: no running operation, no pending intent).
func TestPagesRenderFullData(t *testing.T) {
	now := time.Now()
	pid := int32(7)
	total := int64(4)
	for _, c := range []struct {
		name string
		data any
		want []string
	}{
		{"sessions", sessionsData{
			Sessions:   []activity{{PID: 7, User: "alice", BackendStart: &now, QueryStart: &now, Query: "COPY t FROM STDIN"}},
			Operations: []operation{{PID: &pid, Branch: "main", Command: "COPY FROM", Relation: "t", Phase: "receiving", RowsDone: 2048, BytesDone: 4096, UnitsTotal: &total, Started: now}},
			Slow:       []observe.SlowStatement{{Time: now, PID: 7, User: "alice", Kind: "copy", Duration: 1500 * time.Millisecond, SQLState: "57014"}},
		}, []string{"COPY FROM", "2048", "4.0 KiB", "0 of 4", "1500.0 ms", "57014"}},
		{"recovery", recoveryData{
			Intents:     []intent{{OperationID: "op1", Writer: "mutation", Branch: "main", Phase: "armed", CreatedAt: &now}},
			Audit:       []auditEntry{{Time: now, OperationID: "op0", Decision: "rolled_forward", CommitID: "01ABCDEFGHJKMNPQRS"}},
			LastCleanup: &observe.CleanupRun{Time: now, Mode: "reclaim", Outcome: "ok", DeletedFiles: 3, DeletedBytes: 3 << 20},
		}, []string{"op1", "armed", "rolled_forward", "3 files, 3.0 MiB"}},
		{"commit", &commitDetail{Commit: commit{ID: "c1", Parent: "c0", MergedParent: "d1", Recovery: "rolled_forward", Application: "app", ClientAddr: "10.0.0.1"},
			Changes: []tableChange{{Table: "t", DiffType: "modified", Added: 1, SchemaChange: true}}},
			[]string{"merged parent", "rolled_forward", "10.0.0.1", "yes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := pages.ExecuteTemplate(&buf, c.name, page{Title: c.name, User: "alice", Branch: "main", Nav: c.name, Data: c.data}); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("%s page lacks %q", c.name, w)
				}
			}
		})
	}
}
