package lance

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/lance/format"
)

// ErrNothingToCompact: no fragment of the version is worth rewriting.
var ErrNothingToCompact = errors.New("lance: nothing to compact")

// CompactOptions choose what a compaction rewrites.
type CompactOptions struct {
	// TargetRowsPerFragment: a fragment with fewer physical rows (or
	// with deleted rows) is a candidate (default DefaultMaxRowsPerFile).
	TargetRowsPerFragment uint64
	// MaterializeDeletionsThreshold: a fragment of at least the target
	// size is a candidate when this fraction of its rows is deleted
	// (Lance's materialize_deletions_threshold, 0.1 by default there;
	// here 0 = any deletion). Background compaction sets it: else every
	// run rewrites a large table whose rows are updated one at a time
	// (each update deletes a row of its big fragment).
	MaterializeDeletionsThreshold float64
	// SmallBelow, when not 0, makes only a fragment of fewer physical
	// rows than this a candidate for its size (deletions still make any
	// fragment one): background compaction gathers small fragments
	// without rewriting, each time, a large fragment they sit next to
	// (a 100,000-row table updated one row at a time gains a 1-row
	// fragment per commit; merging those must not rewrite the table).
	SmallBelow uint64
	// Fragments, when not nil, limits the candidates to these fragment
	// ids: a background compaction rewrites only the fragments whose
	// rows it reserved against this process's row locks (a row's
	// address changes only when its fragment is rewritten).
	Fragments map[uint64]bool
}

// candidate reports whether fragment f is worth rewriting: fewer rows
// than target, or enough deleted rows (a deletion file with an unknown
// count counts as enough).
func (o CompactOptions) candidate(f *format.Fragment, target uint64) bool {
	if o.Fragments != nil && !o.Fragments[f.ID] {
		return false
	}
	if f.PhysicalRows < target && (o.SmallBelow == 0 || f.PhysicalRows < o.SmallBelow) {
		return true
	}
	df := f.DeletionFile
	if df == nil {
		return false
	}
	if o.MaterializeDeletionsThreshold <= 0 || df.NumDeletedRows == 0 || f.PhysicalRows == 0 {
		return true
	}
	return float64(df.NumDeletedRows) >= o.MaterializeDeletionsThreshold*float64(f.PhysicalRows)
}

// compactionGroups returns runs of adjacent candidate fragments (in
// manifest order) worth rewriting, as Lance plans them: a run of two or
// more candidates (CompactOptions.candidate), or one carrying deletions.
func compactionGroups(frags []format.Fragment, target uint64, o CompactOptions) [][]format.Fragment {
	var groups [][]format.Fragment
	var run []format.Fragment
	flush := func() {
		worth := len(run) > 1 || (len(run) == 1 && run[0].DeletionFile != nil)
		if worth {
			groups = append(groups, run)
		}
		run = nil
	}
	for i := range frags {
		f := frags[i]
		if o.candidate(&f, target) {
			run = append(run, f.Clone())
			continue
		}
		flush()
	}
	flush()
	return groups
}

// CompactionCandidates returns how many fragments StageCompaction would
// rewrite at this version (0: nothing to compact). It reads no file.
func (d *Dataset) CompactionCandidates(copts CompactOptions) int {
	target := copts.TargetRowsPerFragment
	if target == 0 {
		target = DefaultMaxRowsPerFile
	}
	n := 0
	for _, g := range compactionGroups(d.Fragments(), target, copts) {
		n += len(g)
	}
	return n
}

// CompactionFragments returns the ids of the fragments StageCompaction
// would rewrite at this version (none: nothing to compact). It reads no
// file.
func (d *Dataset) CompactionFragments(copts CompactOptions) []uint64 {
	target := copts.TargetRowsPerFragment
	if target == 0 {
		target = DefaultMaxRowsPerFile
	}
	var ids []uint64
	for _, g := range compactionGroups(d.Fragments(), target, copts) {
		for i := range g {
			ids = append(ids, g[i].ID)
		}
	}
	return ids
}

// StageCompaction stages a Rewrite (Lance compaction) against d's
// version: each group of adjacent small or deletion-carrying fragments
// is read (live rows only, so deletion vectors are materialized away)
// and written as new fragments of up to TargetRowsPerFragment rows. The
// Rewrite carries the old fragments' full messages and the new ones with
// id 0 (assigned at commit, which replaces each group in place). The
// rows are unchanged; their addresses change. ErrNothingToCompact when no
// group is worth rewriting.
func (d *Dataset) StageCompaction(ctx context.Context, copts CompactOptions, opts StageOptions) (*Staged, error) {
	if err := d.checkWritable(); err != nil {
		return nil, err
	}
	if err := d.checkDataFormat(); err != nil {
		return nil, err
	}
	target := copts.TargetRowsPerFragment
	if target == 0 {
		target = DefaultMaxRowsPerFile
	}
	groups := compactionGroups(d.Fragments(), target, copts)
	if len(groups) == 0 {
		return nil, ErrNothingToCompact
	}
	op := &format.Rewrite{}
	for _, g := range groups {
		ids := make(map[uint64]bool, len(g))
		for i := range g {
			ids[g[i].ID] = true
		}
		// small fragments this process wrote are read from memory
		// (written.go), the others are scanned
		rdr, ok := d.writtenReader(ids)
		if !ok {
			sc, err := d.Scan(ctx, ScanOptions{FragmentFilter: func(f *format.Fragment) bool { return ids[f.ID] }})
			if err != nil {
				return nil, err
			}
			rdr = &scanReader{ctx: ctx, sc: sc, refs: 1}
		}
		frags, err := d.writeFragments(ctx, rdr, d.schema, d.fields, target, opts.MaxBytesPerFile)
		rdr.Release()
		if err != nil {
			return nil, err
		}
		op.Groups = append(op.Groups, format.RewriteGroup{OldFragments: g, NewFragments: frags})
	}
	return d.StageOperation(ctx, op, opts)
}

// scanReader adapts a Scanner to array.RecordReader (the writer's input).
type scanReader struct {
	ctx  context.Context
	sc   *Scanner
	cur  arrow.RecordBatch
	err  error
	refs int64
}

func (r *scanReader) Retain() { atomic.AddInt64(&r.refs, 1) }

func (r *scanReader) Release() {
	if atomic.AddInt64(&r.refs, -1) == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.sc.Close()
	}
}

func (r *scanReader) Schema() *arrow.Schema { return r.sc.Schema() }

func (r *scanReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	rec, err := r.sc.Next(r.ctx)
	if err == io.EOF {
		return false
	}
	if err != nil {
		r.err = err
		return false
	}
	r.cur = rec
	return true
}

func (r *scanReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch (the interface still requires the old name).
func (r *scanReader) Record() arrow.RecordBatch { return r.cur }

func (r *scanReader) Err() error { return r.err }
