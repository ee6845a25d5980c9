package wire

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

func TestEncodeRow(t *testing.T) {
	c := &conn{types: pgtype.NewMap()}
	var nilInt *int64
	ts := time.Date(2026, 11, 29, 14, 30, 0, 0, time.UTC)
	cases := []struct {
		name   string
		oid    uint32
		format int16
		v      any
		want   *string // nil = NULL
	}{
		{"int8_text", pgtype.Int8OID, 0, int64(5), ptr("5")},
		{"int8_binary", pgtype.Int8OID, 1, int64(5), ptr("\x00\x00\x00\x00\x00\x00\x00\x05")},
		{"int4_from_string", pgtype.Int4OID, 0, "42", ptr("42")},
		{"nil", pgtype.TextOID, 0, nil, nil},
		{"typed_nil", pgtype.Int8OID, 1, nilInt, nil},
		{"invalid_pgtype", pgtype.Int8OID, 0, pgtype.Int8{}, nil},
		{"bytea_text", pgtype.ByteaOID, 0, []byte{1, 0xab}, ptr(`\x01ab`)},
		{"bool_binary", pgtype.BoolOID, 1, true, ptr("\x01")},
		{"timestamptz_text", pgtype.TimestamptzOID, 0, ts, ptr("2026-11-29 14:30:00Z")},
		{"unknown_oid_text", 999999, 0, 7, ptr("7")},
		{"empty_string_not_null", pgtype.TextOID, 0, "", ptr("")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// a leading column makes the scratch-buffer slicing matter
			dr, err := c.encodeRow([]Column{{Name: "x", TypeOID: pgtype.TextOID}, {Name: "v", TypeOID: tc.oid}},
				[]int16{0, tc.format}, []any{"lead", tc.v})
			if err != nil {
				t.Fatal(err)
			}
			if string(dr.Values[0]) != "lead" {
				t.Fatalf("first value %q", dr.Values[0])
			}
			got := dr.Values[1]
			switch {
			case tc.want == nil && got != nil:
				t.Fatalf("want NULL, got %q", got)
			case tc.want != nil && got == nil:
				t.Fatalf("want %q, got NULL", *tc.want)
			case tc.want != nil && string(got) != *tc.want:
				t.Fatalf("got %q want %q", got, *tc.want)
			}
		})
	}
	if _, err := c.encodeRow([]Column{{Name: "v", TypeOID: pgtype.Int4OID}}, nil, []any{struct{}{}}); !IsCode(err, CodeInternalError) {
		t.Fatalf("unencodable value: %v", err)
	}
	if _, err := c.encodeRow([]Column{{Name: "v"}}, nil, []any{1, 2}); err == nil {
		t.Fatal("row wider than columns accepted")
	}
}

func ptr(s string) *string { return &s }

func TestDecodeParam(t *testing.T) {
	m := pgtype.NewMap()
	cases := []struct {
		name   string
		oid    uint32
		format int16
		src    []byte
		want   any
		code   string
	}{
		{"unknown_text", 0, 0, []byte("abc"), "abc", ""},
		{"unknown_binary", 0, 1, []byte{1, 2}, []byte{1, 2}, ""},
		{"null", pgtype.Int8OID, 0, nil, nil, ""},
		{"int8_text", pgtype.Int8OID, 0, []byte("-12"), int64(-12), ""},
		{"int4_binary", pgtype.Int4OID, 1, []byte{0, 0, 1, 0}, int32(256), ""},
		{"varchar_text", pgtype.VarcharOID, 0, []byte("v"), "v", ""},
		{"bool_text", pgtype.BoolOID, 0, []byte("t"), true, ""},
		{"int8_bad_text", pgtype.Int8OID, 0, []byte("x1"), nil, CodeInvalidTextRepresent},
		{"int8_short_binary", pgtype.Int8OID, 1, []byte{1}, nil, CodeInvalidBinaryRepresent},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeParam(m, tc.oid, tc.format, tc.src, 0)
			if tc.code != "" {
				if Code(err) != tc.code {
					t.Fatalf("want %s got %v", tc.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, ok := tc.want.([]byte); ok {
				if string(got.([]byte)) != string(b) {
					t.Fatalf("got %v", got)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got %#v want %#v", got, tc.want)
			}
		})
	}
}
