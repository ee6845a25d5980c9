package exec

import (
	"testing"
)

// TestDecodeParamMalformed: a binary parameter that does not have its
// type's layout is an error with PostgreSQL's SQLSTATE, never a panic or
// a wrong value.
func TestDecodeParamMalformed(t *testing.T) {
	cases := []struct {
		oid  uint32
		src  []byte
		code string
	}{
		{OIDInt4, []byte{1, 2}, CodeInvalidBinaryRepr},
		{OIDInt8, []byte{1, 2, 3, 4}, CodeInvalidBinaryRepr},
		{OIDBool, nil, ""}, // NULL
		{OIDNumeric, []byte{0, 1, 0, 0, 0, 0, 0, 0}, CodeInvalidBinaryRepr},                                // one digit announced, none sent
		{OIDNumeric, []byte{0, 1, 0, 0, 0x12, 0x34, 0, 0, 0, 1}, CodeInvalidBinaryRepr},                    // bad sign
		{OIDNumeric, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10}, CodeInvalidBinaryRepr},                    // digit 10000
		{OIDJSONB, []byte("{}"), CodeInvalidBinaryRepr},                                                    // no version byte
		{OIDJSONB, []byte("\x01{"), CodeInvalidTextRepr},                                                   // not JSON
		{OIDUUID, []byte{1, 2, 3}, CodeInvalidBinaryRepr},                                                  // short
		{1007, []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 5, 0, 0, 0, 1}, CodeInvalidBinaryRepr}, // 5 elements, none sent
		{1007, []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 0, 0, 0, 0, 1}, CodeDatatypeMismatch},  // text elements in int4[]
		{1007, []byte{0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7}, CodeFeatureNotSupported},
		{OIDDate, []byte{0x7f, 0xff, 0xff, 0xff}, ""}, // infinity
		{OIDDate, []byte{0x7f, 0xff, 0xff}, CodeInvalidBinaryRepr},
		{OIDText, []byte{0xff}, CodeCharacterNotInRepertoire},
	}
	for _, c := range cases {
		_, err := DecodeParam(c.oid, 1, c.src, 0)
		if Code(err) != c.code {
			t.Errorf("oid %d % x: got %v (%s), want %s", c.oid, c.src, err, Code(err), c.code)
		}
	}
}

// TestDecodeParamRoundTrip: what AppendBinary sends, DecodeParam reads
// back as the same value.
func TestDecodeParamRoundTrip(t *testing.T) {
	cases := []struct {
		t   Type
		txt string
	}{
		{TNumeric, "0"}, {TNumeric, "-0.000001"}, {TNumeric, "12345678901234567890.0001"}, {TNumeric, "1000000"},
		{TNumeric, "NaN"}, {TNumeric, "-Infinity"}, {TNumeric, "0.10"},
		{TInterval, "-1 years +2 days 00:00:01.5"}, {TTimestamptz, "1999-12-31 23:59:59.5+00"},
		{TDate, "infinity"}, {TDate, "-infinity"}, {TTimestamp, "infinity"}, {TTimestamptz, "-infinity"},
		{TJSONB, `{"a": [1, 2]}`}, {TUUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{Type{OID: 1231, Mod: -1}, "{1.5,NULL,-2}"}, {Type{OID: 1009, Mod: -1}, `{a,"b c",NULL}`}, {Type{OID: 1009, Mod: -1}, "{}"},
	}
	for _, c := range cases {
		v := NewVec(c.t, 1)
		if err := parseText(v, 0, c.txt, nil); err != nil {
			t.Fatalf("%s %q: %v", c.t, c.txt, err)
		}
		bin, err := AppendBinary(nil, v, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeParam(c.t.OID, 1, bin, 0)
		if err != nil {
			t.Fatalf("%s %q: %v", c.t, c.txt, err)
		}
		want, _ := FormatText(v, 0, nil)
		if s, _ := FormatText(got.(*Vec), 0, nil); s != want {
			t.Errorf("%s %q: read back %q, want %q", c.t, c.txt, s, want)
		}
	}
}
