package lance

import (
	"context"
	"errors"
	"testing"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance/format"
)

// TestInteropConflictRules: Lance's UpdateConfig (a field metadata
// update) is decoded and stale Go appends and overwrites rebase over it,
// as Lance's rules allow; a stale Go overwrite over Lance's overwrite is
// a retryable conflict naming it, as Lance 8 itself reports for two
// overwrites.
func TestInteropConflictRules(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	v1, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 50, 50), Options{})
	if err != nil {
		t.Fatal(err)
	}
	app, err := v1.StageAppend(ctx, rowsReader(t, 200, 205, 5), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	over, err := v1.StageOverwrite(ctx, rowsReader(t, 100, 110, 10), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}

	var c oracleCount
	opsOracle(t, &c, "field-metadata", dir, "t", "id", "k", "v")
	if c.Version != 2 {
		t.Fatalf("Lance's metadata update landed at %d", c.Version)
	}
	txn, err := v1.Transaction(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	uc, ok := txn.Op.(*format.UpdateConfig)
	if !ok || len(uc.FieldMetadataUpdates) != 1 || len(uc.FieldMetadataUpdates[0].Update.Entries) != 1 ||
		uc.FieldMetadataUpdates[0].Update.Entries[0].Key != "k" || len(uc.ConfigUpsertKeys()) != 0 {
		t.Fatalf("Lance's UpdateConfig decoded as %T %+v", txn.Op, txn.Op)
	}

	got, err := app.Commit(ctx, CommitOptions{Mode: CommitRebase})
	if err != nil || got.Version() != 3 {
		t.Fatalf("append over UpdateConfig: %v %v", got, err)
	}
	if got, err = over.Commit(ctx, CommitOptions{Mode: CommitRebase}); err != nil || got.Version() != 4 {
		t.Fatalf("overwrite over UpdateConfig and Append: %v %v", got, err)
	}
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t")), idRange(100, 110))

	// two overwrites: Lance's lands first, ours is retryable
	stale, err := got.StageOverwrite(ctx, rowsReader(t, 400, 401, 1), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opsOracle(t, &c, "overwrite", dir, "t", "300", "310")
	_, err = stale.Commit(ctx, CommitOptions{Mode: CommitRebase})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Kind != ConflictRetryable || ce.Version != 5 || ce.Winner == nil || ce.Winner.Op.Kind() != format.OpOverwrite {
		t.Fatalf("overwrite over Lance's overwrite: %v", err)
	}
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t")), idRange(300, 310))
}
