package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// copyBatchRows is how many COPY rows are converted and validated at a
// time.
const copyBatchRows = 8192

// CopyFrom implements wire.Session: COPY t [(cols)] FROM STDIN (text,
// csv, binary). Rows are decoded into typed column batches (copyBatch:
// integers, floats and text in place, other types by exec's input
// functions, binary values of other types through their text form),
// omitted columns get their defaults, and every batch passes the same
// constraints as INSERT. Inside a transaction the rows join the pending
// state until COMMIT; in autocommit they stream through the Load adapter
// into staged Lance files while the client sends them (copyReader: a
// decoding goroutine one batch ahead, set-based validation per batch in
// checkCopyRows; bounded memory, no row cap, one graph commit; a
// read-set change after the stream was consumed is 40001, the client
// retries).
func (s *session) CopyFrom(ctx context.Context, st *wire.Statement, in *wire.CopyIn) (int64, error) {
	p, _ := st.Plan.(*plan)
	s.promote(p)
	if s.readOnly() {
		return 0, wire.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute COPY FROM in a read-only transaction")
	}
	if err := s.checkBranchPrivilege(ctx, s.branch(), access.PrivWrite); err != nil {
		return 0, err
	}
	if s.tx != nil && s.tx.implicit && (s.copyFiresTriggers(ctx, st) || s.copyIntoTemp(ctx, st)) {
		// triggers run inside the statement: the rows go the
		// transaction's way and publish, with what the triggers wrote,
		// as one graph commit when the statement ends (as a DO does)
		s.tx.implicit = false
	}
	if s.tx != nil && !s.tx.implicit {
		base, err := s.txBase(ctx)
		if err != nil {
			return 0, err
		}
		w := &writer{s: s, v: newView(base, s.tx.pend), ctx: ctx}
		n, err := w.copyRows(st, in)
		s.tx.pend.bump()
		return n, err
	}
	return s.copyStream(ctx, st, in)
}

func (w *writer) copyTarget(st *wire.Statement) (*tableInfo, error) {
	if err := copyViewError(w.v, st); err != nil {
		return nil, err
	}
	name := st.Copy.Table
	rv := &sqlparse.RangeVar{Relname: name}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		rv.Schemaname, rv.Relname = name[:i], name[i+1:]
	}
	if err := w.s.relationUsage(w.ctx, rv); err != nil {
		return nil, err
	}
	ti, _, err := w.target(rv)
	if err != nil {
		return nil, err
	}
	if err := w.checkCopyFrom(ti.def, st.Copy.Columns); err != nil {
		return nil, err
	}
	return ti, nil
}

// copyRows reads the COPY stream into validated pending rows and returns
// the row count. Each batch joins the pending state as it is read (which
// stages it to disk once the transaction holds enough in memory), so
// nothing here keeps the rows.
func (w *writer) copyRows(st *wire.Statement, in *wire.CopyIn) (int64, error) {
	ti, err := w.copyTarget(st)
	if err != nil {
		return 0, err
	}
	td := ti.def
	targets, err := copyTargets(td, st)
	if err != nil {
		return 0, err
	}
	if err := in.Start(len(targets)); err != nil {
		return 0, err
	}
	rd := newCopyRowReader(in, td, targets, w.s)
	var total int64
	if err := w.fireStatement(ti, "INSERT", true); err != nil {
		return 0, err
	}
	for {
		b, err := rd.next(copyBatchRows)
		if err != nil {
			return 0, err
		}
		if b.n > 0 {
			vecs, err := w.copyVecs(ti, targets, b)
			if err != nil {
				return 0, err
			}
			// BEFORE ROW triggers may change or skip rows (triggers.go)
			keep, err := w.fireRow(ti, "INSERT", true, nil, vecs)
			if err != nil {
				return 0, err
			}
			if keep != nil {
				vecs = gatherVecs(vecs, keep)
			}
			w.copyAt = copyLinesOf(rd, b)
			err = w.checkRows(ti, vecs)
			w.copyAt = nil
			if err != nil {
				return 0, err
			}
			if err := w.apply(ti, nil, vecs); err != nil {
				return 0, err
			}
			if _, err := w.fireRow(ti, "INSERT", false, nil, vecs); err != nil {
				return 0, err
			}
			if len(vecs) > 0 {
				total += int64(vecs[0].N)
			}
		}
		if b.n < copyBatchRows {
			break
		}
	}
	if err := w.fireStatement(ti, "INSERT", false); err != nil {
		return 0, err
	}
	observe.RowsWritten(activityDatabase(w.s.info.Database), td.OID, "INSERT", total)
	return total, nil
}

// copyVecs converts a batch of COPY rows into column vectors in table
// order; omitted columns get their defaults, evaluated per row by exec.
func (w *writer) copyVecs(ti *tableInfo, targets []int, b *copyBatch) ([]*exec.Vec, error) {
	td := ti.def
	tv, err := b.vecs()
	if err != nil {
		return nil, err
	}
	out := make([]*exec.Vec, len(td.Columns))
	for i, c := range targets {
		out[c] = tv[i]
	}
	n := b.n
	var omitted []int
	var items []*sqlparse.Node
	fill := map[int][]bool{}
	for c, cd := range td.Columns {
		if out[c] != nil {
			continue
		}
		if seqDefault(cd.Default) != "" {
			fill[c] = nil
		}
		if w.defaultFor(cd) == "NULL" {
			out[c] = exec.NewVec(cd.Type, n)
			for i := 0; i < n; i++ {
				out[c].SetNull(i)
			}
			continue
		}
		omitted = append(omitted, c)
		def, err := w.defaultNode(cd)
		if err != nil {
			return nil, err
		}
		items = append(items, resTarget(def))
	}
	if len(omitted) > 0 {
		vecs, _, err := w.queryTree(perRow(items, n))
		if err != nil {
			return nil, err
		}
		for i, c := range omitted {
			out[c] = retype(vecs[i], td.Columns[c].Type)
		}
	}
	if err := w.fillSequences(td, out, fill); err != nil {
		return nil, err
	}
	return out, nil
}

// binaryToText decodes a binary COPY value and renders it in the type's
// text form (what exec's input functions read).
func binaryToText(m *pgtype.Map, t exec.Type, b []byte) (string, error) {
	typ, ok := m.TypeForOID(t.OID)
	if !ok {
		return "", fmt.Errorf("binary format of type %s is not supported", t)
	}
	v, err := typ.Codec.DecodeValue(m, t.OID, pgtype.BinaryFormatCode, b)
	if err != nil {
		return "", err
	}
	txt, err := m.Encode(t.OID, pgtype.TextFormatCode, v, nil)
	if err != nil {
		return "", err
	}
	return string(txt), nil
}

// copyStream runs an autocommit COPY through adapters.Graph.Load.
func (s *session) copyStream(ctx context.Context, st *wire.Statement, in *wire.CopyIn) (int64, error) {
	_, head, err := s.head(ctx)
	if err != nil {
		return 0, err
	}
	w0 := &writer{s: s, v: newView(head, newPendingState()), ctx: ctx}
	ti0, err := w0.copyTarget(st)
	if err != nil {
		return 0, err
	}
	targets, err := copyTargets(ti0.def, st)
	if err != nil {
		return 0, err
	}
	if err := in.Start(len(targets)); err != nil {
		return 0, err
	}
	name := ti0.def.Name
	var rdr *copyReader
	src := func(ctx context.Context) (array.RecordReader, error) { return rdr, nil }
	rc, err := s.g.Load(ctx, s.writeOptions(adapters.WriteOptions{Branch: head.sn.Branch, Message: s.commitMessage(), MaxReprepare: s.maxReprepare}), name, src,
		func(ctx context.Context, stage *adapters.Stage) error {
			c, err := s.catalogOf(ctx, stage.Base())
			if err != nil {
				return err
			}
			ti, ok := c.tables[name]
			if !ok {
				return wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
			}
			for _, fk := range ti.def.ForeignKeys {
				if fk.RefTable != name {
					if err := stage.Probe(fk.RefTable); err != nil {
						return err
					}
				}
			}
			w := &writer{s: s, v: newView(c, newPendingState()), ctx: ctx, copySeen: newKeySets()}
			rdr = newCopyReader(w, ti, newCopyRowReader(in, ti.def, targets, s), targets)
			return nil
		})
	if rdr != nil {
		rdr.close()
	}
	if rdr != nil && rdr.err != nil {
		return 0, rdr.err
	}
	if err != nil {
		return 0, writeError(err)
	}
	s.committed(rc)
	s.unpin()
	observe.RowsWritten(activityDatabase(s.info.Database), ti0.def.OID, "INSERT", rdr.n)
	return rdr.n, nil
}

// copyTargets maps COPY's column list to table columns.
func copyTargets(td *exec.TableDef, st *wire.Statement) ([]int, error) {
	var names []*sqlparse.Node
	for _, c := range st.Copy.Columns {
		names = append(names, &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{Name: c}}})
	}
	return insertTargets(td, names, "")
}

// copyFiresTriggers reports a COPY into a table with enabled INSERT
// triggers (which the streaming path cannot fire).
func (s *session) copyFiresTriggers(ctx context.Context, st *wire.Statement) bool {
	_, head, err := s.head(ctx)
	if err != nil {
		return false
	}
	w := &writer{s: s, v: newView(head, newPendingState()), ctx: ctx}
	ti, err := w.copyTarget(st)
	if err != nil {
		return false
	}
	return refuseTriggers(ti, "COPY FROM", "INSERT") != nil
}
