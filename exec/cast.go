package exec

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/pggraph/pggraph/pgerr"
)

// castContext says how a cast was requested (PostgreSQL's coercion contexts).
type castContext uint8

const (
	castImplicit   castContext = iota // operator/function argument
	castAssignment                    // INSERT/UPDATE target
	castExplicit                      // CAST(x AS t), x::t
)

// canCast reports whether from can be coerced to to in context cc: a
// pair of types from the cast table (cast_table.go), else by the rules
// for type families.
func canCast(from, to Type, cc castContext) bool {
	if from.OID == to.OID || from.OID == OIDUnknown {
		return true
	}
	if allowed, ok := pairCast(from, to, cc); ok {
		return allowed
	}
	switch {
	case from.isString() && to.isString():
		// pg_cast: name and "char" reach varchar/char(n) only by
		// assignment, and text types reach "char" only by assignment
		if ((from.OID == OIDName || from.OID == OIDChar) && (to.OID == OIDVarchar || to.OID == OIDBpchar)) ||
			(to.OID == OIDChar && from.OID != OIDChar) {
			return cc >= castAssignment
		}
		return true
	case to.isString() || to.OID == OIDName:
		return cc >= castAssignment
	case from.isString():
		return cc == castExplicit
	case from.OID == OIDJSONB && (to.Kind() == KInt || to.Kind() == KFloat || to.OID == OIDNumeric || to.OID == OIDBool):
		return cc == castExplicit
	case to.OID == OIDVector && from.IsArray(), from.OID == OIDVector && to.IsArray():
		return canCastVector(from, to, cc)
	case from.IsArray() && to.IsArray():
		return canCast(from.Elem(), to.Elem(), cc)
	}
	return false
}

// canCastVector is canCast between pgvector's vector and the arrays.
func canCastVector(from, to Type, cc castContext) bool {
	if to.OID == OIDVector {
		// integer[], real[], double precision[], numeric[] → vector
		e := from.Elem()
		return cc >= castAssignment && (e.isInt() || e.Kind() == KFloat || e.OID == OIDNumeric)
	}
	// vector → real[] (implicit, as pgvector declares it)
	return to.Elem().OID == OIDFloat4 || cc == castExplicit && (to.Elem().Kind() == KFloat || to.Elem().OID == OIDNumeric)
}

// isOIDType reports oid and its alias types (regclass, regtype,
// regnamespace, regproc, regprocedure, regoperator).
func isOIDType(t Type) bool {
	switch t.OID {
	case OIDOid, OIDRegclass, OIDRegtype, OIDRegnamespace, OIDRegproc, OIDRegprocedure, OIDRegoperator:
		return true
	}
	return false
}

func intRank(t Type) int {
	switch t.OID {
	case OIDInt2:
		return 1
	case OIDInt4:
		return 2
	}
	return 3
}

// castExpr converts its argument to type t.
type castExpr struct {
	arg      Expr
	t        Type
	explicit bool
}

func (c *castExpr) Type() Type     { return c.t }
func (c *castExpr) String() string { return "(" + c.arg.String() + ")::" + c.t.String() }

func (c *castExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	v, err := c.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	out := NewVec(c.t, b.N)
	live := nonNull(b.N, sel, out, v)
	return out, castRows(ec, v, out, live, c.explicit)
}

// castRows converts the live rows of v into out.
func castRows(ec *evalCtx, v, out *Vec, live []int32, explicit bool) error {
	if err := castRowsBase(ec, v, out, live, explicit); err != nil {
		return err
	}
	if to := out.T; to.Mod >= 0 && to.Mod < 6 && (to.OID == OIDTimestamp || to.OID == OIDTimestamptz || to.OID == OIDTime) {
		for _, i := range live {
			if !out.IsNull(int(i)) {
				out.I[i] = roundTemporal(out.I[i], to)
			}
		}
	}
	return nil
}

// roundTemporal applies a time(p)/timestamp(p) typmod. PostgreSQL rounds
// half away from zero on its own epoch (2000-01-01), so timestamps are
// rounded relative to it.
func roundTemporal(us int64, t Type) int64 {
	if t.OID == OIDTime {
		return roundMicrosTo(us, int(t.Mod))
	}
	if !tsFinite(us) {
		return us
	}
	const pgEpoch = 946684800_000_000
	return roundMicrosTo(us-pgEpoch, int(t.Mod)) + pgEpoch
}

// roundMicrosTo rounds µs to p fractional digits of a second, half away
// from zero (timestamp(p), time(p)).
func roundMicrosTo(us int64, p int) int64 {
	scale := int64(1)
	for k := p; k < 6; k++ {
		scale *= 10
	}
	if us >= 0 {
		return (us + scale/2) / scale * scale
	}
	return -((-us + scale/2) / scale * scale)
}

func castRowsBase(ec *evalCtx, v, out *Vec, live []int32, explicit bool) error {
	from, to := v.T, out.T
	if from.OID == OIDJSONB && (to.isInt() || to.Kind() == KFloat || to.OID == OIDNumeric || to.OID == OIDBool) {
		return castJSONBScalar(ec, v, out, live)
	}
	loc := time.UTC
	if ec != nil && ec.loc != nil {
		loc = ec.loc
	}
	if to.OID == OIDVector || from.OID == OIDVector {
		return castVector(ec, v, out, live, explicit)
	}
	if from.OID == to.OID && to.Mod < 0 || from.OID == to.OID && to.Kind() != KNum && !to.isString() {
		for _, i := range live {
			out.copyRow(int(i), v, int(i))
		}
		return nil
	}
	if done, err := castBySource(v, out, live, loc); done || err != nil {
		return err // cast_rows.go
	}
	return castRowsShared(ec, v, out, live, explicit, loc)
}

// castRowsShared holds the conversions every type has: to the string
// types and json, from the string types, between arrays, and otherwise
// through the text form.
func castRowsShared(ec *evalCtx, v, out *Vec, live []int32, explicit bool, loc *time.Location) error {
	from, to := v.T, out.T
	switch {
	case to.isString() || to.OID == OIDName || to.OID == OIDJSON || (to.OID == OIDText):
		for _, i := range live {
			s := formatValueStyle(v, int(i), loc, ec.dateStyle())
			if from.OID == OIDBool {
				s = "false"
				if v.B[i] {
					s = "true"
				}
			}
			if from.OID == OIDBpchar && to.OID != OIDBpchar {
				s = trimRightSpaces(s)
			}
			if to.OID == OIDVarchar || to.OID == OIDBpchar {
				var err error
				if s, err = fitChar(s, to, explicit); err != nil {
					return err
				}
			}
			if to.OID == OIDName {
				s = clipName(s)
			}
			out.S[i] = s
		}
		return nil
	case from.Kind() == KStr:
		for _, i := range live {
			if err := parseTextStyle(out, int(i), v.S[i], loc, ec.dateStyle()); err != nil {
				return err
			}
		}
		return nil
	case from.IsArray() && to.IsArray():
		for _, i := range live {
			a := v.A[i]
			items := NewVec(to.Elem(), a.Items.N)
			lv := nonNull(a.Items.N, nil, items, a.Items)
			if err := castRows(ec, a.Items, items, lv, explicit); err != nil {
				return err
			}
			out.A[i] = &Array{Elem: to.Elem(), Items: items}
		}
		return nil
	}
	// everything else goes through the text form
	for _, i := range live {
		if err := parseText(out, int(i), formatValue(v, int(i), loc), loc); err != nil {
			return err
		}
	}
	return nil
}

func unsupportedNumericSpecial(d *apd.Decimal, to Type) error {
	if d.Form == apd.NaN {
		return errf(CodeFeatureNotSupported, "cannot convert NaN to %s", to.String())
	}
	return errf(CodeFeatureNotSupported, "cannot convert infinity to %s", to.String())
}

func trimRightSpaces(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// utcToLocal converts µs since epoch to loc's wall-clock µs.
func utcToLocal(us int64, loc *time.Location) int64 {
	if !tsFinite(us) {
		return us
	}
	secs := floorDiv(us, 1_000_000)
	_, off := time.Unix(secs, 0).In(loc).Zone()
	return us + int64(off)*1_000_000
}

// formatFloatDigits renders a float with DBL_DIG (FLT_DIG) significant
// digits, as float8_numeric/float4_numeric do.
func formatFloatDigits(f float64, bits int) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	if math.IsInf(f, 1) {
		return "Infinity"
	}
	if math.IsInf(f, -1) {
		return "-Infinity"
	}
	if bits == 32 {
		return strconv.FormatFloat(f, 'g', 6, 64)
	}
	return strconv.FormatFloat(f, 'g', 15, 64)
}

// castVector converts to and from pgvector's vector: vector(n) typmod
// checks, numeric arrays to vector (no NULL, NaN or infinite elements),
// vector to float arrays, and the text forms.
func castVector(ec *evalCtx, v, out *Vec, live []int32, explicit bool) error {
	from, to := v.T, out.T
	loc := time.UTC
	if ec != nil && ec.loc != nil {
		loc = ec.loc
	}
	for _, i := range live {
		switch {
		case from.OID == OIDVector && to.OID == OIDVector:
			if err := checkVectorDims(v.A[i].Items.N, to); err != nil {
				return err
			}
			out.A[i] = v.A[i]
		case to.OID == OIDVector && from.IsArray():
			a := v.A[i]
			items := NewVec(TFloat4, a.Items.N)
			for k := 0; k < a.Items.N; k++ {
				if a.Items.IsNull(k) {
					return errf(CodeNullValueNotAllowed, "array must not contain nulls")
				}
				one := NewVec(TFloat4, 1)
				if err := castRows(ec, sliceVec(a.Items, k), one, []int32{0}, explicit); err != nil {
					return err
				}
				f := one.F[0]
				if math.IsNaN(f) {
					return errf(pgerr.DataException, "NaN not allowed in vector")
				}
				if math.IsInf(f, 0) {
					return errf(pgerr.DataException, "infinite value not allowed in vector")
				}
				items.F[k] = f
			}
			if a.Items.N == 0 {
				return errf(pgerr.DataException, "vector must have at least 1 dimension")
			}
			if err := checkVectorDims(a.Items.N, to); err != nil {
				return err
			}
			out.A[i] = &Array{Elem: TFloat4, Items: items}
		case from.OID == OIDVector && to.IsArray():
			items := NewVec(to.Elem(), v.A[i].Items.N)
			if err := castRows(ec, v.A[i].Items, items, allRows(items.N), explicit); err != nil {
				return err
			}
			out.A[i] = &Array{Elem: to.Elem(), Items: items}
		case from.OID == OIDVector:
			if err := parseText(out, int(i), formatVector(v.A[i]), loc); err != nil {
				return err
			}
		default:
			if err := parseText(out, int(i), formatValue(v, int(i), loc), loc); err != nil {
				return err
			}
		}
	}
	return nil
}

// sliceVec is row k of v as a one-row vector.
func sliceVec(v *Vec, k int) *Vec {
	one := NewVec(v.T, 1)
	one.copyRow(0, v, k)
	return one
}

// castJSONBScalar is jsonb::numeric/int/float/bool: the value must be a
// JSON number (a boolean for bool); numbers convert as numeric does
// (2.5::jsonb::int is 3). Other kinds are 22023 as in PostgreSQL.
func castJSONBScalar(ec *evalCtx, v, out *Vec, live []int32) error {
	to := out.T
	num := NewVec(TNumeric, 1)
	for _, i := range live {
		x, err := decodeJSON(v.S[i])
		if err != nil {
			return err
		}
		kind := "null"
		switch x.(type) {
		case string:
			kind = "string"
		case json.Number:
			kind = "numeric"
		case bool:
			kind = "boolean"
		case []any:
			kind = "array"
		case *jsonObject:
			kind = "object"
		}
		if to.OID == OIDBool {
			b, ok := x.(bool)
			if !ok {
				return errf(CodeInvalidParameterValue, "cannot cast jsonb %s to type boolean", kind)
			}
			out.B[i] = b
			continue
		}
		n, ok := x.(json.Number)
		if !ok {
			return errf(CodeInvalidParameterValue, "cannot cast jsonb %s to type %s", kind, to)
		}
		d, err := parseNumeric(string(n))
		if err != nil {
			return err
		}
		num.D[0] = d
		one := NewVec(to, 1)
		if err := castRowsBase(ec, num, one, []int32{0}, true); err != nil {
			return err
		}
		out.copyRow(int(i), one, 0)
	}
	return nil
}
