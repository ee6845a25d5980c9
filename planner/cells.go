package planner

import (
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pggraph/pggraph/exec"
)

// Cells carry a value in both wire formats: wire asks pgtype to encode a
// row value for the format the client chose. In text format pgtype uses
// TextValue, which is exec's PostgreSQL text output (DateStyle, float and
// interval rendering exactly as PostgreSQL prints them); in binary format
// the column type's codec takes the typed valuer, whose value is decoded
// from exec's binary send format, so both formats agree.

type textCell string

func (c textCell) TextValue() (pgtype.Text, error) {
	return pgtype.Text{String: string(c), Valid: true}, nil
}

type floatCell struct {
	textCell
	f float64
}

func (c floatCell) Float64Value() (pgtype.Float8, error) {
	return pgtype.Float8{Float64: c.f, Valid: true}, nil
}

type numericCell struct {
	textCell
	n pgtype.Numeric
}

func (c numericCell) NumericValue() (pgtype.Numeric, error) { return c.n, nil }

type dateCell struct {
	textCell
	d pgtype.Date
}

func (c dateCell) DateValue() (pgtype.Date, error) { return c.d, nil }

type timestampCell struct {
	textCell
	ts pgtype.Timestamp
}

func (c timestampCell) TimestampValue() (pgtype.Timestamp, error) { return c.ts, nil }

type timestamptzCell struct {
	textCell
	ts pgtype.Timestamptz
}

func (c timestamptzCell) TimestamptzValue() (pgtype.Timestamptz, error) { return c.ts, nil }

type timeCell struct {
	textCell
	t pgtype.Time
}

func (c timeCell) TimeValue() (pgtype.Time, error) { return c.t, nil }

type intervalCell struct {
	textCell
	iv pgtype.Interval
}

func (c intervalCell) IntervalValue() (pgtype.Interval, error) { return c.iv, nil }

type uuidCell struct {
	textCell
	u pgtype.UUID
}

func (c uuidCell) UUIDValue() (pgtype.UUID, error) { return c.u, nil }

// arrayCell re-encodes an array: pgtype's array codec walks its elements
// (decoded from exec's binary form) through each element type's codec.
type arrayCell struct {
	textCell
	pgtype.Array[any]
}

// cellCodec turns exec vectors into row values.
type cellCodec struct {
	m   *pgtype.Map
	loc *time.Location
	buf []byte
}

// value is cell i of v as a value wire can encode: integers, booleans and
// bytea natively, the types above as cells, anything else as its text
// (binary format then works only where pgtype accepts text input).
func (cc *cellCodec) value(v *exec.Vec, i int) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.T.OID {
	case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8, exec.OIDOid:
		return v.I[i]
	case exec.OIDBool:
		return v.B[i]
	case exec.OIDBytea:
		return []byte(v.S[i])
	}
	s, _ := exec.FormatText(v, i, cc.loc)
	text := textCell(s)
	var target any
	var wrap func() any
	switch v.T.OID {
	case exec.OIDFloat4, exec.OIDFloat8:
		return floatCell{text, v.F[i]}
	case exec.OIDNumeric:
		c := numericCell{textCell: text}
		target, wrap = &c.n, func() any { return c }
	case exec.OIDDate:
		c := dateCell{textCell: text}
		target, wrap = &c.d, func() any { return c }
	case exec.OIDTimestamp:
		c := timestampCell{textCell: text}
		target, wrap = &c.ts, func() any { return c }
	case exec.OIDTimestamptz:
		c := timestamptzCell{textCell: text}
		target, wrap = &c.ts, func() any { return c }
	case exec.OIDTime:
		c := timeCell{textCell: text}
		target, wrap = &c.t, func() any { return c }
	case exec.OIDInterval:
		c := intervalCell{textCell: text}
		target, wrap = &c.iv, func() any { return c }
	case exec.OIDUUID:
		c := uuidCell{textCell: text}
		target, wrap = &c.u, func() any { return c }
	default:
		if v.T.Elem().OID == 0 {
			return s
		}
		c := arrayCell{textCell: text}
		target, wrap = &c.Array, func() any { return c }
	}
	b, err := exec.AppendBinary(cc.buf[:0], v, i)
	cc.buf = b
	if err != nil || cc.m.Scan(v.T.OID, pgtype.BinaryFormatCode, b, target) != nil {
		return text // binary then fails visibly; text stays exact
	}
	return wrap()
}
