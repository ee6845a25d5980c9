package format

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

// Files in testdata were written by the official Lance 8.0.0 (see
// lance/testdata/oracle/make_corpus.js).

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGoldenLanceManifests(t *testing.T) {
	t.Run("delete", func(t *testing.T) {
		b := readGolden(t, "lance8-v4-delete.manifest")
		mf, err := DecodeManifestFile(b)
		if err != nil {
			t.Fatal(err)
		}
		m := mf.Manifest
		if m.Version != 4 || len(m.Fragments) != 3 || m.ReaderFeatureFlags != FlagDeletionFiles || *m.MaxFragmentID != 2 ||
			m.WriterVersion.Library != "lance" || m.DataFormat.Version != "2.1" || len(m.Fields) != 2 {
			t.Fatalf("manifest %+v", m)
		}
		d := m.Fragments[2].DeletionFile
		if d == nil || d.FileType != DeletionArrowArray || d.ReadVersion != 3 || d.NumDeletedRows != 2 || d.FileName(2) != "2-3-15497645466473118509.arrow" {
			t.Fatalf("deletion file %+v", d)
		}
		if mf.Transaction == nil || mf.Transaction.Op.Kind() != OpDelete || mf.Transaction.Op.(*Delete).Predicate != "id IN (1, 2, 15) OR id > 27" {
			t.Fatalf("inline transaction %+v", mf.Transaction)
		}
		// full re-encode is byte-exact, and so is the re-framed file body
		pos := binary.LittleEndian.Uint64(b[len(b)-16:])
		if !bytes.Equal(m.Encode(), b[pos+4:len(b)-16]) {
			t.Fatal("manifest re-encode differs")
		}
		again, err := EncodeManifestFile(m, mf.Transaction)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-framed file differs (%v)", err)
		}
		if err := CheckWritable(m); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("branch clone", func(t *testing.T) {
		mf, err := DecodeManifestFile(readGolden(t, "lance8-branch-v5-clone.manifest"))
		if err != nil {
			t.Fatal(err)
		}
		m := mf.Manifest
		if m.Branch == nil || *m.Branch != "feature/x" || len(m.BasePaths) != 1 || !m.BasePaths[0].IsDatasetRoot ||
			m.ReaderFeatureFlags != FlagDeletionFiles|FlagBasePaths || m.Fragments[0].Files[0].BaseID == nil {
			t.Fatalf("branch manifest %+v", m)
		}
		c, ok := mf.Transaction.Op.(*Clone)
		if !ok || !c.IsShallow || c.RefVersion != 5 || c.BranchName == nil || *c.BranchName != "feature/x" {
			t.Fatalf("clone %+v", mf.Transaction.Op)
		}
	})
	t.Run("update txn", func(t *testing.T) {
		b := readGolden(t, "lance8-update.txn")
		txn, err := DecodeTransaction(b)
		if err != nil {
			t.Fatal(err)
		}
		u, ok := txn.Op.(*Update)
		if !ok || txn.ReadVersion != 4 || len(u.UpdatedFragments) != 1 || len(u.NewFragments) != 1 || u.NewFragments[0].ID != 0 || u.Mode != UpdateRewriteRows {
			t.Fatalf("update %+v", txn.Op)
		}
		if !bytes.Equal(txn.Encode(), b) {
			t.Fatal("re-encode differs")
		}
	})
	t.Run("rewrite txn", func(t *testing.T) {
		txn, err := DecodeTransaction(readGolden(t, "lance8-rewrite.txn"))
		if err != nil {
			t.Fatal(err)
		}
		rw, ok := txn.Op.(*Rewrite)
		if !ok || len(rw.Groups) != 1 || len(rw.Groups[0].OldFragments) != 4 || rw.Groups[0].NewFragments[0].ID != 4 {
			t.Fatalf("rewrite %+v", txn.Op)
		}
	})
}
