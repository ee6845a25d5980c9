package exec

import (
	"strings"
	"time"
)

// to_timestamp(text, template) and to_date(text, template): the input is
// read field by field with the template patterns to_char prints (YYYY YY
// MM DD DDD HH24 HH12 HH MI SS MS US AM/PM Month Mon, FM, quoted text);
// a separator in the template matches one separator in the input (or
// none), blanks are skipped before fields, a field followed by a
// separator (or under FM) reads all its digits. Other patterns answer
// 0A000.

type parsedDate struct {
	year, month, day, yday int
	hour, min, sec         int
	micros                 int64
	pm, hasAMPM, hour12    bool
	haveYear               bool
}

var toTimestampPatterns = []string{"HH24", "HH12", "YYYY", "MONTH", "Month", "month", "DDD", "MON", "Mon", "mon",
	"AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.", "YY", "MM", "DD", "HH", "MI", "SS", "MS", "US",
	"hh24", "hh12", "yyyy", "ddd", "yy", "mm", "dd", "hh", "mi", "ss", "ms", "us"}

func isSep(c byte) bool {
	return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

func parseDateTemplate(in, f string) (*parsedDate, error) {
	pd := &parsedDate{month: 1, day: 1}
	p := 0
	skipBlanks := func() {
		for p < len(in) && in[p] == ' ' {
			p++
		}
	}
	for i := 0; i < len(f); {
		if f[i] == '"' {
			j := strings.IndexByte(f[i+1:], '"')
			lit := f[i+1:]
			if j >= 0 {
				lit = f[i+1 : i+1+j]
				i += j + 2
			} else {
				i = len(f)
			}
			p = min(p+len(lit), len(in))
			continue
		}
		fm := false
		if strings.HasPrefix(f[i:], "FM") {
			fm = true
			i += 2
		}
		matched := ""
		for _, pat := range toTimestampPatterns {
			if strings.HasPrefix(f[i:], pat) {
				matched = pat
				break
			}
		}
		if matched == "" {
			c := f[i]
			if !isSep(c) {
				return nil, unsupported("to_timestamp/to_date pattern at \"%s\" is not supported", f[i:])
			}
			i++
			if c == ' ' {
				skipBlanks()
				continue
			}
			if p < len(in) && isSep(in[p]) {
				p++
			}
			continue
		}
		i += len(matched)
		up := strings.ToUpper(matched)
		nextSep := i >= len(f) || isSep(f[i])
		readNum := func(width int) (int, error) {
			skipBlanks()
			start := p
			neg := false
			if p < len(in) && in[p] == '-' && (up == "YYYY" || up == "YY") {
				neg = true
				p++
			}
			digits := p
			for p < len(in) && in[p] >= '0' && in[p] <= '9' && (fm || nextSep || p-digits < width) {
				p++
			}
			if p == digits {
				bad := in[start:]
				if k := strings.IndexFunc(bad, func(r rune) bool { return r < 128 && isSep(byte(r)) }); k >= 0 {
					bad = bad[:k]
				}
				if bad == "" {
					return 0, &Error{Code: CodeInvalidDatetimeFormat, Message: "source string too short for \"" + matched + "\" formatting field",
						Detail: "Field requires " + itoa(int64(width)) + " characters, but only 0 remain.",
						Hint:   "If your source string is not fixed-width, try using the \"FM\" modifier."}
				}
				return 0, &Error{Code: CodeInvalidDatetimeFormat, Message: "invalid value \"" + bad + "\" for \"" + matched + "\"", Detail: "Value must be an integer."}
			}
			n := 0
			for _, c := range in[digits:p] {
				n = n*10 + int(c-'0')
				if n > 1<<30 {
					return 0, errf(CodeDatetimeFieldOverflow, "value for \"%s\" in source string is out of range", matched)
				}
			}
			if neg {
				n = -n
			}
			return n, nil
		}
		var err error
		switch up {
		case "YYYY":
			pd.year, err = readNum(4)
			pd.haveYear = true
		case "YY":
			var y int
			if y, err = readNum(2); err == nil {
				if y < 70 {
					y += 2000
				} else if y < 100 {
					y += 1900
				}
				pd.year, pd.haveYear = y, true
			}
		case "MM":
			pd.month, err = readNum(2)
		case "DD":
			pd.day, err = readNum(2)
		case "DDD":
			pd.yday, err = readNum(3)
		case "HH24":
			pd.hour, err = readNum(2)
		case "HH12", "HH":
			pd.hour, err = readNum(2)
			pd.hour12 = true
		case "MI":
			pd.min, err = readNum(2)
		case "SS":
			pd.sec, err = readNum(2)
		case "MS", "US":
			skipBlanks()
			start := p
			width := 3
			if up == "US" {
				width = 6
			}
			for p < len(in) && in[p] >= '0' && in[p] <= '9' && (fm || nextSep || p-start < width) {
				p++
			}
			digits := in[start:p]
			if digits == "" {
				return nil, &Error{Code: CodeInvalidDatetimeFormat, Message: "invalid value \"" + in[start:] + "\" for \"" + matched + "\"", Detail: "Value must be an integer."}
			}
			v := int64(0)
			for _, c := range digits {
				v = v*10 + int64(c-'0')
			}
			// the digits are a fraction: "5" for MS is 500 ms
			for k := len(digits); k < width; k++ {
				v *= 10
			}
			if up == "MS" {
				v *= 1000
			}
			pd.micros += v
		case "AM", "PM", "A.M.", "P.M.":
			skipBlanks()
			rest := strings.ToUpper(in[p:])
			switch {
			case strings.HasPrefix(rest, "A.M.") && len(matched) == 4, strings.HasPrefix(rest, "AM") && len(matched) == 2:
				p += len(matched)
			case strings.HasPrefix(rest, "P.M.") && len(matched) == 4, strings.HasPrefix(rest, "PM") && len(matched) == 2:
				p += len(matched)
				pd.pm = true
			default:
				return nil, &Error{Code: CodeInvalidDatetimeFormat, Message: "invalid value \"" + firstWord(in[p:]) + "\" for \"" + matched + "\"", Detail: "The given value did not match any of the allowed values for this field."}
			}
			pd.hasAMPM = true
		case "MONTH", "MON":
			skipBlanks()
			rest := strings.ToLower(in[p:])
			found := false
			for m := time.January; m <= time.December; m++ {
				name := strings.ToLower(m.String())
				if up == "MON" {
					name = name[:3]
				}
				if strings.HasPrefix(rest, name) {
					pd.month, found = int(m), true
					p += len(name)
					break
				}
			}
			if !found {
				return nil, &Error{Code: CodeInvalidDatetimeFormat, Message: "invalid value \"" + firstWord(in[p:]) + "\" for \"" + matched + "\"", Detail: "The given value did not match any of the allowed values for this field."}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if pd.hour12 || pd.hasAMPM {
		if pd.hour < 1 || pd.hour > 12 {
			return nil, &Error{Code: CodeInvalidDatetimeFormat, Message: "hour \"" + itoa(int64(pd.hour)) + "\" is invalid for the 12-hour clock", Hint: "Use the 24-hour clock, or give an hour between 1 and 12."}
		}
		if pd.pm && pd.hour < 12 {
			pd.hour += 12
		} else if !pd.pm && pd.hour == 12 {
			pd.hour = 0
		}
	}
	if !pd.haveYear {
		pd.year = 0 // PostgreSQL's default: 1 BC
	}
	if pd.yday > 0 {
		t := time.Date(pd.year, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, pd.yday-1)
		pd.month, pd.day = int(t.Month()), t.Day()
	}
	return pd, nil
}

func firstWord(s string) string {
	if k := strings.IndexByte(s, ' '); k >= 0 {
		return s[:k]
	}
	return s
}

func (pd *parsedDate) check(in string, withTime bool) error {
	if pd.month < 1 || pd.month > 12 || pd.day < 1 || pd.day > 31 || !validCivil(pd.year, pd.month, pd.day) {
		return errf(CodeDatetimeFieldOverflow, "date/time field value out of range: \"%s\"", in)
	}
	if withTime && (pd.hour > 24 || pd.min > 59 || pd.sec > 60 || (pd.hour == 24 && (pd.min > 0 || pd.sec > 0 || pd.micros > 0))) {
		return errf(CodeDatetimeFieldOverflow, "date/time field value out of range: \"%s\"", in)
	}
	return nil
}

func init() {
	def("to_timestamp", sig(TTimestamptz, func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			pd, err := parseDateTemplate(a[0].S[i], a[1].S[i])
			if err != nil {
				return err
			}
			if err := pd.check(a[0].S[i], true); err != nil {
				return err
			}
			wall := daysFromCivil(pd.year, time.Month(pd.month), pd.day)*usPerDay +
				int64(pd.hour)*3_600_000_000 + int64(pd.min)*60_000_000 + int64(pd.sec)*1_000_000 + pd.micros
			loc := ec.loc
			if loc == nil {
				loc = time.UTC
			}
			out.I[i] = localToUTC(wall, loc)
		}
		return nil
	}, TText, TText))
	def("to_date", sig(TDate, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			pd, err := parseDateTemplate(a[0].S[i], a[1].S[i])
			if err != nil {
				return err
			}
			if err := pd.check(a[0].S[i], false); err != nil {
				return err
			}
			out.I[i] = daysFromCivil(pd.year, time.Month(pd.month), pd.day)
		}
		return nil
	}, TText, TText))
}
