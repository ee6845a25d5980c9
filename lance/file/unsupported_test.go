package file

import (
	"strings"
	"testing"
)

// Encodings we do not decode are refused with an error naming them.
func TestUnsupportedEncodingsAreNamed(t *testing.T) {
	fixed64 := &physical{kind: physFixed, bits: 64}
	str := &physical{kind: physVariable, bits: 32}
	cases := []struct {
		name string
		p    *physical
		e    *enc
		want string
	}{
		{"packed struct", fixed64, &enc{kind: encPackedStruct}, "packed_struct"},
		{"variable packed struct", str, &enc{kind: encVariablePackedStruct}, "variable_packed_struct"},
		{"lz4", fixed64, &enc{kind: encGeneral, compression: schemeLZ4, child: &enc{kind: encFlat, bits: 64}}, "scheme 1"},
		{"compressed flat", fixed64, &enc{kind: encFlat, bits: 64, compression: 2}, "compressed"},
		{"flat of the wrong width", fixed64, &enc{kind: encFlat, bits: 32}, "flat(32)"},
	}
	for _, c := range cases {
		ld := &leafData{}
		err := ld.appendChunkValues("col", c.p, c.e, [][]byte{make([]byte, 64)}, 4)
		if !IsUnsupported(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"col"`) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := decodeLevels("col", &enc{kind: encRle}, nil, 3); !IsUnsupported(err) || !strings.Contains(err.Error(), "rle") {
		t.Errorf("rle levels: %v", err)
	}
	blob := appendBytesField(nil, layoutBlob, nil)
	if _, err := parsePageLayout(blob); !IsUnsupported(err) || !strings.Contains(err.Error(), "blob") {
		t.Errorf("blob layout: %v", err)
	}
	if _, err := decodeFooter(append(make([]byte, 32), []byte{0, 0, 3, 0, 'L', 'A', 'N', 'C'}...), 1000); !IsUnsupported(err) {
		t.Errorf("version 0.3: %v", err)
	}
}
