package recovery

import (
	"context"
	"encoding/json"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/observe"
)

// AuditRecord is one row of __audit.lance.
type AuditRecord struct {
	Time        time.Time        `json:"time"`
	OperationID string           `json:"operation_id"`
	WriterKind  string           `json:"writer_kind"`
	Branch      string           `json:"branch"`
	Decision    Decision         `json:"decision"`
	Classes     map[string]Class `json:"classes,omitempty"`
	Fenced      bool             `json:"fenced,omitempty"`
	CommitID    string           `json:"commit_id,omitempty"`
	Detail      string           `json:"detail,omitempty"`
	Recoverer   string           `json:"recoverer"`
	// Actor, Application and Client are the recovered write's
	// attribution (who made the commit recovery decided about).
	Actor       string `json:"actor,omitempty"`
	Application string `json:"application,omitempty"`
	Client      string `json:"client,omitempty"`
}

var auditSchema = arrow.NewSchema([]arrow.Field{
	{Name: "time", Type: arrow.BinaryTypes.String},
	{Name: "operation_id", Type: arrow.BinaryTypes.String},
	{Name: "decision", Type: arrow.BinaryTypes.String},
	{Name: "record", Type: arrow.BinaryTypes.String},
}, nil)

// PropAudit carries the record in the audit version's transaction
// properties too, so reading the audit log needs no data-file scan.
const PropAudit = "pggraph.audit"

func (m *Manager) audit(ctx context.Context, sc *Sidecar, rep Report) error {
	rec := AuditRecord{Time: m.opts.Now().UTC(), OperationID: sc.OperationID, WriterKind: string(sc.WriterKind),
		Branch: sc.Branch, Decision: rep.Decision, Classes: rep.Classes, Fenced: rep.Fenced, Detail: rep.Detail,
		Recoverer: m.instance}
	if l := sc.Write.Lineage; l != nil {
		rec.Actor, rec.Application, rec.Client = l.Actor, l.Application, l.Client
	}
	switch rep.Decision {
	case RolledForward, Converged:
		rec.CommitID = sc.Write.Lineage.CommitID
	case RolledBackDec, AlreadyRolled:
		rec.CommitID = sc.Write.Lineage.RollbackCommitID
	}
	observe.RecoveryDecision(rec.OperationID, rec.WriterKind, rec.Branch, string(rec.Decision), rec.CommitID)
	js, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, auditSchema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append(rec.Time.Format(time.RFC3339Nano))
	b.Field(1).(*array.StringBuilder).Append(rec.OperationID)
	b.Field(2).(*array.StringBuilder).Append(string(rec.Decision))
	b.Field(3).(*array.StringBuilder).Append(string(js))
	batch := b.NewRecordBatch()
	defer batch.Release()
	props := map[string]string{PropAudit: string(js)}
	for i := 0; i < 8; i++ {
		rdr, err := array.NewRecordReader(auditSchema, []arrow.RecordBatch{batch})
		if err != nil {
			return err
		}
		ds, err := lance.Open(ctx, m.store, graph.AuditRoot, m.root.DatasetOptions(graph.AuditRoot, "", 0))
		var st *lance.Staged
		switch {
		case lance.IsNotFound(err):
			st, err = lance.New(m.store, graph.AuditRoot, m.root.DatasetOptions(graph.AuditRoot, "", 0)).StageOverwrite(ctx, rdr, lance.StageOptions{Properties: props})
		case err == nil:
			st, err = ds.StageAppend(ctx, rdr, lance.StageOptions{Properties: props})
		}
		rdr.Release()
		if err != nil {
			return err
		}
		if _, err = st.Commit(ctx, lance.CommitOptions{Mode: lance.CommitRebase}); err == nil {
			return nil
		} else if !lance.IsConflict(err) {
			return err
		}
	}
	return nil
}

// ReadAudit returns every audit record, oldest first (the graph.audit
// view). It reads each audit version's inline transaction.
func ReadAudit(ctx context.Context, root *graph.Root) ([]AuditRecord, error) {
	ds, err := lance.Open(ctx, root.Store(), graph.AuditRoot, root.DatasetOptions(graph.AuditRoot, "", 0))
	if lance.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []AuditRecord
	for v := uint64(1); v <= ds.Version(); v++ {
		t, err := ds.Transaction(ctx, v)
		if err != nil {
			return nil, err
		}
		var r AuditRecord
		if err := json.Unmarshal([]byte(t.Properties[PropAudit]), &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
