package planner

import (
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pggraph/pggraph/exec"
)

// A row value reaches wire as a Go value it can encode: integers,
// booleans, float and bytea natively (pgtype's encodings of those are
// PostgreSQL's), everything else as a vecCell that encodes itself
// (wire.ValueEncoder) with exec's text output (DateStyle, float and
// interval rendering as PostgreSQL prints them) or with the type's
// PostgreSQL binary send format, so both formats are PostgreSQL's byte
// for byte — numeric's digit groups, json text as written, arrays of
// every element type.

// vecCell is row i of an exec vector.
type vecCell struct {
	v     *exec.Vec
	i     int
	loc   *time.Location
	style exec.DateStyle // the session's DateStyle and IntervalStyle
}

// AppendWire implements wire.ValueEncoder.
func (c vecCell) AppendWire(format int16, buf []byte) ([]byte, error) {
	if format == 0 {
		return exec.AppendTextStyle(buf, c.v, c.i, c.loc, c.style), nil
	}
	return exec.AppendBinary(buf, c.v, c.i)
}

// cellCodec turns exec vectors into row values.
type cellCodec struct {
	m     *pgtype.Map
	loc   *time.Location
	style exec.DateStyle
}

// value is cell i of v as a value wire can encode.
// row is row i of vecs, one value a column.
func (cc *cellCodec) row(vecs []*exec.Vec, i int) []any {
	row := make([]any, len(vecs))
	for c, v := range vecs {
		row[c] = cc.value(v, i)
	}
	return row
}

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
	return vecCell{v: v, i: i, loc: cc.loc, style: cc.style}
}
