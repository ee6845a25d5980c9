package lance

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"

	"github.com/pggraph/pggraph/lance/file"
	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// DefaultMaxRowsPerFile is where staging starts a new fragment (Lance's
// default too).
const DefaultMaxRowsPerFile = 1 << 20

// DefaultMaxBytesPerFile also starts a new fragment: a data file is
// built in memory before its single Put, so this bounds write memory.
const DefaultMaxBytesPerFile = 256 << 20

// approxBytes is the Arrow buffer footprint of a batch (an upper bound
// for sliced batches), used to cut files by size.
func approxBytes(rec arrow.RecordBatch) int64 {
	var n int64
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			walk(c)
		}
	}
	for _, c := range rec.Columns() {
		walk(c.Data())
	}
	return n
}

// newDataFileName makes a unique data file name the way Lance shapes it:
// the first 3 bytes of a random UUID as 24 '0'/'1' characters, then the
// other 13 bytes in hex.
func newDataFileName() string {
	u := uuid.New()
	var b strings.Builder
	for _, x := range u[:3] {
		fmt.Fprintf(&b, "%08b", x)
	}
	b.WriteString(hex.EncodeToString(u[3:]))
	b.WriteString(".lance")
	return b.String()
}

// writeFragments streams the reader's batches into new data files under
// this branch's data/ directory, starting a new file (fragment) at
// maxRows rows or about maxBytes of Arrow data, whichever comes first,
// splitting batches as needed. Files are built in memory (the store's
// Put takes whole objects) and stored by background workers while the
// next file is encoded, so encoding overlaps the writes and fsyncs of
// the previous files; at most putWorkers+1 files are in memory (those
// being stored, the one being built), however long the stream, and
// their buffers are reused from file to file. Fragment ids are left 0
// (assigned at commit).
func (d *Dataset) writeFragments(ctx context.Context, rdr array.RecordReader, sch *arrow.Schema, fields []schema.Field, maxRows uint64, maxBytes int64) ([]format.Fragment, error) {
	frags, wait, err := d.writeFragmentsAsync(ctx, rdr, sch, fields, maxRows, maxBytes, true)
	if err != nil {
		return nil, err
	}
	if err := wait(ctx); err != nil {
		return nil, err
	}
	return frags, nil
}

// writeFragmentsAsync is writeFragments that returns as soon as every
// file is built and handed to the put workers: wait lets the last Puts
// finish and returns the first failure. The files' metadata (the
// fragments) is final before they are stored, so the caller can write
// the transaction file while they are (stageOperationWhile). On success
// the caller must call wait exactly once; on error nothing is pending.
// sch must be schema.ToArrow(fields) (every caller derives it so: a
// dataset's schema, or an overwrite's new one). keep lets small files'
// rows be remembered for WrittenColumn (appends, updates, compaction:
// rows a key index reads next; not a whole-table overwrite).
func (d *Dataset) writeFragmentsAsync(ctx context.Context, rdr array.RecordReader, sch *arrow.Schema, fields []schema.Field, maxRows uint64, maxBytes int64, keep bool) (_ []format.Fragment, wait func(context.Context) error, err error) {
	if maxRows == 0 {
		maxRows = DefaultMaxRowsPerFile
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytesPerFile
	}
	if err := sameColumns(rdr.Schema(), sch); err != nil {
		return nil, nil, err
	}
	pw := newPutPipeline(ctx, d.store)
	defer func() {
		if err != nil {
			pw.close()
		}
	}()
	var bytesInFile int64
	var frags []format.Fragment
	var w *file.Writer
	var buf *fileBuffer
	var name string
	var rows uint64
	// single is the file's one batch while it has only one, small enough
	// for writtenFiles (retained until finish)
	var single arrow.RecordBatch
	var parts int
	dropSingle := func() {
		if single != nil {
			single.Release()
			single = nil
		}
	}
	defer dropSingle()
	finish := func() error {
		if w == nil {
			return nil
		}
		res, err := w.Close(ctx)
		w = nil
		if err != nil {
			return err
		}
		// a data file has a fresh unique name, so a plain Put is safe
		key := join(d.base(), dataDir, name)
		if err := pw.put(key, buf); err != nil {
			return err
		}
		buf = nil
		if single != nil && parts == 1 {
			writtenFiles.remember(d.store, key, fields, single)
		}
		dropSingle()
		frags = append(frags, format.Fragment{
			PhysicalRows: res.NumRows,
			Files: []format.DataFile{{
				Path: name, Fields: res.FieldIDs, ColumnIndices: res.ColumnIndices,
				MajorVersion: res.Major, MinorVersion: res.Minor, FileSizeBytes: res.Size,
			}},
		})
		return nil
	}
	defer func() {
		if w != nil {
			w.Abort()
		}
	}()
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for off := int64(0); off < rec.NumRows(); {
			if w == nil {
				name = newDataFileName()
				var err error
				if buf, err = pw.buffer(2 * approxBytes(rec)); err != nil {
					return nil, nil, err
				}
				// the size a full file of such rows would take (capped by
				// the byte budget): the buffer grows straight to it once
				// the file is big enough to make that likely
				if per := approxBytes(rec); rec.NumRows() > 0 {
					buf.expect = min(maxBytes, per*int64(maxRows)/rec.NumRows()) * 9 / 8
				}
				w, err = file.NewStreamWriter(buf, sch, file.WriterOptions{Fields: fields, ArrowFromFields: true})
				if err != nil {
					return nil, nil, err
				}
				rows, bytesInFile, parts = 0, 0, 0
			}
			n := min(rec.NumRows()-off, int64(maxRows-rows))
			// a batch larger than the byte budget is split too, so a
			// file never holds much more than maxBytes of Arrow data
			if per := approxBytes(rec); per > 0 && rec.NumRows() > 0 {
				fit := (maxBytes - bytesInFile) * rec.NumRows() / per
				n = min(n, max(fit, 1))
			}
			part := rec
			if off != 0 || n != rec.NumRows() {
				part = rec.NewSlice(off, off+n)
			}
			err := w.Write(part)
			if parts++; keep && parts == 1 && n <= writtenMaxRows && approxBytes(part) <= writtenMaxBytes {
				part.Retain()
				single = part
			} else {
				dropSingle()
			}
			if part != rec {
				part.Release()
			}
			if err != nil {
				return nil, nil, err
			}
			off += n
			rows += uint64(n)
			if rec.NumRows() > 0 {
				bytesInFile += approxBytes(rec) * n / rec.NumRows()
			}
			if rows >= maxRows || bytesInFile >= maxBytes {
				if err := finish(); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if err := rdr.Err(); err != nil {
		return nil, nil, err
	}
	if err := finish(); err != nil {
		return nil, nil, err
	}
	return frags, func(context.Context) error { return pw.wait() }, nil
}

// sameColumns checks that batches of schema got fit a dataset of want:
// same column names and types, in order (metadata is ignored).
func sameColumns(got, want *arrow.Schema) error {
	if got.NumFields() != want.NumFields() {
		return wrapf(ErrInvalidArgument, "batches have %d columns, dataset has %d", got.NumFields(), want.NumFields())
	}
	for i := range want.Fields() {
		g, w := got.Field(i), want.Field(i)
		if g.Name != w.Name || !arrow.TypeEqual(g.Type, w.Type) {
			return wrapf(ErrInvalidArgument, "column %d is %s %s, dataset has %s %s", i, g.Name, g.Type, w.Name, w.Type)
		}
		if g.Nullable && !w.Nullable {
			// allowed: the writer rejects actual nulls in a non-nullable column
			continue
		}
	}
	return nil
}

// checkDataFormat refuses to add 2.1 data files to a dataset of another
// data storage version (Lance forbids mixing file versions).
func (d *Dataset) checkDataFormat() error {
	df := d.Manifest().DataFormat
	if df != nil && df.Version != DataStorageVersion {
		return &format.UnsupportedError{Feature: "data storage version " + df.Version + " (we write " + DataStorageVersion + ")"}
	}
	for i := range d.Fragments() {
		for _, f := range d.Fragments()[i].Files {
			if f.MajorVersion != 2 || f.MinorVersion != 1 {
				return &format.UnsupportedError{Feature: fmt.Sprintf("data files of version %d.%d (we write %s)", f.MajorVersion, f.MinorVersion, DataStorageVersion)}
			}
		}
	}
	return nil
}

// StageAppend writes the reader's rows as new fragments and stages an
// Append against d's version.
func (d *Dataset) StageAppend(ctx context.Context, rdr array.RecordReader, opts StageOptions) (*Staged, error) {
	if err := d.checkWritable(); err != nil {
		return nil, err
	}
	if err := d.checkDataFormat(); err != nil {
		return nil, err
	}
	frags, wait, err := d.writeFragmentsAsync(ctx, rdr, d.schema, d.fields, opts.MaxRowsPerFile, opts.MaxBytesPerFile, true)
	if err != nil {
		return nil, err
	}
	// the transaction file is written while the last data files are
	return d.stageOperationWhile(ctx, &format.Append{Fragments: frags}, opts, wait)
}

// StageOverwrite writes the reader's rows as the new content (and
// schema) of the dataset and stages an Overwrite; on a New handle this
// creates the dataset. Every field gets the lance-encoding metadata that
// keeps later Lance writers on plain encodings (schema.WithPlainEncoding).
func (d *Dataset) StageOverwrite(ctx context.Context, rdr array.RecordReader, opts StageOptions) (*Staged, error) {
	op, wait, err := d.overwriteAsync(ctx, rdr, opts)
	if err != nil {
		return nil, err
	}
	return d.stageOperationWhile(ctx, op, opts, wait)
}

// OverwriteExact stages an Overwrite with rdr's rows and commits it
// exactly at the next version (CommitExact), in two durable rounds
// instead of three: the data and transaction files are written while
// the manifest is built and its put prepared (on a local store, written
// and fsynced under a staging name), and the manifest is published only
// after every file it references is durable (objstore.PutIfAbsentAfter);
// if any fails, nothing is published. A lost slot is a *ConflictError
// as with Commit (the files stay unreferenced). Why: the graph
// manifest's commit (graph.Root.Publish) is on every write's
// acknowledgement path.
func (d *Dataset) OverwriteExact(ctx context.Context, rdr array.RecordReader, opts StageOptions) (*Dataset, error) {
	if d.version == 0 {
		st, err := d.StageOverwrite(ctx, rdr, opts)
		if err != nil {
			return nil, err
		}
		return st.Commit(ctx, CommitOptions{Mode: CommitExact})
	}
	op, wait, err := d.overwriteAsync(ctx, rdr, opts)
	if err != nil {
		return nil, err
	}
	st, err := d.newStaged(op, opts)
	if err != nil {
		_ = wait(ctx)
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		// the files are always waited for, even if the put gives up
		done <- objstore.Parallel(context.WithoutCancel(ctx), 2, 2, func(pctx context.Context, i int) error {
			if i == 0 {
				return wait(pctx)
			}
			return st.writeTxnFile(pctx)
		})
	}()
	var once sync.Once
	var filesErr error
	files := func() error {
		once.Do(func() { filesErr = <-done })
		return filesErr
	}
	nd, err := st.commitExactAfter(ctx, files)
	if ferr := files(); err == nil && ferr != nil {
		return nil, ferr // not reached: the put waits for the files
	}
	return nd, err
}

// overwriteAsync starts writing rdr's rows as new data files and returns
// the Overwrite naming them and the wait for their storage.
func (d *Dataset) overwriteAsync(ctx context.Context, rdr array.RecordReader, opts StageOptions) (format.Operation, func(context.Context) error, error) {
	if d.mf != nil {
		if err := format.CheckWritable(d.mf.Manifest); err != nil {
			return nil, nil, err
		}
	}
	sch := schema.WithPlainEncoding(rdr.Schema())
	fields, encoded, err := lanceFields(sch)
	if err != nil {
		return nil, nil, err
	}
	// the writer wants the same Arrow schema the dataset will report
	dsSchema, err := schema.ToArrow(fields)
	if err != nil {
		return nil, nil, err
	}
	frags, wait, err := d.writeFragmentsAsync(ctx, rdr, dsSchema, fields, opts.MaxRowsPerFile, opts.MaxBytesPerFile, false)
	if err != nil {
		return nil, nil, err
	}
	var md map[string][]byte
	if m := sch.Metadata(); m.Len() > 0 {
		md = map[string][]byte{}
		for i, k := range m.Keys() {
			md[k] = []byte(m.Values()[i])
		}
	}
	return &format.Overwrite{Fragments: frags, Schema: encoded, SchemaMetadata: md, ConfigUpsert: opts.Config}, wait, nil
}

// StageUpdate stages an Update that rewrites rows: the rows at addrs are
// deleted (new deletion files; fragments left empty are removed) and the
// reader's rows are added as new fragments.
func (d *Dataset) StageUpdate(ctx context.Context, addrs []uint64, rdr array.RecordReader, opts StageOptions) (*Staged, error) {
	if err := d.checkWritable(); err != nil {
		return nil, err
	}
	if err := d.checkDataFormat(); err != nil {
		return nil, err
	}
	plan, err := d.planDeletionFiles(ctx, addrs)
	if err != nil {
		return nil, err
	}
	frags, wait, err := d.writeFragmentsAsync(ctx, rdr, d.schema, d.fields, opts.MaxRowsPerFile, opts.MaxBytesPerFile, true)
	if err != nil {
		return nil, err
	}
	// the deletion files, the data files and the transaction file in
	// one round: none is referenced before the commit that names them
	return d.stageOperationWhile(ctx, &format.Update{
		RemovedFragmentIDs: plan.removed,
		UpdatedFragments:   plan.updated,
		NewFragments:       frags,
		Mode:               format.UpdateRewriteRows,
	}, opts, func(ctx context.Context) error { return plan.storeWhile(ctx, d, wait) })
}

// Create creates a dataset at root from the reader's rows (version 1,
// committed exactly: an existing dataset is a conflict).
func Create(ctx context.Context, store objstore.Store, root string, rdr array.RecordReader, opts Options) (*Dataset, error) {
	st, err := New(store, root, opts).StageOverwrite(ctx, rdr, StageOptions{})
	if err != nil {
		return nil, err
	}
	return st.Commit(ctx, CommitOptions{Mode: CommitExact})
}
