package lance

import (
	"context"

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
}

// StageOperation stages op (whose data and deletion files the caller has
// already written durably) against d's version: it writes the
// transaction file and returns the staged transaction.
func (d *Dataset) StageOperation(ctx context.Context, op format.Operation, opts StageOptions) (*Staged, error) {
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
	err := d.store.PutIfAbsent(ctx, join(d.base(), txnDir, txn.TxnFileName()), txn.Encode())
	if objstore.IsExists(err) {
		return nil, wrapf(ErrInvalidArgument, "transaction %s already staged", id)
	}
	if err != nil {
		return nil, err
	}
	return &Staged{UUID: id, ReadVersion: d.version, Txn: txn, ds: d}, nil
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
