package exec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// to_char(number, text): PostgreSQL's numeric template patterns 9, 0,
// '.', D, ',', G, S, MI, PL, SG, PR, L and FM (C locale: '.' decimal
// point, ',' group separator, ' ' currency symbol), with its placement
// rules for signs and padding. Other letters (V, EEEE, RN, TH, B) answer
// 0A000.

// numFormat is a parsed numeric template.
type numFormat struct {
	items     []numItem
	pre, post int // digit positions before / after the decimal point
	decimal   bool
	zero      bool // a '0' was seen before the decimal point
	zeroStart int  // 1-based digit position of the first '0'
	zeroEnd   int
	fill      bool // FM
	lsign     int  // 0 none, 1 S before the digits, 2 S after
	lsignPre  int  // digits before S (S leading means 0)
	minus     bool
	plus      bool
	bracket   bool
	multi     int  // 9s after V: the value is multiplied by 10^multi
	isMulti   bool // V seen
	roman     bool // RN
	lowerRN   bool
}

type numItem struct {
	kind byte // '9' '0' '.' ',' 'S' 'M' (MI) 'P' (PL) 'G' (SG) 'R' (PR) 'L' 'F' (FM) or 0 literal
	lit  string
}

func parseNumFormat(f string) (*numFormat, error) {
	nf := &numFormat{}
	for i := 0; i < len(f); {
		rest := f[i:]
		up := strings.ToUpper(rest)
		switch {
		case rest[0] == '"':
			j := strings.IndexByte(rest[1:], '"')
			lit := rest[1:]
			if j >= 0 {
				lit = rest[1 : 1+j]
				i += j + 2
			} else {
				i = len(f)
			}
			nf.items = append(nf.items, numItem{lit: lit})
			continue
		case rest[0] == '\\' && len(rest) > 1 && rest[1] == '"':
			nf.items = append(nf.items, numItem{lit: "\""})
			i += 2
			continue
		case strings.HasPrefix(up, "FM"):
			nf.fill = true
			i += 2
			continue
		case rest[0] == '9':
			if nf.bracket {
				return nil, errf(CodeSyntaxError, "\"9\" must be ahead of \"PR\"")
			}
			if nf.isMulti {
				nf.multi++
				nf.items = append(nf.items, numItem{kind: '9'})
				break
			}
			if nf.decimal {
				nf.post++
			} else {
				nf.pre++
			}
			nf.items = append(nf.items, numItem{kind: '9'})
		case rest[0] == '0':
			if nf.bracket {
				return nil, errf(CodeSyntaxError, "\"0\" must be ahead of \"PR\"")
			}
			if !nf.zero && !nf.decimal {
				nf.zero = true
				nf.zeroStart = nf.pre + 1
			}
			if nf.decimal {
				nf.post++
			} else {
				nf.pre++
			}
			nf.zeroEnd = nf.pre + nf.post
			nf.items = append(nf.items, numItem{kind: '0'})
		case rest[0] == '.' || up[0] == 'D':
			if nf.decimal {
				return nil, errf(CodeSyntaxError, "multiple decimal points")
			}
			if nf.isMulti {
				return nil, errf(CodeSyntaxError, "cannot use \"V\" and decimal point together")
			}
			nf.decimal = true
			nf.items = append(nf.items, numItem{kind: '.'})
		case rest[0] == ',' || up[0] == 'G':
			nf.items = append(nf.items, numItem{kind: ','})
		case strings.HasPrefix(up, "SG"):
			if nf.lsign != 0 {
				return nil, errf(CodeSyntaxError, "cannot use \"S\" and \"SG\" together")
			}
			nf.minus, nf.plus = true, true
			nf.items = append(nf.items, numItem{kind: 'G'})
			i += 2
			continue
		case strings.HasPrefix(up, "MI"):
			if nf.lsign != 0 {
				return nil, errf(CodeSyntaxError, "cannot use \"S\" and \"MI\" together")
			}
			nf.minus = true
			nf.items = append(nf.items, numItem{kind: 'M'})
			i += 2
			continue
		case strings.HasPrefix(up, "PL"):
			if nf.lsign != 0 {
				return nil, errf(CodeSyntaxError, "cannot use \"S\" and \"PL\" together")
			}
			nf.plus = true
			nf.items = append(nf.items, numItem{kind: 'P'})
			i += 2
			continue
		case strings.HasPrefix(up, "PR"):
			if nf.lsign != 0 || nf.plus || nf.minus {
				return nil, errf(CodeSyntaxError, "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together")
			}
			nf.bracket = true
			i += 2
			continue
		case up[0] == 'S':
			if nf.lsign != 0 {
				return nil, errf(CodeSyntaxError, "cannot use \"S\" twice")
			}
			if nf.plus || nf.minus || nf.bracket {
				return nil, errf(CodeSyntaxError, "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together")
			}
			if !nf.decimal {
				nf.lsign, nf.lsignPre = 1, nf.pre
			} else {
				nf.lsign = 2
			}
		case up[0] == 'L':
			nf.items = append(nf.items, numItem{kind: 'L'})
		case up[0] == 'V':
			if nf.decimal {
				return nil, errf(CodeSyntaxError, "cannot use \"V\" and decimal point together")
			}
			nf.isMulti = true
		case strings.HasPrefix(up, "RN"):
			nf.roman, nf.lowerRN = true, rest[0] == 'r'
			nf.items = append(nf.items, numItem{kind: 'N'})
			i += 2
			continue
		case (up[0] >= 'A' && up[0] <= 'Z'):
			return nil, unsupported("to_char numeric pattern at \"%s\" is not supported", rest)
		default:
			nf.items = append(nf.items, numItem{lit: rest[:1]})
		}
		i++
	}
	return nf, nil
}

// toCharNumber renders digits (an unsigned decimal string rounded to
// nf.post places, "#"-filled on overflow) with sign neg.
func (nf *numFormat) render(number string, neg bool, preSpaces int) string {
	var out strings.Builder
	sign := byte('+')
	if neg {
		sign = '-'
	}
	bracket := nf.bracket
	signWrote := false
	if nf.plus || nf.minus {
		signWrote = !(nf.plus && !nf.minus)
	} else {
		if sign != '-' && nf.fill {
			bracket = false
		}
		signWrote = sign == '+' && nf.fill && nf.lsign == 0
	}
	lsign := nf.lsign
	if lsign == 1 && nf.pre == nf.lsignPre {
		lsign = 2
	}
	zeroStart := nf.zeroStart
	if zeroStart > 0 {
		zeroStart-- // 0-based digit position from here on
	}
	numCount := nf.post + nf.pre - 1
	lastRelevant := -1 // index into number of the last significant decimal digit
	if nf.fill && nf.decimal {
		if p := strings.IndexByte(number, '.'); p >= 0 {
			lastRelevant = p
			for k := p + 1; k < len(number); k++ {
				if number[k] != '0' {
					lastRelevant = k
				}
			}
			if nf.zeroEnd > preSpaces {
				if lz := nf.zeroEnd - preSpaces; lastRelevant < lz {
					lastRelevant = lz
				}
			}
		}
	}
	if !signWrote && preSpaces == 0 {
		numCount++
	}
	if truncatedAt := strings.IndexByte(number, 0); truncatedAt >= 0 {
		number = number[:truncatedAt]
	}
	truncated := false
	np := 0 // position in number
	numCurr := 0
	numIn := false
	at := func(k int) byte {
		if k < len(number) {
			return number[k]
		}
		return 0
	}
	predecSpace := func() bool {
		return !nf.zero && np == 0 && at(0) == '0' && nf.post != 0
	}
	numpart := func(kind byte) {
		if !signWrote && (numCurr >= preSpaces || (nf.zero && zeroStart == numCurr)) &&
			(!predecSpace() || (lastRelevant >= 0 && at(lastRelevant) == '.')) {
			switch {
			case lsign != 0:
				if lsign == 1 {
					out.WriteByte(sign)
					signWrote = true
				}
			case bracket:
				if sign == '+' {
					out.WriteByte(' ')
				} else {
					out.WriteByte('<')
				}
				signWrote = true
			case sign == '+':
				if !nf.fill {
					out.WriteByte(' ')
				}
				signWrote = true
			default:
				out.WriteByte('-')
				signWrote = true
			}
		}
		switch {
		case numCurr < preSpaces && (zeroStart > numCurr || !nf.zero):
			if !nf.fill {
				out.WriteByte(' ')
			}
		case nf.zero && numCurr < preSpaces && zeroStart <= numCurr:
			out.WriteByte('0')
			numIn = true
		default:
			if at(np) == '.' {
				if lastRelevant < 0 || at(lastRelevant) != '.' || nf.fill {
					out.WriteByte('.')
				}
			} else {
				switch {
				case lastRelevant >= 0 && np > lastRelevant && kind != '0':
				case predecSpace():
					if !nf.fill {
						out.WriteByte(' ')
					} else if lastRelevant >= 0 && at(lastRelevant) == '.' {
						out.WriteByte('0')
					}
				default:
					if c := at(np); c != 0 {
						out.WriteByte(c)
					} else {
						// PostgreSQL writes the string's terminator here:
						// the output ends at this point
						truncated = true
					}
					numIn = true
				}
			}
			if np < len(number) {
				np++
			}
		}
		end := numCount
		if preSpaces > 0 {
			end++
		}
		if nf.decimal {
			end++
		}
		if lastRelevant >= 0 && lastRelevant == np {
			end = numCurr
		}
		if numCurr+1 == end {
			switch {
			case signWrote && bracket:
				if sign == '+' {
					out.WriteByte(' ')
				} else {
					out.WriteByte('>')
				}
			case lsign == 2:
				out.WriteByte(sign)
			}
		}
		numCurr++
	}
	for _, it := range nf.items {
		if truncated {
			break
		}
		switch it.kind {
		case 'N':
			if nf.fill {
				out.WriteString(number)
			} else {
				out.WriteString(fmt.Sprintf("%15s", number))
			}
		case 0:
			out.WriteString(it.lit)
		case '9', '0', '.':
			numpart(it.kind)
		case ',':
			switch {
			case numIn:
				out.WriteByte(',')
			case !nf.fill:
				out.WriteByte(' ')
			}
		case 'L':
			out.WriteByte(' ')
		case 'M':
			switch {
			case sign == '-':
				out.WriteByte('-')
			case !nf.fill:
				out.WriteByte(' ')
			}
		case 'P':
			switch {
			case sign == '+':
				out.WriteByte('+')
			case !nf.fill:
				out.WriteByte(' ')
			}
		case 'G':
			out.WriteByte(sign)
		}
	}
	return out.String()
}

// numberDigits splits a plain decimal string into its sign and digits,
// counts the integer digits against the template and fills with '#' on
// overflow.
func (nf *numFormat) digits(s string) (string, bool, int) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	preLen := len(s)
	if p := strings.IndexByte(s, '.'); p >= 0 {
		preLen = p
	}
	if preLen > nf.pre {
		h := strings.Repeat("#", nf.pre) + "." + strings.Repeat("#", nf.post)
		return h, neg, 0
	}
	return s, neg, nf.pre - preLen
}

func toCharNumeric(d *apd.Decimal, f string) (string, error) {
	nf, err := parseNumFormat(f)
	if err != nil {
		return "", err
	}
	if nf.roman {
		var r apd.Decimal
		if _, err := numCtx.Quantize(&r, d, 0); err != nil || d.Form != apd.Finite {
			return nf.render(romanNumeral(0, nf.lowerRN), false, 0), nil
		}
		n, err := r.Int64()
		if err != nil || n > 1<<31-1 || n < -1<<31 {
			return "", errf(CodeNumericOutOfRange, "integer out of range")
		}
		return nf.render(romanNumeral(n, nf.lowerRN), false, 0), nil
	}
	if d.Form != apd.Finite {
		h := strings.Repeat("#", nf.pre) + "." + strings.Repeat("#", nf.post)
		return nf.render(h, false, 0), nil
	}
	v := d
	if nf.multi > 0 {
		var m apd.Decimal
		m.Set(d)
		m.Exponent += int32(nf.multi)
		v = &m
		nf.pre += nf.multi
	}
	var r apd.Decimal
	if _, err := numCtx.Quantize(&r, v, -int32(nf.post)); err != nil {
		return "", err
	}
	s := r.Text('f')
	if r.IsZero() {
		s = strings.TrimPrefix(s, "-")
	}
	num, neg, pre := nf.digits(s)
	return nf.render(num, neg, pre), nil
}

func toCharInt(v int64, int4 bool, f string) (string, error) {
	nf, err := parseNumFormat(f)
	if err != nil {
		return "", err
	}
	if nf.roman {
		return nf.render(romanNumeral(v, nf.lowerRN), false, 0), nil
	}
	if nf.multi > 0 {
		// PostgreSQL multiplies in the argument's width and wraps
		m := int64(math.Pow(10, float64(nf.multi)))
		if int4 {
			v = int64(int32(v) * int32(m))
		} else {
			v *= m
		}
		nf.pre += nf.multi
	}
	s := strconv.FormatInt(v, 10)
	if nf.post > 0 {
		s += "." + strings.Repeat("0", nf.post)
	}
	num, neg, pre := nf.digits(s)
	return nf.render(num, neg, pre), nil
}

func toCharFloat(v float64, digits int, f string) (string, error) {
	nf, err := parseNumFormat(f)
	if err != nil {
		return "", err
	}
	if nf.roman {
		return nf.render(romanNumeral(int64(math.RoundToEven(v)), nf.lowerRN), false, 0), nil
	}
	if nf.multi > 0 {
		v *= math.Pow(10, float64(nf.multi))
		nf.pre += nf.multi
	}
	intLen := len(strconv.FormatFloat(math.Abs(v), 'f', 0, 64))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		intLen = nf.pre + 1
	}
	switch {
	case intLen >= digits:
		nf.post = 0
	case intLen+nf.post > digits:
		nf.post = digits - intLen
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		h := strings.Repeat("#", nf.pre) + "." + strings.Repeat("#", nf.post)
		return nf.render(h, false, 0), nil
	}
	s := strconv.FormatFloat(v, 'f', nf.post, 64)
	num, neg, pre := nf.digits(s)
	return nf.render(num, neg, pre), nil
}

// romanNumeral is RN's value: 1..3999, else 15 '#'.
func romanNumeral(n int64, lower bool) string {
	if n < 1 || n > 3999 {
		return strings.Repeat("#", 15)
	}
	vals := []int64{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var sb strings.Builder
	for k, v := range vals {
		for n >= v {
			sb.WriteString(syms[k])
			n -= v
		}
	}
	if lower {
		return strings.ToLower(sb.String())
	}
	return sb.String()
}
