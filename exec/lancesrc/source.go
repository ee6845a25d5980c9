package lancesrc

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
)

// Source is an exec.TableSource over one Lance dataset version.
type Source struct {
	ds   *lance.Dataset
	cols []exec.ColumnDef
	keys []int

	mu    sync.Mutex
	index map[int]map[string][]uint64
}

// New wraps a dataset version. cols must name the dataset's columns (in
// table order); keys lists the columns that may be looked up by key.
func New(ds *lance.Dataset, cols []exec.ColumnDef, keys []int) *Source {
	return &Source{ds: ds, cols: cols, keys: keys}
}

var (
	_ exec.TableSource     = (*Source)(nil)
	_ exec.KeyLookupSource = (*Source)(nil)
)

// RowCount implements exec.TableSource.
func (s *Source) RowCount() int64 { return int64(s.ds.CountRows()) }

// KeyColumns implements exec.KeyLookupSource.
func (s *Source) KeyColumns() []int { return s.keys }

func (s *Source) names(cols []int) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = s.cols[c].Name
	}
	return out
}

// Scan implements exec.TableSource with column pruning.
func (s *Source) Scan(ctx context.Context, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	return s.scan(ctx, lance.ScanOptions{Columns: s.names(req.Columns), WithRowAddress: true}, len(req.Columns), emit)
	// (Lance returns addresses cheaply with the data; they are always passed.)
}

func (s *Source) scan(ctx context.Context, opts lance.ScanOptions, ncols int, emit func(arrow.RecordBatch, []uint64) error) error {
	sc, err := s.ds.Scan(ctx, opts)
	if err != nil {
		return err
	}
	defer sc.Close()
	for {
		rec, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		addrCol, ok := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
		if !ok {
			return exec.ErrSourceShape
		}
		addrs := append([]uint64(nil), addrCol.Uint64Values()...)
		fields := rec.Schema().Fields()[:ncols]
		cols := make([]arrow.Array, ncols)
		for i := range cols {
			cols[i] = rec.Column(i)
		}
		out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
		if err := emit(out, addrs); err != nil {
			return err
		}
	}
}

// LookupKeys implements exec.KeyLookupSource through a per-version hash
// index and a row-address scan.
func (s *Source) LookupKeys(ctx context.Context, column int, keys *exec.Vec, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	idx, err := s.keyIndex(ctx, column)
	if err != nil {
		return err
	}
	var addrs []uint64
	var kb []byte
	for i := 0; i < keys.N; i++ {
		if keys.IsNull(i) {
			continue
		}
		kb = exec.AppendKey(kb[:0], keys, i)
		addrs = append(addrs, idx[string(kb)]...)
	}
	if len(addrs) == 0 {
		return nil
	}
	return s.scan(ctx, lance.ScanOptions{Columns: s.names(req.Columns), WithRowAddress: true, RowAddresses: addrs}, len(req.Columns), emit)
}

func (s *Source) keyIndex(ctx context.Context, column int) (map[string][]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if idx, ok := s.index[column]; ok {
		return idx, nil
	}
	idx := map[string][]uint64{}
	var kb []byte
	err := s.scan(ctx, lance.ScanOptions{Columns: []string{s.cols[column].Name}, WithRowAddress: true}, 1, func(rec arrow.RecordBatch, addrs []uint64) error {
		v, err := exec.VecFromArrow(rec.Column(0), s.cols[column].Type)
		if err != nil {
			return err
		}
		for i := 0; i < v.N; i++ {
			if v.IsNull(i) {
				continue
			}
			kb = exec.AppendKey(kb[:0], v, i)
			idx[string(kb)] = append(idx[string(kb)], addrs[i])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.index == nil {
		s.index = map[int]map[string][]uint64{}
	}
	s.index[column] = idx
	return idx, nil
}
