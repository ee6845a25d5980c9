package exec

import (
	"strconv"
	"strings"
	"time"
)

// to_char(timestamp[tz]|date, text) for the common template patterns.
// Any letter sequence that is not a supported pattern answers 0A000 (it
// may be a PostgreSQL pattern we do not implement), so output is never
// silently different.

var toCharPatterns = []string{ // longest first
	"MONTH", "Month", "month", "HH24", "HH12", "YYYY", "DDD", "MON", "Mon", "mon", "DAY", "Day", "day",
	"DY", "Dy", "dy", "AM", "PM", "am", "pm", "YY", "MM", "DD", "HH", "MI", "SS", "MS", "US", "Q", "D",
	"hh24", "hh12", "yyyy", "ddd", "yy", "mm", "dd", "hh", "mi", "ss", "ms", "us", "q", "d",
}

func toCharTime(t time.Time, frac int64, f string) (string, error) {
	var sb strings.Builder
	for i := 0; i < len(f); {
		if f[i] == '"' {
			j := strings.IndexByte(f[i+1:], '"')
			if j < 0 {
				sb.WriteString(f[i+1:])
				break
			}
			sb.WriteString(f[i+1 : i+1+j])
			i += j + 2
			continue
		}
		fm := false
		if strings.HasPrefix(f[i:], "FM") {
			fm = true
			i += 2
		}
		matched := ""
		for _, p := range toCharPatterns {
			if strings.HasPrefix(f[i:], p) {
				matched = p
				break
			}
		}
		if matched == "" {
			c := f[i]
			if (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') {
				return "", unsupported("to_char pattern at \"%s\" is not supported", f[i:])
			}
			sb.WriteByte(c)
			i++
			continue
		}
		i += len(matched)
		num := func(n, width int) string {
			s := strconv.Itoa(n)
			if !fm {
				for len(s) < width {
					s = "0" + s
				}
			}
			return s
		}
		word := func(s string, width int, upper, lower bool) string {
			switch {
			case upper:
				s = strings.ToUpper(s)
			case lower:
				s = strings.ToLower(s)
			}
			if !fm {
				for len(s) < width {
					s += " "
				}
			}
			return s
		}
		hour12 := t.Hour() % 12
		if hour12 == 0 {
			hour12 = 12
		}
		switch matched {
		case "hh24", "hh12", "yyyy", "ddd", "yy", "mm", "dd", "hh", "mi", "ss", "ms", "us", "q", "d":
			matched = strings.ToUpper(matched)
		}
		switch matched {
		case "YYYY":
			sb.WriteString(num(t.Year(), 4))
		case "YY":
			sb.WriteString(num(t.Year()%100, 2))
		case "MM":
			sb.WriteString(num(int(t.Month()), 2))
		case "DD":
			sb.WriteString(num(t.Day(), 2))
		case "DDD":
			sb.WriteString(num(t.YearDay(), 3))
		case "D":
			sb.WriteString(strconv.Itoa(int(t.Weekday()) + 1))
		case "Q":
			sb.WriteString(strconv.Itoa((int(t.Month())-1)/3 + 1))
		case "HH24":
			sb.WriteString(num(t.Hour(), 2))
		case "HH12", "HH":
			sb.WriteString(num(hour12, 2))
		case "MI":
			sb.WriteString(num(t.Minute(), 2))
		case "SS":
			sb.WriteString(num(t.Second(), 2))
		case "MS":
			sb.WriteString(num(int(frac/1000), 3))
		case "US":
			sb.WriteString(num(int(frac), 6))
		case "AM", "PM":
			if t.Hour() < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
		case "am", "pm":
			if t.Hour() < 12 {
				sb.WriteString("am")
			} else {
				sb.WriteString("pm")
			}
		case "MONTH", "Month", "month":
			sb.WriteString(word(t.Month().String(), 9, matched == "MONTH", matched == "month"))
		case "MON", "Mon", "mon":
			sb.WriteString(word(t.Month().String()[:3], 0, matched == "MON", matched == "mon"))
		case "DAY", "Day", "day":
			sb.WriteString(word(t.Weekday().String(), 9, matched == "DAY", matched == "day"))
		case "DY", "Dy", "dy":
			sb.WriteString(word(t.Weekday().String()[:3], 0, matched == "DY", matched == "dy"))
		}
	}
	return sb.String(), nil
}

func init() {
	k := func(kind uint32) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				us := a[0].I[i]
				switch kind {
				case OIDDate:
					us *= usPerDay
				case OIDTimestamptz:
					us = utcToLocal(us, ec.loc)
				}
				t, frac := wallParts(us)
				s, err := toCharTime(t, frac, a[1].S[i])
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}
	}
	def("to_char", sig(TText, k(OIDTimestamptz), TTimestamptz, TText), sig(TText, k(OIDTimestamp), TTimestamp, TText))
	numeric := func(_ *evalCtx, _ []*Vec, _ *Vec, _ []int32) error {
		return unsupported("to_char for numbers and intervals is not supported")
	}
	def("to_char", sig(TText, numeric, TNumeric, TText), sig(TText, numeric, TFloat8, TText), sig(TText, numeric, TInt8, TText), sig(TText, numeric, TInterval, TText))
}
