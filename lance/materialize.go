package lance

import (
	"context"

	"github.com/google/uuid"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// Preview returns the version the staged transaction would commit at
// read_version+1, built in memory exactly as Commit builds it; nothing is
// written. The graph's commit path publishes a table's next pin (row
// count, fragments) from it before the version exists, and materializes
// the version after the graph commit (docs/architecture.md, "Commit path
// v2"). The handle is never cached as a committed version: the manifest
// it describes may not exist yet.
func (s *Staged) Preview(ctx context.Context) (*Dataset, error) {
	next := s.ReadVersion + 1
	m, err := s.buildManifest(ctx, s.ds, next)
	if err != nil {
		return nil, err
	}
	return s.ds.withManifest(next, publishedManifest(m, s.Txn, 0))
}

// LoadStaged returns the transaction with the given UUID that was staged
// against d's version (its file _transactions/{version}-{uuid}.txn), ready
// to Commit. A missing file is ErrVersionNotFound-shaped (IsNotFound).
func (d *Dataset) LoadStaged(ctx context.Context, txnUUID string) (*Staged, error) {
	u, err := uuid.Parse(txnUUID)
	if err != nil {
		return nil, wrapf(ErrInvalidArgument, "transaction uuid %q: %v", txnUUID, err)
	}
	name := (&format.Transaction{ReadVersion: d.version, UUID: u.String()}).TxnFileName()
	b, err := d.store.Get(ctx, join(d.base(), txnDir, name))
	if objstore.IsNotFound(err) {
		return nil, wrapf(ErrVersionNotFound, "staged transaction %s of version %d is missing under %s", u, d.version, d.base())
	}
	if err != nil {
		return nil, err
	}
	txn, err := format.DecodeTransaction(b)
	if err != nil {
		return nil, err
	}
	if txn.UUID != u.String() || txn.ReadVersion != d.version {
		return nil, wrapf(ErrCorrupt, "transaction file %s holds transaction %s of version %d", name, txn.UUID, txn.ReadVersion)
	}
	return &Staged{UUID: txn.UUID, ReadVersion: d.version, Txn: txn, ds: d}, nil
}
