package exec

import (
	"encoding/binary"
	"encoding/json"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// jsonb values are stored as their normalized text, but PostgreSQL
// compares them by value: numbers by numeric value (1.0 = 1.00, output
// keeps the digits as written), containers by PostgreSQL's jsonb btree
// order. cmpJSONB, jsonbEqual and appendJSONBKey implement that one order
// so that =, <, ORDER BY, DISTINCT, GROUP BY and hash joins agree.
//
// The order (PostgreSQL 15 documentation, "jsonb Indexing"):
//   - Object > Array > Boolean > Number > String > Null;
//   - an object with more pairs is greater; objects with as many pairs
//     compare key 1, value 1, key 2, ... in storage order (keys sorted
//     by length, then bytes);
//   - an array with more elements is greater; equal-length arrays compare
//     element by element;
//   - strings compare in the collation (here "C": bytes), numbers by
//     value, false < true.
//
// A top-level scalar is stored by PostgreSQL as a one-element "raw scalar"
// array, and compares with a real array as such: it sorts below an array
// of one element, but above an empty array (the element count decides
// first). jsonbTop models that.

// jsonbRank is PostgreSQL's type order of jsonb values.
func jsonbRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case string:
		return 1
	case json.Number:
		return 2
	case bool:
		return 3
	case []any, jsonbTop:
		return 4
	case *jsonObject:
		return 5
	}
	return 0
}

// jsonbTop is a top-level scalar seen as PostgreSQL's raw-scalar array.
type jsonbTop struct{ v any }

// decodeJSONBOrdered decodes a stored jsonb text for comparison.
func decodeJSONBOrdered(s string) any {
	v, err := decodeJSON(s)
	if err != nil {
		return s // not reachable for stored jsonb; compare as a string
	}
	switch v.(type) {
	case []any, *jsonObject:
		return v
	}
	return jsonbTop{v}
}

// cmpJSONB orders two stored jsonb texts as PostgreSQL's jsonb_cmp does.
func cmpJSONB(a, b string) int {
	if a == b {
		return 0
	}
	return cmpJSONBValue(decodeJSONBOrdered(a), decodeJSONBOrdered(b))
}

func cmpJSONBValue(x, y any) int {
	rx, ry := jsonbRank(x), jsonbRank(y)
	if rx != ry {
		return cmpInt(int64(rx), int64(ry))
	}
	switch xv := x.(type) {
	case nil:
		return 0
	case string:
		return strings.Compare(xv, y.(string))
	case bool:
		return cmpBool(xv, y.(bool))
	case json.Number:
		return cmpJSONNumber(xv, y.(json.Number))
	case *jsonObject:
		yv := y.(*jsonObject)
		sortJSONB(xv)
		sortJSONB(yv)
		if len(xv.keys) != len(yv.keys) {
			return cmpInt(int64(len(xv.keys)), int64(len(yv.keys)))
		}
		for i := range xv.keys {
			if c := strings.Compare(xv.keys[i], yv.keys[i]); c != 0 {
				return c
			}
			if c := cmpJSONBValue(xv.vals[i], yv.vals[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	// arrays, possibly raw scalars
	xs, xraw := jsonbElems(x)
	ys, yraw := jsonbElems(y)
	res := 0
	if xraw != yraw {
		res = 1
		if xraw {
			res = -1
		}
	}
	if len(xs) != len(ys) {
		res = cmpInt(int64(len(xs)), int64(len(ys)))
	}
	if res != 0 {
		return res
	}
	for i := range xs {
		if c := cmpJSONBValue(xs[i], ys[i]); c != 0 {
			return c
		}
	}
	return 0
}

func jsonbElems(v any) ([]any, bool) {
	if t, ok := v.(jsonbTop); ok {
		return []any{t.v}, true
	}
	return v.([]any), false
}

func cmpJSONNumber(a, b json.Number) int {
	if a == b {
		return 0
	}
	x, err1 := parseNumeric(string(a))
	y, err2 := parseNumeric(string(b))
	if err1 != nil || err2 != nil {
		return strings.Compare(string(a), string(b))
	}
	return x.Cmp(&y)
}

// appendJSONBKey appends an encoding of a stored jsonb text that is equal
// for two values exactly when cmpJSONB says they are equal (numbers are
// reduced: 1.0 and 1.00 encode alike).
func appendJSONBKey(buf []byte, s string) []byte {
	return appendJSONBValueKey(buf, decodeJSONBOrdered(s))
}

func appendJSONBValueKey(buf []byte, v any) []byte {
	buf = append(buf, byte(jsonbRank(v)))
	switch x := v.(type) {
	case string:
		buf = binary.AppendUvarint(buf, uint64(len(x)))
		return append(buf, x...)
	case bool:
		if x {
			return append(buf, 1)
		}
		return append(buf, 0)
	case json.Number:
		s := string(x)
		if d, err := parseNumeric(s); err == nil {
			var r apd.Decimal
			r.Reduce(&d)
			s = r.String()
			if r.IsZero() {
				s = "0"
			}
		}
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		return append(buf, s...)
	case jsonbTop:
		buf = append(buf, 'r')
		return appendJSONBValueKey(buf, x.v)
	case []any:
		buf = append(buf, 'a')
		buf = binary.AppendUvarint(buf, uint64(len(x)))
		for _, e := range x {
			buf = appendJSONBValueKey(buf, e)
		}
		return buf
	case *jsonObject:
		sortJSONB(x)
		buf = binary.AppendUvarint(buf, uint64(len(x.keys)))
		for i, k := range x.keys {
			buf = binary.AppendUvarint(buf, uint64(len(k)))
			buf = append(buf, k...)
			buf = appendJSONBValueKey(buf, x.vals[i])
		}
		return buf
	}
	return buf
}
