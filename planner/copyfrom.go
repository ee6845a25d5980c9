package planner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// copyBatchRows is how many COPY rows are converted and validated at a
// time.
const copyBatchRows = 8192

// CopyFrom implements wire.Session: COPY t [(cols)] FROM STDIN (text,
// csv, binary). Rows are converted by exec's input functions (binary
// values through their text form), omitted columns get their defaults,
// and every batch passes the same validators as INSERT before it joins
// the pending state. Inside a transaction the rows stay pending until
// COMMIT; in autocommit the COPY is one graph commit (re-validated, not
// re-read, when a concurrent commit moved a table it depends on).
func (s *session) CopyFrom(ctx context.Context, st *wire.Statement, in *wire.CopyIn) (int64, error) {
	if s.readOnly() {
		return 0, wire.Errorf("25006", "cannot execute COPY FROM in a read-only transaction")
	}
	if s.tx != nil && !s.tx.implicit {
		base, err := s.txBase(ctx)
		if err != nil {
			return 0, err
		}
		w := &writer{s: s, v: newView(base, s.tx.pend), ctx: ctx}
		_, n, err := w.copyRows(st, in)
		s.tx.pend.gen++
		return n, err
	}
	_, base, err := s.head(ctx)
	if err != nil {
		return 0, err
	}
	pend := newPendingState()
	w := &writer{s: s, v: newView(base, pend), ctx: ctx}
	batches, n, err := w.copyRows(st, in)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	rc, err := s.g.Write(ctx, adapters.WriteOptions{Branch: base.sn.Branch, Message: s.commitMessage(), MaxReprepare: s.maxReprepare},
		func(ctx context.Context, stage *adapters.Stage) error {
			if snapKey(stage.Base()) != snapKey(base.sn) {
				c, err := s.catalogOf(ctx, stage.Base())
				if err != nil {
					return err
				}
				base, pend = c, newPendingState()
				w := &writer{s: s, v: newView(c, pend), ctx: ctx}
				ti, err := w.copyTarget(st)
				if err != nil {
					return err
				}
				for _, b := range batches {
					if err := w.checkRows(ti, b); err != nil {
						return err
					}
					if err := w.apply(ti, nil, b); err != nil {
						return err
					}
				}
			}
			return flush(stage, pend)
		})
	if err != nil {
		return 0, writeError(err)
	}
	s.committed(rc)
	s.unpin()
	return n, nil
}

func (w *writer) copyTarget(st *wire.Statement) (*tableInfo, error) {
	name := st.Copy.Table
	rv := &sqlparse.RangeVar{Relname: name}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		rv.Schemaname, rv.Relname = name[:i], name[i+1:]
	}
	ti, _, err := w.target(rv)
	return ti, err
}

// copyRows reads the COPY stream into validated pending rows and returns
// the batches (table column order) and the row count.
func (w *writer) copyRows(st *wire.Statement, in *wire.CopyIn) ([][]*exec.Vec, int64, error) {
	ti, err := w.copyTarget(st)
	if err != nil {
		return nil, 0, err
	}
	td := ti.def
	var names []*sqlparse.Node
	for _, c := range st.Copy.Columns {
		names = append(names, &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{Name: c}}})
	}
	targets, err := insertTargets(td, names)
	if err != nil {
		return nil, 0, err
	}
	if err := in.Start(len(targets)); err != nil {
		return nil, 0, err
	}
	binary := in.Options().Format == wire.CopyBinary
	m := pgtype.NewMap()
	var batches [][]*exec.Vec
	var total int64
	rows := make([][]any, 0, copyBatchRows)
	line := 0
	flushBatch := func() error {
		if len(rows) == 0 {
			return nil
		}
		vecs, err := w.copyBatch(ti, targets, rows)
		if err != nil {
			return err
		}
		if err := w.checkRows(ti, vecs); err != nil {
			return err
		}
		if err := w.apply(ti, nil, vecs); err != nil {
			return err
		}
		batches = append(batches, vecs)
		total += int64(len(rows))
		rows = rows[:0]
		return nil
	}
	for {
		fields, err := in.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		line++
		if len(fields) > len(targets) {
			return nil, 0, wire.Errorf("22P04", "extra data after last expected column").WithDetail(fmt.Sprintf("COPY %s, line %d", td.Name, line))
		}
		if len(fields) < len(targets) {
			return nil, 0, wire.Errorf("22P04", "missing data for column \"%s\"", td.Columns[targets[len(fields)]].Name).WithDetail(fmt.Sprintf("COPY %s, line %d", td.Name, line))
		}
		row := make([]any, len(targets))
		for i, f := range fields {
			if f == nil {
				continue
			}
			if !binary {
				row[i] = string(f)
				continue
			}
			txt, err := binaryToText(m, td.Columns[targets[i]].Type, f)
			if err != nil {
				return nil, 0, wire.Errorf("22P03", "invalid binary data for column \"%s\"", td.Columns[targets[i]].Name).WithDetail(fmt.Sprintf("COPY %s, line %d: %v", td.Name, line, err))
			}
			row[i] = txt
		}
		rows = append(rows, row)
		if len(rows) >= copyBatchRows {
			if err := flushBatch(); err != nil {
				return nil, 0, err
			}
		}
	}
	if err := flushBatch(); err != nil {
		return nil, 0, err
	}
	return batches, total, nil
}

// copyBatch converts rows of text values (targets' columns) into column
// vectors in table order; omitted columns get their defaults, evaluated
// per row by exec.
func (w *writer) copyBatch(ti *tableInfo, targets []int, rows [][]any) ([]*exec.Vec, error) {
	td := ti.def
	cols := make([]exec.ColumnDef, len(targets))
	for i, c := range targets {
		cols[i] = exec.ColumnDef{Name: td.Columns[c].Name, Type: td.Columns[c].Type}
	}
	mt, err := exec.NewMemTable(cols, rows)
	if err != nil {
		return nil, toWire(err)
	}
	out := make([]*exec.Vec, len(td.Columns))
	for i, c := range targets {
		v, err := exec.VecFromArrow(mt.Records[0].Column(i), td.Columns[c].Type)
		if err != nil {
			return nil, toWire(err)
		}
		out[c] = v
	}
	var omitted []int
	var items []string
	fill := map[int][]bool{}
	for c, cd := range td.Columns {
		if out[c] != nil {
			continue
		}
		if seqDefault(cd.Default) != "" {
			fill[c] = nil
		}
		if defaultFor(cd) == "NULL" {
			out[c] = exec.NewVec(cd.Type, len(rows))
			for i := range rows {
				out[c].SetNull(i)
			}
			continue
		}
		omitted = append(omitted, c)
		items = append(items, castTo(cd.Default, cd.Type))
	}
	if len(omitted) > 0 {
		vecs, _, err := w.query(fmt.Sprintf("SELECT %s FROM generate_series(1, %d)", strings.Join(items, ", "), len(rows)))
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
