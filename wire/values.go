package wire

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"
)

// encodeValue encodes a Go value for a column of type oid in format
// (0 text, 1 binary); nil is NULL. Strings in text format pass through
// unchanged: the session already produced PostgreSQL text.
func encodeValue(m *pgtype.Map, oid uint32, format int16, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if e, ok := v.(ValueEncoder); ok {
		return e.AppendWire(format, []byte{})
	}
	if format == 0 {
		switch x := v.(type) {
		case string:
			return []byte(x), nil
		case []byte:
			if oid != pgtype.ByteaOID {
				return x, nil
			}
		}
	}
	if _, ok := m.TypeForOID(oid); !ok {
		if format == 0 {
			return []byte(fmt.Sprint(v)), nil
		}
		if b, ok := v.([]byte); ok {
			return b, nil
		}
		return nil, fmt.Errorf("no binary encoding for type oid %d", oid)
	}
	b, err := m.Encode(oid, format, v, []byte{})
	if err != nil {
		return nil, err
	}
	if b == nil { // a typed nil such as (*int)(nil)
		return nil, nil
	}
	return b, nil
}

// appendValue appends the encoding of v to buf; null reports SQL NULL
// (nil, a typed nil pointer, a pgtype value with Valid=false). Unlike
// encodeValue it does not allocate per value.
func appendValue(m *pgtype.Map, oid uint32, format int16, v any, buf []byte) (out []byte, null bool, err error) {
	if v == nil {
		return buf, true, nil
	}
	if e, ok := v.(ValueEncoder); ok {
		out, err := e.AppendWire(format, buf)
		return out, false, err
	}
	if format == 0 {
		switch x := v.(type) {
		case string:
			return append(buf, x...), false, nil
		case []byte:
			if oid != pgtype.ByteaOID {
				return append(buf, x...), false, nil
			}
		}
	}
	if _, ok := m.TypeForOID(oid); !ok {
		b, err := encodeValue(m, oid, format, v)
		if err != nil {
			return buf, false, err
		}
		return append(buf, b...), b == nil, nil
	}
	nb, err := m.Encode(oid, format, v, buf)
	if err != nil {
		return buf, false, err
	}
	if nb == nil {
		return buf, true, nil
	}
	return nb, false, nil
}

// decodeParam decodes one Bind parameter: through the session when it is
// a ParamDecoder, else through pgtype.
func (c *conn) decodeParam(oid uint32, format int16, src []byte, index int) (any, error) {
	d, ok := c.sess.(ParamDecoder)
	if !ok {
		return decodeParam(c.types, oid, format, src, index)
	}
	if src != nil && format == 0 && oid != pgtype.ByteaOID {
		if e := checkUTF8(string(src)); e != nil {
			return nil, e
		}
	}
	v, err := d.DecodeParam(oid, format, src, index)
	if err != nil {
		var we *Error
		if errors.As(err, &we) {
			return nil, we
		}
		return nil, Errorf(CodeInvalidBinaryRepresent, "%s", err.Error())
	}
	return v, nil
}

// decodeParam decodes one Bind parameter with pgtype. Unknown or unspecified types
// arrive as string (text) or []byte (binary).
func decodeParam(m *pgtype.Map, oid uint32, format int16, src []byte, index int) (any, error) {
	if src == nil {
		return nil, nil
	}
	if format == 0 && oid != pgtype.ByteaOID {
		if e := checkUTF8(string(src)); e != nil {
			return nil, e
		}
	}
	t, ok := m.TypeForOID(oid)
	if oid == 0 || !ok {
		if format == 0 {
			return string(src), nil
		}
		return append([]byte(nil), src...), nil
	}
	if format == 0 && (oid == pgtype.TextOID || oid == pgtype.VarcharOID || oid == pgtype.BPCharOID || oid == pgtype.NameOID || oid == pgtype.UnknownOID) {
		return string(src), nil
	}
	v, err := t.Codec.DecodeValue(m, oid, format, src)
	if err != nil && format == 0 && lenientDateTimeInput[oid] {
		// pgtype's date/time text parsers accept fewer spellings than
		// PostgreSQL's input functions (e.g. ISO 8601's "T" separator,
		// which JavaScript drivers send); hand the text to the SQL layer,
		// which parses it with PostgreSQL's rules and reports its own
		// error for input PostgreSQL refuses too.
		return string(src), nil
	}
	if err != nil {
		if format == 1 {
			return nil, Errorf(CodeInvalidBinaryRepresent, "incorrect binary data format in bind parameter %d", index+1)
		}
		return nil, Errorf(CodeInvalidTextRepresent, "invalid input syntax for type %s: \"%s\"", t.Name, truncate(string(src), 64))
	}
	return v, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// lenientDateTimeInput lists the types whose text-format parameters fall
// back to the SQL layer's parser when pgtype refuses them.
var lenientDateTimeInput = map[uint32]bool{
	pgtype.DateOID: true, pgtype.TimeOID: true, pgtype.TimestampOID: true, pgtype.TimestamptzOID: true,
	pgtype.IntervalOID: true, 1266: true, // timetz
}
