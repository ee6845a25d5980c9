package graphsql

import (
	"context"
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/exec"
)

// Staged merges (docs/architecture.md, "Conflicts resolved in SQL"):
// CALL graph.merge(from, strategy => 'stop') inside a transaction block
// stages the merge in the transaction (the session does it: Env.StageMerge)
// and graph.conflicts lists the rows both branches changed. The user
// fixes rows with ordinary SQL; COMMIT publishes the merge once no
// conflict is left, ROLLBACK abandons it.

// mergeStop is graph.merge's staging strategy.
const mergeStop = "stop"

// stagesMerge: the call is graph.merge with strategy 'stop', the one
// procedure call a transaction block admits.
func stagesMerge(f *function, args []*string) bool {
	return f.name == "merge" && len(args) > 2 && args[2] != nil && strings.EqualFold(strings.TrimSpace(*args[2]), mergeStop)
}

func inTransactionHint(f *function) string {
	if f.name == "merge" {
		return "Call it outside a transaction block, or with strategy => 'stop' to stage the merge in this transaction."
	}
	return ""
}

// stageMerge runs graph.merge(…, strategy => 'stop').
func stageMerge(ctx context.Context, env Env, from, into string) (any, error) {
	if !env.InTransaction {
		return nil, errf(CodeNoActiveSQLTransaction, "graph.merge with strategy 'stop' can only be used in transaction blocks").
			WithHint("BEGIN, CALL graph.merge(…, strategy => 'stop'), resolve the rows graph.conflicts lists, then COMMIT.")
	}
	if env.StageMerge == nil {
		return nil, errf(CodeFeatureNotSupported, "graph.merge strategy 'stop' is not supported by this session")
	}
	n, err := env.StageMerge(ctx, from, into)
	if err != nil {
		return nil, sqlError("graph.merge", into, err)
	}
	return fmt.Sprintf("staged: %d conflicting rows", n), nil
}

// Conflict is one row of graph.conflicts: a row of a staged merge both
// branches changed. Key, Base, Ours and Theirs are jsonb texts (""
// = NULL: that side has no such row); Columns names the columns in
// conflict: for a row both branches updated, those both set to
// different values; otherwise those whose values differ between ours
// and theirs.
type Conflict struct {
	ID                      int64
	Table                   string
	Kind                    string
	Key, Base, Ours, Theirs string
	Columns                 []string
}

// ConflictsTable is graph.conflicts over rows (nil: the empty view of a
// session without a staged merge).
func ConflictsTable(rows []Conflict) *exec.TableDef {
	v := &viewSource[Conflict]{
		cols: []viewCol[Conflict]{
			int8Col("id", func(c Conflict) any { return c.ID }),
			textCol("table_name", func(c Conflict) any { return c.Table }),
			textCol("kind", func(c Conflict) any { return c.Kind }),
			jsonbCol("key", func(c Conflict) any { return nullIfEmpty(c.Key) }),
			textCol("columns", func(c Conflict) any { return nullIfEmpty(strings.Join(c.Columns, ", ")) }),
			jsonbCol("base", func(c Conflict) any { return nullIfEmpty(c.Base) }),
			jsonbCol("ours", func(c Conflict) any { return nullIfEmpty(c.Ours) }),
			jsonbCol("theirs", func(c Conflict) any { return nullIfEmpty(c.Theirs) }),
		},
		rows: func(_ context.Context, _ []exec.ScanFilter, yield func(Conflict) error) error {
			for _, r := range rows {
				if err := yield(r); err != nil {
					return err
				}
			}
			return nil
		},
		estimate: int64(len(rows)),
	}
	return v.tableDef(oidConflicts, ViewConflicts, "rows both branches of the merge staged in this transaction changed (graph.merge strategy 'stop')")
}

func jsonbCol[T any](name string, get func(T) any) viewCol[T] {
	return viewCol[T]{name: name, typ: exec.TJSONB, get: get}
}
