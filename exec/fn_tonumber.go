package exec

import (
	"strings"
)

// to_number(text, template): reads the digits the template's 9/0
// positions cover, the decimal point, group separators, and the sign
// (a leading or trailing '-', S/MI/PL/SG positions, <...> for PR), then
// converts them as numeric input. Templates use to_char's parser (V, RN,
// EEEE answer 0A000 there or here).

func toNumber(in, f string) (string, error) {
	nf, err := parseNumFormat(f)
	if err != nil {
		return "", err
	}
	if nf.roman || nf.isMulti {
		return "", unsupported("to_number with V or RN is not supported")
	}
	var digits strings.Builder
	neg := false
	p := 0
	seenDigit, signRead := false, false
	skipSpaces := func() {
		for p < len(in) && in[p] == ' ' {
			p++
		}
	}
	if nf.bracket {
		skipSpaces()
		if p < len(in) && in[p] == '<' {
			neg = true
			p++
		}
	}
	for _, it := range nf.items {
		if p >= len(in) {
			break
		}
		switch it.kind {
		case '9', '0':
			if !seenDigit && !signRead && !nf.minus && !nf.plus && !nf.bracket && nf.lsign != 2 {
				// the sign position before the first digit: '-', '+' or a blank
				signRead = true
				if in[p] == '-' || in[p] == '+' || in[p] == ' ' {
					neg = in[p] == '-'
					p++
				}
				if p >= len(in) {
					break
				}
			}
			switch {
			case in[p] >= '0' && in[p] <= '9':
				digits.WriteByte(in[p])
				seenDigit = true
				p++
			case in[p] == ' ' && !seenDigit:
				p++ // a blank digit position
			}
		case '.':
			if p < len(in) && in[p] == '.' {
				digits.WriteByte('.')
				p++
			}
		case ',':
			if p < len(in) && in[p] == ',' {
				p++
			}
		case 'M', 'P', 'G':
			if p < len(in) && (in[p] == '-' || in[p] == '+') {
				neg = neg || in[p] == '-'
				p++
			} else if p < len(in) && in[p] == ' ' {
				p++
			}
		case 'L':
			for p < len(in) && !(in[p] >= '0' && in[p] <= '9') && in[p] != '-' && in[p] != '.' {
				p++
			}
		case 0:
			p = min(p+len(it.lit), len(in))
		}
	}
	rest := strings.TrimSpace(in[p:])
	if nf.lsign != 0 || (!nf.minus && !nf.plus) {
		if strings.HasPrefix(rest, "-") {
			neg = true
		}
	}
	s := digits.String()
	if s == "" || s == "." {
		return "", errf(CodeInvalidTextRepr, "invalid input syntax for type numeric: \" \"")
	}
	if neg {
		s = "-" + s
	}
	return s, nil
}

func init() {
	def("to_number", sig(TNumeric, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, err := toNumber(a[0].S[i], a[1].S[i])
			if err != nil {
				return err
			}
			d, err := parseNumeric(s)
			if err != nil {
				return err
			}
			out.D[i].Set(&d)
		}
		return nil
	}, TText, TText))
}
