package wire

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// Date/time text parameters pgtype cannot parse reach the SQL layer as
// text (PostgreSQL's input rules decide); other types still fail at Bind.
func TestDecodeParamDateTimeFallsBackToText(t *testing.T) {
	m := pgtype.NewMap()
	cases := []struct {
		oid     uint32
		in      string
		wantStr bool // passed through as text
		wantErr bool
	}{
		{pgtype.TimestamptzOID, "2026-11-29T19:21:42.708+00:00", true, false},
		{pgtype.TimestampOID, "2026-11-29T19:21:42", true, false},
		{pgtype.TimestamptzOID, "2026-11-29 19:21:42+00", false, false},
		{pgtype.Int4OID, "abc", false, true},
	}
	for _, c := range cases {
		v, err := decodeParam(m, c.oid, 0, []byte(c.in), 0)
		if (err != nil) != c.wantErr {
			t.Fatalf("%d %q: err %v", c.oid, c.in, err)
		}
		if _, isStr := v.(string); err == nil && isStr != c.wantStr {
			t.Fatalf("%d %q: got %T %v", c.oid, c.in, v, v)
		}
	}
}
