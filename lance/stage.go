package lance

import (
	"context"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// Staged is a transaction whose files (data, deletion and the
// transaction file) are durable but which moves no HEAD until Commit.
// A Staged is not safe for concurrent Commits (a rebasing commit may
// replace Txn with its rebased form).
type Staged struct {
	// UUID identifies the transaction (its file is
	// _transactions/{ReadVersion}-{UUID}.txn).
	UUID string
	// ReadVersion is the version the transaction was built against.
	ReadVersion uint64
	// Txn is the transaction; do not modify after staging.
	Txn *format.Transaction
	ds  *Dataset
	// inlineOnly: the transaction lives only in the inline section of
	// the manifest that commits it (StageOptions.InlineOnly).
	inlineOnly bool
}

// StageOptions are optional transaction attributes.
type StageOptions struct {
	// UUID to use (pre-minted by the caller); "" = a fresh random UUID.
	UUID string
	// Properties are stored as transaction_properties.
	Properties map[string]string
	// Tag is copied to the manifest's tag field.
	Tag string
	// MaxRowsPerFile bounds the rows of each new fragment
	// (default DefaultMaxRowsPerFile).
	MaxRowsPerFile uint64
	// MaxBytesPerFile starts a new fragment once a file holds about this
	// many bytes of Arrow data (default DefaultMaxBytesPerFile).
	MaxBytesPerFile int64
	// Config is upserted into the table config by an Overwrite.
	Config map[string]string
	// InlineOnly keeps the transaction only in the inline transaction
	// section of the manifest that commits it: no transaction file is
	// written and the manifest names none (transaction_file is optional
	// in the Lance format; Lance and Dataset.Transaction read the inline
	// section first). It saves a durable file per commit for a dataset
	// whose transactions are only ever read from committed versions,
	// never staged ahead and committed by another process (LoadStaged
	// finds no file). graph.Root uses it for __manifest versions
	// (docs/write-protocol.md §7.6).
	InlineOnly bool
}

// StageOperation stages op (whose data and deletion files the caller has
// already written durably) against d's version: it writes the
// transaction file and returns the staged transaction.
func (d *Dataset) StageOperation(ctx context.Context, op format.Operation, opts StageOptions) (*Staged, error) {
	return d.stageOperationWhile(ctx, op, opts, nil)
}

// stageOperationWhile is StageOperation for an op whose data or deletion
// files are still being stored by pending (nil = none; it gets the
// context its storage calls should use): the transaction
// file is written at the same time, one storage round instead of two.
// Why that is safe: none of these files is referenced by anything until
// Commit publishes a manifest naming them, and Commit needs a Staged,
// which is returned only after both have finished without error; a
// failure of either leaves unreferenced files a cleanup reclaims, as a
// failure between the two sequential writes did. pending is always
// waited for, even when the transaction file fails.
func (d *Dataset) stageOperationWhile(ctx context.Context, op format.Operation, opts StageOptions, pending func(ctx context.Context) error) (*Staged, error) {
	if pending == nil {
		return d.stageTransaction(ctx, op, opts)
	}
	var st *Staged
	var waited atomic.Bool
	err := objstore.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			waited.Store(true)
			return pending(ctx)
		}
		var err error
		st, err = d.stageTransaction(ctx, op, opts)
		return err
	})
	if !waited.Load() {
		// Parallel skipped it (the caller gave up, or the transaction
		// file failed first): pending work must still be waited for
		if perr := pending(ctx); err == nil {
			err = perr
		}
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// stageTransaction writes op's transaction file against d's version.
func (d *Dataset) stageTransaction(ctx context.Context, op format.Operation, opts StageOptions) (*Staged, error) {
	st, err := d.newStaged(op, opts)
	if err != nil {
		return nil, err
	}
	if err := st.writeTxnFile(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

// newStaged builds op's transaction against d's version in memory; its
// file is not written yet (writeTxnFile).
func (d *Dataset) newStaged(op format.Operation, opts StageOptions) (*Staged, error) {
	if d.mf != nil {
		if err := format.CheckWritable(d.mf.Manifest); err != nil {
			return nil, err
		}
	}
	id := opts.UUID
	if id == "" {
		id = uuid.NewString()
	} else if u, err := uuid.Parse(id); err != nil {
		return nil, wrapf(ErrInvalidArgument, "transaction uuid %q: %v", id, err)
	} else {
		id = u.String()
	}
	txn := &format.Transaction{ReadVersion: d.version, UUID: id, Tag: opts.Tag, Properties: opts.Properties, Op: op}
	return &Staged{UUID: id, ReadVersion: d.version, Txn: txn, ds: d, inlineOnly: opts.InlineOnly}, nil
}

// writeTxnFile stores the staged transaction's file (nothing for an
// inline-only transaction: its manifest carries it).
func (s *Staged) writeTxnFile(ctx context.Context) error {
	if s.inlineOnly {
		return nil
	}
	d := s.ds
	// nothing references a staged transaction file before the commit
	// that names it, made after this returns (objstore.PutNew)
	err := objstore.PutNew(ctx, d.store, join(d.base(), txnDir, s.Txn.TxnFileName()), s.Txn.Encode())
	if objstore.IsExists(err) {
		return wrapf(ErrInvalidArgument, "transaction %s already staged", s.UUID)
	}
	return err
}

// StageRestore stages a Restore of version v (its content re-committed
// as a new version).
func (d *Dataset) StageRestore(ctx context.Context, v uint64, opts StageOptions) (*Staged, error) {
	if _, err := d.at(ctx, v); err != nil {
		return nil, err
	}
	return d.StageOperation(ctx, &format.Restore{Version: v}, opts)
}

// Dataset returns the snapshot the transaction was staged against.
func (s *Staged) Dataset() *Dataset { return s.ds }
