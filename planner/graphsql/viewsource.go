package graphsql

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/exec"
)

// viewCol is one column of a graph view: its PG type and how to read it
// from a row value. get returns nil (NULL), string, int64, bool or
// time.Time (timestamptz).
type viewCol[T any] struct {
	name string
	typ  exec.Type
	get  func(T) any
}

func textCol[T any](name string, get func(T) any) viewCol[T] {
	return viewCol[T]{name: name, typ: exec.TText, get: get}
}
func int8Col[T any](name string, get func(T) any) viewCol[T] {
	return viewCol[T]{name: name, typ: exec.TInt8, get: get}
}
func boolCol[T any](name string, get func(T) any) viewCol[T] {
	return viewCol[T]{name: name, typ: exec.TBool, get: get}
}
func timeCol[T any](name string, get func(T) any) viewCol[T] {
	return viewCol[T]{name: name, typ: exec.TTimestamptz, get: get}
}

// nullIfEmpty maps "" to NULL.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullIfZeroTime maps the zero time to NULL.
func nullIfZeroTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// viewSource is a lazily computed exec.TableSource: nothing is read when
// the catalog is built; each Scan runs rows, which pushes row values
// (it may use the scan's filter hints to skip rows, never to add any)
// (newest first for commits) until it ends or yield returns an error.
// Rows are emitted in pages that grow from firstPage to maxPage, so a
// LIMIT that stops the scan early (the executor's emit error) costs
// O(rows requested), not O(history).
type viewSource[T any] struct {
	cols      []viewCol[T]
	rows      func(ctx context.Context, filters []exec.ScanFilter, yield func(T) error) error
	estimate  int64
	firstPage int
}

const maxPage = 1024

// RowCount implements exec.TableSource (a planning estimate; no I/O).
func (v *viewSource[T]) RowCount() int64 { return v.estimate }

// Scan implements exec.TableSource. Errors returned by emit (including
// the executor's early-stop signal) are returned unchanged.
func (v *viewSource[T]) Scan(ctx context.Context, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	page := v.firstPage
	if page <= 0 {
		page = maxPage
	}
	var buf []T
	var addr uint64
	flush := func() error {
		rec := v.record(buf, req.Columns)
		var addrs []uint64
		if req.NeedAddrs {
			addrs = make([]uint64, len(buf))
			for i := range addrs {
				addrs[i] = addr
				addr++
			}
		}
		buf = buf[:0]
		return emit(rec, addrs)
	}
	err := v.rows(ctx, req.Filters, func(r T) error {
		buf = append(buf, r)
		if len(buf) < page {
			return nil
		}
		page = min(page*4, maxPage)
		return flush()
	})
	if err != nil {
		return err
	}
	if len(buf) > 0 {
		return flush()
	}
	return nil
}

// record builds one Arrow record of the requested columns.
func (v *viewSource[T]) record(rows []T, columns []int) arrow.RecordBatch {
	if len(columns) == 0 {
		// count(*) and friends: rows without columns
		return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, int64(len(rows)))
	}
	defs := make([]exec.ColumnDef, len(columns))
	vecs := make([]*exec.Vec, len(columns))
	for i, c := range columns {
		col := v.cols[c]
		defs[i] = exec.ColumnDef{Name: col.name, Type: col.typ}
		vec := exec.NewVec(col.typ, len(rows))
		for r, row := range rows {
			switch x := col.get(row).(type) {
			case nil:
				vec.SetNull(r)
			case time.Time:
				vec.SetDatum(r, x.UnixMicro())
			case int:
				vec.SetDatum(r, int64(x))
			case uint64:
				vec.SetDatum(r, int64(x))
			default:
				vec.SetDatum(r, x)
			}
		}
		vecs[i] = vec
	}
	return exec.MemTableFromVecs(defs, vecs).Records[0]
}

// ViewKind marks the graph views in exec.TableDef.Kind, so the catalogs
// can show them as views (relkind 'v') rather than tables.
const ViewKind = "view"

// tableDef is the exec relation of a view.
func (v *viewSource[T]) tableDef(oid uint32, name, comment string) *exec.TableDef {
	td := &exec.TableDef{OID: oid, Schema: Schema, Name: name, Comment: comment, Kind: ViewKind, Source: v}
	for _, c := range v.cols {
		td.Columns = append(td.Columns, exec.ColumnDef{Name: c.name, Type: c.typ})
	}
	return td
}
