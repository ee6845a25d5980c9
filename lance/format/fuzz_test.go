package format

import "testing"

func FuzzDecodeManifestFile(f *testing.F) {
	good, _ := EncodeManifestFile(sampleManifest(), &Transaction{UUID: "u", ReadVersion: 2, Op: &Delete{DeletedFragmentIDs: []uint64{1}}})
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte("LANC"))
	f.Add(readGolden(f, "lance8-v4-delete.manifest"))
	f.Add(readGolden(f, "lance8-branch-v5-clone.manifest"))
	f.Add(frame([]byte{0x12, 0x80, 0x80, 0x80, 0x80, 0x08}))
	f.Fuzz(func(t *testing.T, b []byte) {
		mf, err := DecodeManifestFile(b)
		if err != nil {
			if !IsCorrupt(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		// whatever decodes must re-encode and decode again
		if _, err := DecodeManifest(mf.Manifest.Encode()); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

func FuzzDecodeTransaction(f *testing.F) {
	for _, op := range []Operation{
		&Append{Fragments: []Fragment{sampleFragment(0)}},
		&Update{NewFragments: []Fragment{sampleFragment(0)}, RemovedFragmentIDs: []uint64{3}},
		&Rewrite{Groups: []RewriteGroup{{OldFragments: []Fragment{sampleFragment(1)}}}},
		&Clone{IsShallow: true, RefName: strp("main")},
		&DataReplacement{Replacements: []DataReplacementGroup{{FragmentID: 3, NewFile: DataFile{Path: "x.lance", Fields: []int32{1}}}}},
		&UpdateConfig{ConfigUpdates: &UpdateMap{Entries: []UpdateMapEntry{{Key: "k", Value: strp("v")}, {Key: "gone"}}}, DeleteKeys: []string{"d"}},
	} {
		f.Add((&Transaction{ReadVersion: 1, UUID: "u", Op: op}).Encode())
	}
	f.Add([]byte{0xa2, 0x06, 0x05, 0x0a})
	f.Add(readGolden(f, "lance8-update.txn"))
	f.Add(readGolden(f, "lance8-rewrite.txn"))
	f.Add(readGolden(f, "lance8-update-config.txn"))
	f.Fuzz(func(t *testing.T, b []byte) {
		txn, err := DecodeTransaction(b)
		if err != nil {
			if !IsCorrupt(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if _, err := DecodeTransaction(txn.Encode()); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
	})
}
