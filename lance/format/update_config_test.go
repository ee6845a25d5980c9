package format

import (
	"bytes"
	"fmt"
	"testing"
)

// TestGoldenLanceUpdateConfig decodes the UpdateConfig Lance 8 writes for
// updateFieldMetadata (fields 9, wire order kept) and re-encodes it
// byte-exact.
func TestGoldenLanceUpdateConfig(t *testing.T) {
	b := readGolden(t, "lance8-update-config.txn")
	txn, err := DecodeTransaction(b)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := txn.Op.(*UpdateConfig)
	if !ok {
		t.Fatalf("op %T", txn.Op)
	}
	got := fmt.Sprint(len(o.FieldMetadataUpdates))
	for _, u := range o.FieldMetadataUpdates {
		got += fmt.Sprintf(" field %d replace=%v", u.FieldID, u.Update.Replace)
		for _, e := range u.Update.Entries {
			v := "<delete>"
			if e.Value != nil {
				v = *e.Value
			}
			got += fmt.Sprintf(" %s=%s", e.Key, v)
		}
	}
	if want := "2 field 1 replace=true a=b field 0 replace=false k=v gone=<delete>"; got != want {
		t.Fatalf("decoded %q, want %q", got, want)
	}
	if o.ConfigUpdates != nil || len(o.ConfigUpsertKeys()) != 0 || len(o.ConfigDeleteKeys()) != 0 || len(o.Unknown) != 0 {
		t.Fatalf("config part %+v", o)
	}
	if !bytes.Equal(txn.Encode(), b) {
		t.Fatal("re-encode differs")
	}
}

func TestUpdateConfigKeys(t *testing.T) {
	cases := []struct {
		name            string
		op              *UpdateConfig
		upsert, deleted string
	}{
		{"empty", &UpdateConfig{}, "[]", "[]"},
		{"config updates", &UpdateConfig{ConfigUpdates: &UpdateMap{Entries: []UpdateMapEntry{
			{Key: "b", Value: strp("1")}, {Key: "a", Value: strp("")}, {Key: "gone"},
		}}}, "[a b]", "[gone]"},
		{"replace keeps keys", &UpdateConfig{ConfigUpdates: &UpdateMap{Replace: true, Entries: []UpdateMapEntry{{Key: "x", Value: strp("y")}}}}, "[x]", "[]"},
		{"deprecated fields", &UpdateConfig{UpsertValues: map[string]string{"u": "1"}, DeleteKeys: []string{"d"}}, "[u]", "[d]"},
		{"both forms", &UpdateConfig{UpsertValues: map[string]string{"u": "1"}, ConfigUpdates: &UpdateMap{Entries: []UpdateMapEntry{{Key: "u", Value: strp("2")}, {Key: "v"}}}}, "[u]", "[v]"},
		{"metadata only", &UpdateConfig{
			TableMetadataUpdates:  &UpdateMap{Entries: []UpdateMapEntry{{Key: "t", Value: strp("1")}}},
			SchemaMetadataUpdates: &UpdateMap{Entries: []UpdateMapEntry{{Key: "s"}}},
			FieldMetadataUpdates:  []FieldMetadataUpdate{{FieldID: -1, Update: UpdateMap{Replace: true}}},
		}, "[]", "[]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(tc.op.ConfigUpsertKeys()); got != tc.upsert {
				t.Fatalf("upsert keys %s, want %s", got, tc.upsert)
			}
			if got := fmt.Sprint(tc.op.ConfigDeleteKeys()); got != tc.deleted {
				t.Fatalf("delete keys %s, want %s", got, tc.deleted)
			}
			// round trip through the wire keeps everything
			txn := &Transaction{ReadVersion: 3, UUID: "u", Op: tc.op}
			back, err := DecodeTransaction(txn.Encode())
			if err != nil {
				t.Fatal(err)
			}
			bo := back.Op.(*UpdateConfig)
			if fmt.Sprint(bo.ConfigUpsertKeys(), bo.ConfigDeleteKeys()) != fmt.Sprint(tc.op.ConfigUpsertKeys(), tc.op.ConfigDeleteKeys()) ||
				!bytes.Equal(back.Encode(), txn.Encode()) {
				t.Fatalf("round trip %+v", bo)
			}
		})
	}
}

func TestUpdateConfigCorrupt(t *testing.T) {
	cases := map[string][]byte{
		"truncated map":   {0x32, 0x05, 0x0a},
		"entry bad key":   {0x32, 0x03, 0x0a, 0x01, 0x08},
		"field id string": {0x4a, 0x03, 0x0a, 0x01, 'x'},
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			txn := append([]byte{0xf2, 0x06, byte(len(body))}, body...) // field 110
			if _, err := DecodeTransaction(txn); !IsCorrupt(err) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestDataReplacementRoundTrip(t *testing.T) {
	base := uint32(2)
	op := &DataReplacement{Replacements: []DataReplacementGroup{
		{FragmentID: 4, NewFile: DataFile{Path: "a.lance", Fields: []int32{1}, ColumnIndices: []int32{0}, MajorVersion: 2, MinorVersion: 1}},
		{FragmentID: 0, NewFile: DataFile{Path: "b.lance", Fields: []int32{2}, ColumnIndices: []int32{0}, BaseID: &base}},
	}}
	txn := &Transaction{ReadVersion: 7, UUID: "u", Op: op}
	back, err := DecodeTransaction(txn.Encode())
	if err != nil {
		t.Fatal(err)
	}
	bo, ok := back.Op.(*DataReplacement)
	if !ok || fmt.Sprint(bo.FragmentIDs()) != "[4 0]" || bo.Replacements[1].NewFile.Path != "b.lance" || *bo.Replacements[1].NewFile.BaseID != 2 {
		t.Fatalf("%+v", back.Op)
	}
	if !bytes.Equal(back.Encode(), txn.Encode()) {
		t.Fatal("re-encode differs")
	}
	if _, err := DecodeTransaction([]byte{0xfa, 0x06, 0x03, 0x0a, 0x01, 0x08}); !IsCorrupt(err) {
		t.Fatalf("truncated group: %v", err)
	}
}
