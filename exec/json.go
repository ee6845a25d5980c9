package exec

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// JSON values are stored as text. json keeps the input verbatim; jsonb is
// normalized the way PostgreSQL prints it: keys sorted by (length, bytes),
// the last duplicate key wins, ", " and ": " separators, numbers as numeric.

// validJSON reports whether s is JSON text. encoding/json's validator
// stops at 10,000 nesting levels; deeper text that the input check let
// through (see checkJSONDepth) is judged by the token decoder instead.
func validJSON(s string) bool {
	if json.Valid([]byte(s)) {
		return true
	}
	if jsonNesting(s) <= 10000 {
		return false
	}
	_, err := decodeJSON(s)
	return err == nil
}

// maxJSONNesting is how deeply json and jsonb input may nest. PostgreSQL
// parses JSON recursively under its 2 MB stack guard and stops between
// 14,000 and 16,000 levels with 54001; the decoder here recurses on the
// Go stack, which must not grow without bound either.
const maxJSONNesting = 15000

// checkJSONDepth refuses JSON text nested deeper than maxJSONNesting.
func checkJSONDepth(s string) error {
	if len(s) > 2*maxJSONNesting && jsonNesting(s) > maxJSONNesting {
		return &Error{Code: CodeStackDepthExceeded, Message: "stack depth limit exceeded", Hint: q.StackDepthHint}
	}
	return nil
}

// jsonNesting is the deepest bracket nesting of JSON text, outside its
// strings.
func jsonNesting(s string) int {
	depth, best, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > best {
				best = depth
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return best
}

func jsonSyntaxErr(typ, s string) *Error {
	return &Error{Code: CodeInvalidTextRepr, Message: "invalid input syntax for type " + typ, Detail: "Token \"" + s + "\" is invalid."}
}

// decodeJSON parses s keeping numbers as json.Number and objects ordered.
func decodeJSON(s string) (any, error) {
	if err := checkJSONDepth(s); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, jsonSyntaxErr("json", s)
	}
	if _, err := dec.Token(); err == nil {
		return nil, jsonSyntaxErr("json", s)
	}
	return v, nil
}

// jsonObject keeps key order (for json) and is normalized for jsonb.
type jsonObject struct {
	keys []string
	vals []any
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &jsonObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals = append(o.vals, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			if a == nil {
				a = []any{}
			}
			return a, err
		}
	}
	return tok, nil
}

func normalizeJSONB(s string) (string, error) {
	v, err := decodeJSON(s)
	if err != nil {
		if Code(err) == CodeStackDepthExceeded {
			return "", err
		}
		return "", jsonSyntaxErr("json", s)
	}
	if jsonHasNUL(v) {
		// jsonb stores text, which cannot hold U+0000 (json keeps it escaped)
		return "", &Error{Code: pgerr.UntranslatableCharacter, Message: "unsupported Unicode escape sequence", Detail: "\\u0000 cannot be converted to text."}
	}
	var b bytes.Buffer
	writeJSONB(&b, v)
	return b.String(), nil
}

func sortJSONB(o *jsonObject) {
	last := map[string]int{}
	for i, k := range o.keys {
		last[k] = i
	}
	var keys []string
	var vals []any
	for i, k := range o.keys {
		if last[k] == i {
			keys = append(keys, k)
			vals = append(vals, o.vals[i])
		}
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		if len(ka) != len(kb) {
			return len(ka) < len(kb)
		}
		return ka < kb
	})
	o.keys = make([]string, len(idx))
	nv := make([]any, len(idx))
	for i, j := range idx {
		o.keys[i] = keys[j]
		nv[i] = vals[j]
	}
	o.vals = nv
}

// jsonRaw is a json or jsonb value embedded in a value being converted
// to JSON: json output keeps its text, jsonb output normalizes it.
type jsonRaw string

func writeJSONB(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case jsonRaw:
		d, err := decodeJSON(string(x))
		if err != nil {
			b.WriteString(string(x))
			return
		}
		writeJSONB(b, d)
	case *jsonObject:
		sortJSONB(x)
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			writeJSONB(b, x.vals[i])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONB(b, e)
		}
		b.WriteByte(']')
	case json.Number:
		d, err := parseNumeric(string(x))
		if err != nil {
			b.WriteString(string(x))
		} else {
			b.WriteString(formatNumeric(&d))
		}
	case string:
		writeJSONString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	}
}

// writeJSONString escapes like PostgreSQL's escape_json.
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteString(strconv.FormatInt(int64(r)/16, 16))
				b.WriteString(strconv.FormatInt(int64(r)%16, 16))
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// jsonText renders a decoded value as json text (json keeps order and
// compact input formatting only approximately; jsonb is exact).
func jsonText(v any, jsonb bool) string {
	var b bytes.Buffer
	if jsonb {
		writeJSONB(&b, v)
		return b.String()
	}
	writeJSONCompact(&b, v)
	return b.String()
}

func writeJSONCompact(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case jsonRaw:
		b.WriteString(string(x))
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			writeJSONCompact(b, x.vals[i])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONCompact(b, e)
		}
		b.WriteByte(']')
	default:
		writeJSONB(b, v)
	}
}

// jsonHasNUL reports a U+0000 in any decoded string or key.
func jsonHasNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.IndexByte(x, 0) >= 0
	case []any:
		for _, e := range x {
			if jsonHasNUL(e) {
				return true
			}
		}
	case *jsonObject:
		for i, k := range x.keys {
			if strings.IndexByte(k, 0) >= 0 || jsonHasNUL(x.vals[i]) {
				return true
			}
		}
	}
	return false
}
