package lance

import (
	"context"
	"errors"
	"testing"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/objstore"
)

// txnFiles lists the transaction files stored under root.
func txnFiles(t *testing.T, store objstore.Store, root string) []string {
	t.Helper()
	objs, err := store.List(context.Background(), root+"/"+txnDir+"/")
	if err != nil && !objstore.IsNotFound(err) {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, o.Key)
	}
	return out
}

// TestInlineOnlyTransaction: a dataset whose versions are committed with
// StageOptions.InlineOnly stores no transaction file and names none in
// its manifests, yet every version's transaction reads back (from the
// inline section), lost slots name the winner and a retry finds its own
// version. A plain commit on top still writes its file.
func TestInlineOnlyTransaction(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	inline := StageOptions{InlineOnly: true, Properties: map[string]string{"k": "v1"}}

	// version 1 (a fresh dataset: the StageOverwrite path), version 2
	// (the overlapped OverwriteExact path), version 3 (StageAppend)
	ds, err := New(store, "t.lance", Options{}).OverwriteExact(ctx, rowsReader(t, 0, 10, 10), inline)
	if err != nil {
		t.Fatal(err)
	}
	inline.Properties = map[string]string{"k": "v2"}
	if ds, err = ds.OverwriteExact(ctx, rowsReader(t, 10, 30, 10), inline); err != nil {
		t.Fatal(err)
	}
	inline.Properties = map[string]string{"k": "v3"}
	st, err := ds.StageAppend(ctx, rowsReader(t, 30, 35, 5), inline)
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{Mode: CommitExact}); err != nil {
		t.Fatal(err)
	}
	if files := txnFiles(t, store, "t.lance"); len(files) != 0 {
		t.Fatalf("inline-only commits wrote transaction files %v", files)
	}
	reopened, err := Open(ctx, store, "t.lance", Options{})
	if err != nil || reopened.Version() != 3 {
		t.Fatalf("open: %v %v", reopened, err)
	}
	for v, want := range map[uint64]string{1: "v1", 2: "v2", 3: "v3"} {
		at, err := reopened.Checkout(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		if at.Manifest().TransactionFile != "" {
			t.Fatalf("v%d names transaction file %q", v, at.Manifest().TransactionFile)
		}
		txn, err := reopened.Transaction(ctx, v)
		if err != nil || txn.Properties["k"] != want || txn.ReadVersion != v-1 {
			t.Fatalf("v%d transaction %+v %v", v, txn, err)
		}
	}
	checkRows(t, scanAll(t, reopened, ScanOptions{}), idRange(10, 35))

	// a lost slot: the loser learns the winner's UUID from the inline
	// section; the winner's retry recognises its own version
	a, err := ds.StageAppend(ctx, rowsReader(t, 100, 101, 1), StageOptions{InlineOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ds.StageAppend(ctx, rowsReader(t, 200, 201, 1), StageOptions{InlineOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Commit(ctx, CommitOptions{Mode: CommitExact}); err != nil {
		t.Fatal(err)
	}
	var ce *ConflictError
	if _, err := b.Commit(ctx, CommitOptions{Mode: CommitExact}); !errors.As(err, &ce) || ce.Kind != ConflictLost || ce.WinnerUUID() != a.UUID {
		t.Fatalf("loser: want a conflict naming %s, got %v", a.UUID, err)
	}
	again, err := a.Commit(ctx, CommitOptions{Mode: CommitExact})
	if err != nil || again.Version() != 4 {
		t.Fatalf("winner's retry: %v %v", again, err)
	}
	if files := txnFiles(t, store, "t.lance"); len(files) != 0 {
		t.Fatalf("inline-only commits wrote transaction files %v", files)
	}

	// without the option the file is written, as Lance writes it
	plain, err := again.StageAppend(ctx, rowsReader(t, 300, 301, 1), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := plain.Commit(ctx, CommitOptions{Mode: CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	if files := txnFiles(t, store, "t.lance"); len(files) != 1 || got.Manifest().TransactionFile == "" {
		t.Fatalf("plain commit: files %v, manifest names %q", files, got.Manifest().TransactionFile)
	}
}

// TestInteropInlineOnlyTransactions: the official Lance reads a dataset
// whose versions carry their transaction only inline (no transaction
// file) at every version, lists its versions, commits on top of it, and
// we read Lance's commit and our own transactions after it.
func TestInteropInlineOnlyTransactions(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	opts := StageOptions{InlineOnly: true}
	ds, err := New(store, "i.lance", Options{}).OverwriteExact(ctx, rowsReader(t, 0, 20, 20), opts)
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = ds.OverwriteExact(ctx, rowsReader(t, 20, 40, 20), opts); err != nil {
		t.Fatal(err)
	}
	st, err := ds.StageAppend(ctx, rowsReader(t, 40, 45, 5), opts)
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if files := txnFiles(t, store, "i.lance"); len(files) != 0 {
		t.Fatalf("transaction files %v", files)
	}
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "i", oracle.AtVersion(1))), idRange(0, 20))
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "i", oracle.AtVersion(2))), idRange(20, 40))
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "i")), idRange(20, 45))
	ours, err := ds.ListVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameVersions(t, ours, oracle.Versions(t, dir, "i"))

	oracle.Append(t, dir, "i", oracleRowsFor(idRange(500, 503)))
	if ds, err = ds.Latest(ctx); err != nil || ds.Version() != 4 {
		t.Fatalf("latest after Lance append: %v %v", ds, err)
	}
	checkRows(t, scanAll(t, ds, ScanOptions{}), append(idRange(20, 45), idRange(500, 503)...))
	if txn, err := ds.Transaction(ctx, 4); err != nil || txn.Op.Kind().String() != "Append" {
		t.Fatalf("Lance's transaction: %v %v", txn, err)
	}
	if txn, err := ds.Transaction(ctx, 3); err != nil || txn.UUID != st.UUID {
		t.Fatalf("our inline transaction after Lance's commit: %v %v", txn, err)
	}
}
