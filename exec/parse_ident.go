package exec

import "strings"

// parse_ident(text [, strict bool]) splits a qualified SQL identifier
// into its parts as PostgreSQL's scanner would: unquoted names are folded
// to lower case, quoted ones kept with "" read as ". Grafana's query
// editor uses it to tell schema.table from a bare table name. With strict
// (the default) anything after the last identifier is an error; without,
// it is ignored.

func init() {
	textArr := Type{1009, -1}
	k := func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			strict := true
			if len(a) > 1 {
				strict = a[1].B[i]
			}
			parts, err := parseIdent(a[0].S[i], strict)
			if err != nil {
				return err
			}
			out.A[i] = textArray(parts, nil)
		}
		return nil
	}
	def("parse_ident", sig(textArr, k, TText), sig(textArr, k, TText, TBool))
}

func parseIdent(s string, strict bool) ([]string, error) {
	bad := func(detail string) error {
		e := errf(CodeInvalidParameterValue, "string is not a valid identifier: \"%s\"", s)
		e.Detail = detail
		return e
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	isStart := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }
	isCont := func(c byte) bool { return isStart(c) || c >= '0' && c <= '9' || c == '$' }
	var parts []string
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	afterDot := false // an identifier must follow the last dot
	for {
		switch {
		case i < len(s) && s[i] == '"':
			var b strings.Builder
			i++
			closed := false
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					closed = true
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			if !closed {
				return nil, bad("String has unclosed double quotes.")
			}
			if b.Len() == 0 {
				return nil, bad("Quoted identifier must not be empty.")
			}
			parts = append(parts, b.String())
		case i < len(s) && isStart(s[i]):
			j := i
			for j < len(s) && isCont(s[j]) {
				j++
			}
			parts = append(parts, strings.ToLower(s[i:j]))
			i = j
		default:
			if i < len(s) && s[i] == '.' {
				return nil, bad("No valid identifier before \".\".")
			}
			if afterDot {
				return nil, bad("No valid identifier after \".\".")
			}
			return nil, bad("")
		}
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '.' {
			afterDot = true
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			continue
		}
		if i == len(s) || !strict {
			return parts, nil
		}
		return nil, bad("")
	}
}
