package format

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

func u32p(v uint32) *uint32 { return &v }
func u64p(v uint64) *uint64 { return &v }
func strp(s string) *string { return &s }

func sampleFragment(id uint64) Fragment {
	return Fragment{
		ID: id,
		Files: []DataFile{{
			Path: "abc.lance", Fields: []int32{0, 1, -2}, ColumnIndices: []int32{0, 1, -1},
			MajorVersion: 2, MinorVersion: 1, FileSizeBytes: 2283,
		}},
		DeletionFile: &DeletionFile{FileType: DeletionBitmap, ReadVersion: 3, ID: 1089, NumDeletedRows: 2, BaseID: u32p(0)},
		PhysicalRows: 10,
	}
}

func sampleManifest() *Manifest {
	return &Manifest{
		Fields:             [][]byte{{0x12, 0x02, 'i', 'd'}, {0x12, 0x01, 'x', 0x20, 0x00}},
		Fragments:          []Fragment{sampleFragment(0), sampleFragment(3)},
		Version:            4,
		SchemaMetadata:     map[string][]byte{"k": []byte("v"), "empty": {}},
		Timestamp:          time.Unix(1700000000, 123456789).UTC(),
		Tag:                "t",
		ReaderFeatureFlags: 1,
		WriterFeatureFlags: 9,
		MaxFragmentID:      u32p(3),
		TransactionFile:    "3-uuid.txn",
		WriterVersion:      &WriterVersion{Library: "lance-go", Version: "0.1.0", Prerelease: strp("")},
		NextRowID:          0,
		DataFormat:         &DataStorageFormat{FileFormat: "lance", Version: "2.1"},
		Config:             map[string]string{"lance.x": "1"},
		BasePaths:          []BasePath{{ID: 0, IsDatasetRoot: true, Path: "/abs/root"}, {ID: 1, Name: strp("n"), Path: "/b"}},
		TableMetadata:      map[string]string{"a": "b"},
		Branch:             strp("feature/x"),
	}
}

// clearMemo drops the decode memo so reflect.DeepEqual compares content.
func clearMemo(frs []Fragment) {
	for i := range frs {
		frs[i].orig, frs[i].canon = nil, nil
	}
}

func TestManifestRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		m    *Manifest
	}{
		{"empty", &Manifest{}},
		{"full", sampleManifest()},
		{"optional zeros", &Manifest{Version: 1, MaxFragmentID: u32p(0), IndexSection: u64p(0), TransactionSection: u64p(0), Branch: strp("")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.m.Encode()
			got, err := DecodeManifest(b)
			if err != nil {
				t.Fatal(err)
			}
			clearMemo(got.Fragments)
			if !reflect.DeepEqual(normalize(got), normalize(tc.m)) {
				t.Fatalf("round trip mismatch:\n got %+v\nwant %+v", got, tc.m)
			}
			if again := got.Encode(); !bytes.Equal(again, b) {
				t.Fatalf("re-encode differs")
			}
		})
	}
}

// normalize maps nil and empty slices to a single form for DeepEqual.
func normalize(m *Manifest) *Manifest {
	c := *m
	if len(c.Fragments) == 0 {
		c.Fragments = nil
	}
	for i := range c.Fragments {
		for j := range c.Fragments[i].Files {
			if len(c.Fragments[i].Files[j].Unknown) == 0 {
				c.Fragments[i].Files[j].Unknown = nil
			}
		}
	}
	return &c
}

func TestUnknownFieldsPreserved(t *testing.T) {
	// A fragment as a newer writer might emit it: fields out of order,
	// an unpacked repeated field, and unknown fields 5 and 99.
	var fb []byte
	fb = protowire.AppendTag(fb, 4, protowire.VarintType)
	fb = protowire.AppendVarint(fb, 7)
	fb = protowire.AppendTag(fb, 99, protowire.BytesType)
	fb = protowire.AppendString(fb, "future")
	var df []byte
	df = protowire.AppendTag(df, 2, protowire.VarintType) // unpacked
	df = protowire.AppendVarint(df, 0)
	df = protowire.AppendTag(df, 1, protowire.BytesType)
	df = protowire.AppendString(df, "f.lance")
	df = protowire.AppendTag(df, 42, protowire.Fixed32Type)
	df = protowire.AppendFixed32(df, 0xdeadbeef)
	fb = protowire.AppendTag(fb, 2, protowire.BytesType)
	fb = protowire.AppendBytes(fb, df)
	fb = protowire.AppendTag(fb, 1, protowire.VarintType)
	fb = protowire.AppendVarint(fb, 5)
	fb = protowire.AppendTag(fb, 5, protowire.BytesType)
	fb = protowire.AppendBytes(fb, []byte{1, 2, 3})

	var mb []byte
	mb = protowire.AppendTag(mb, 2, protowire.BytesType)
	mb = protowire.AppendBytes(mb, fb)
	mb = protowire.AppendTag(mb, 3, protowire.VarintType)
	mb = protowire.AppendVarint(mb, 9)
	mb = protowire.AppendTag(mb, 77, protowire.VarintType)
	mb = protowire.AppendVarint(mb, 1)

	m, err := DecodeManifest(mb)
	if err != nil {
		t.Fatal(err)
	}
	fr := m.Fragments[0]
	if fr.ID != 5 || fr.PhysicalRows != 7 || fr.Files[0].Path != "f.lance" || len(fr.Files[0].Fields) != 1 {
		t.Fatalf("decoded wrong: %+v", fr)
	}
	if len(fr.Unknown) == 0 || len(fr.Files[0].Unknown) == 0 || len(m.Unknown) == 0 {
		t.Fatal("unknown fields lost")
	}

	t.Run("unchanged fragment is byte-exact", func(t *testing.T) {
		if got := fr.Encode(); !bytes.Equal(got, fb) {
			t.Fatalf("got %x want %x", got, fb)
		}
		m2 := &Manifest{Version: 10, Fragments: []Fragment{fr.Clone()}}
		back, err := DecodeManifest(m2.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.Fragments[0].Encode(), fb) {
			t.Fatal("carried-over fragment not byte-exact")
		}
	})
	t.Run("changed fragment keeps unknown fields", func(t *testing.T) {
		c := fr.Clone()
		c.DeletionFile = &DeletionFile{FileType: DeletionBitmap, ReadVersion: 9, ID: 1, NumDeletedRows: 1}
		got := c.Encode()
		if bytes.Equal(got, fb) {
			t.Fatal("changed fragment encoded as original")
		}
		back, err := DecodeFragment(got)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back.Unknown, fr.Unknown) || !bytes.Equal(back.Files[0].Unknown, fr.Files[0].Unknown) {
			t.Fatal("unknown fields dropped on change")
		}
		if back.DeletionFile == nil || back.DeletionFile.ReadVersion != 9 {
			t.Fatal("change lost")
		}
	})
	t.Run("manifest unknown re-emitted", func(t *testing.T) {
		if !bytes.Contains(m.Encode(), m.Unknown) {
			t.Fatal("manifest unknown not re-emitted")
		}
	})
}

func TestTransactionRoundTrip(t *testing.T) {
	ops := []Operation{
		&Append{Fragments: []Fragment{sampleFragment(0)}},
		&Delete{UpdatedFragments: []Fragment{sampleFragment(2)}, DeletedFragmentIDs: []uint64{1, 5}, Predicate: "id > 3"},
		&Overwrite{Fragments: []Fragment{sampleFragment(0)}, Schema: [][]byte{{0x12, 0x01, 'a'}}, SchemaMetadata: map[string][]byte{"m": []byte("x")}, ConfigUpsert: map[string]string{"c": "d"}, InitialBases: []BasePath{{ID: 2, Path: "p"}}},
		&Update{RemovedFragmentIDs: []uint64{4}, UpdatedFragments: []Fragment{sampleFragment(1)}, NewFragments: []Fragment{sampleFragment(0)}, FieldsModified: []uint32{1}, Mode: UpdateRewriteColumns},
		&Restore{Version: 3},
		&ReserveFragments{NumFragments: 2},
		&Rewrite{Groups: []RewriteGroup{{OldFragments: []Fragment{sampleFragment(1)}, NewFragments: []Fragment{sampleFragment(7)}}}},
		&Merge{Fragments: []Fragment{sampleFragment(1)}, Schema: [][]byte{{0x12, 0x01, 'b'}}},
		&Clone{IsShallow: true, RefName: strp("main"), RefVersion: 2, RefPath: "/x", BranchName: strp("b")},
		&Project{Schema: [][]byte{{0x12, 0x01, 'c'}}},
		&OtherOp{Num: OpCreateIndex, Body: []byte{0x0a, 0x00}},
	}
	for _, op := range ops {
		t.Run(op.Kind().String(), func(t *testing.T) {
			txn := &Transaction{ReadVersion: 3, UUID: "4e3c6266-0000-4000-8000-000000000000", Tag: "tg",
				Properties: map[string]string{"__lance_commit_message": "hi"}, Op: op}
			b := txn.Encode()
			got, err := DecodeTransaction(b)
			if err != nil {
				t.Fatal(err)
			}
			if got.Op == nil || got.Op.Kind() != op.Kind() {
				t.Fatalf("op kind %v", got.Op)
			}
			if !bytes.Equal(got.Encode(), b) {
				t.Fatal("re-encode differs")
			}
			if got.UUID != txn.UUID || got.ReadVersion != 3 || got.Properties["__lance_commit_message"] != "hi" {
				t.Fatalf("header mismatch %+v", got)
			}
			if txn.TxnFileName() != "3-4e3c6266-0000-4000-8000-000000000000.txn" {
				t.Fatal(txn.TxnFileName())
			}
		})
	}
}

func TestTransactionFieldsDecoded(t *testing.T) {
	txn := &Transaction{ReadVersion: 1, UUID: "u", Op: &Delete{DeletedFragmentIDs: []uint64{1, 300}, Predicate: "p",
		UpdatedFragments: []Fragment{sampleFragment(2)}}}
	got, err := DecodeTransaction(txn.Encode())
	if err != nil {
		t.Fatal(err)
	}
	d := got.Op.(*Delete)
	if !reflect.DeepEqual(d.DeletedFragmentIDs, []uint64{1, 300}) || d.Predicate != "p" || d.UpdatedFragments[0].ID != 2 ||
		d.UpdatedFragments[0].DeletionFile.ID != 1089 || *d.UpdatedFragments[0].DeletionFile.BaseID != 0 {
		t.Fatalf("decoded %+v", d)
	}
	if name := d.UpdatedFragments[0].DeletionFile.FileName(2); name != "2-3-1089.bin" {
		t.Fatal(name)
	}
}

func TestManifestFileFraming(t *testing.T) {
	m := sampleManifest()
	txn := &Transaction{ReadVersion: 3, UUID: "u", Op: &Append{}}
	for _, withTxn := range []bool{false, true} {
		var in *Transaction
		if withTxn {
			in = txn
		}
		b, err := EncodeManifestFile(m, in)
		if err != nil {
			t.Fatal(err)
		}
		if string(b[len(b)-4:]) != "LANC" {
			t.Fatal("magic")
		}
		mf, err := DecodeManifestFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if mf.Manifest.Version != 4 || mf.Size != int64(len(b)) {
			t.Fatalf("bad decode %+v", mf)
		}
		if withTxn != (mf.Transaction != nil) {
			t.Fatalf("inline txn presence %v", mf.Transaction)
		}
		if withTxn && (mf.Transaction.UUID != "u" || *mf.Manifest.TransactionSection != 0) {
			t.Fatal("inline txn content")
		}
	}
	if m.TransactionSection != nil {
		t.Fatal("EncodeManifestFile mutated its input")
	}
	idx := *m
	idx.IndexSection = u64p(5)
	if _, err := EncodeManifestFile(&idx, nil); !IsUnsupported(err) {
		t.Fatalf("index section: %v", err)
	}
}

func TestCorruptInputs(t *testing.T) {
	good, _ := EncodeManifestFile(sampleManifest(), &Transaction{UUID: "u", Op: &Append{}})
	cases := map[string][]byte{
		"empty":         {},
		"short":         []byte("LANC"),
		"bad magic":     append(append([]byte{}, good[:len(good)-4]...), 'X', 'X', 'X', 'X'),
		"truncated":     good[len(good)/2:],
		"bad position":  withPos(good, 1<<62),
		"negative pos":  withPos(good, ^uint64(0)),
		"shifted pos":   withPos(good, 1),
		"garbage proto": frame([]byte{0xff, 0xff, 0xff}),
		"wrong type":    frame([]byte{0x18 | 0x02, 0x01, 0x00}), // field 3 as bytes
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := DecodeManifestFile(b); !IsCorrupt(err) {
				t.Fatalf("want corrupt error, got %v", err)
			}
		})
	}
	if _, err := DecodeTransaction([]byte{0xa2, 0x06, 0x05, 0x0a}); !IsCorrupt(err) {
		t.Fatalf("truncated op: %v", err)
	}
}

func withPos(b []byte, pos uint64) []byte {
	c := append([]byte{}, b...)
	p := len(c) - 16
	for i := 0; i < 8; i++ {
		c[p+i] = byte(pos >> (8 * i))
	}
	return c
}

func frame(msg []byte) []byte {
	b := []byte{byte(len(msg)), 0, 0, 0}
	b = append(b, msg...)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
	return append(b, "LANC"...)
}

func TestFlags(t *testing.T) {
	cases := []struct {
		name     string
		m        Manifest
		writable bool
		readable bool
	}{
		{"plain", Manifest{ReaderFeatureFlags: 1, WriterFeatureFlags: 9}, true, true},
		{"branch", Manifest{ReaderFeatureFlags: 16, WriterFeatureFlags: 16}, true, true},
		{"stable row ids", Manifest{ReaderFeatureFlags: 2, WriterFeatureFlags: 2}, false, true},
		{"unknown bit", Manifest{ReaderFeatureFlags: 64}, false, false},
		{"unknown writer bit", Manifest{WriterFeatureFlags: 128}, false, true},
		{"index section", Manifest{IndexSection: u64p(0)}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckWritable(&tc.m)
			if (err == nil) != tc.writable || (err != nil && !IsUnsupported(err)) {
				t.Fatalf("writable: %v", err)
			}
			err = CheckReadable(&tc.m)
			if (err == nil) != tc.readable {
				t.Fatalf("readable: %v", err)
			}
		})
	}
	m := Manifest{Fragments: []Fragment{sampleFragment(1)}, Config: map[string]string{"a": "b"}}
	r, w := ComputeFlags(&m, FlagStableRowIDs)
	if r != FlagDeletionFiles|FlagStableRowIDs || w != r|FlagTableConfig {
		t.Fatalf("flags %d %d", r, w)
	}
}
