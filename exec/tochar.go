package exec

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// to_char(timestamp[tz]|date, text) for the common template patterns.
// Any letter sequence that is not a supported pattern answers 0A000 (it
// may be a PostgreSQL pattern we do not implement), so output is never
// silently different.

var toCharPatterns = []string{ // longest first
	"IDDD", "Y,YYY", "SSSSS", "SSSS", "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "MONTH", "Month", "month", "HH24", "HH12", "IYYY", "YYYY", "TZH", "TZM",
	"WW", "CC", "RM", "rm", "TH", "th", "W", "J", "DDD", "IW", "ID", "MON", "Mon", "mon", "DAY", "Day", "day",
	"TZ", "tz", "OF",
	"DY", "Dy", "dy", "AM", "PM", "am", "pm", "YY", "MM", "DD", "HH", "MI", "SS", "MS", "US", "Q", "D",
	"hh24", "hh12", "yyyy", "ddd", "yy", "mm", "dd", "hh", "mi", "ss", "ms", "us", "q", "d",
}

// dateFields are the broken-down values a template reads: a timestamp's
// wall clock, or an interval's fields (hours unbounded, signed).
type dateFields struct {
	year, month, day, hour, min, sec int
	frac                             int64 // microseconds
	yday, wday                       int
	interval                         bool
	zone                             string // TZ: the zone abbreviation (timestamptz only)
	offset                           int    // OF, TZH, TZM: seconds east of UTC
}

func toCharTime(t time.Time, frac int64, f string, zone string, offset int) (string, error) {
	return toCharFields(dateFields{year: t.Year(), month: int(t.Month()), day: t.Day(), hour: t.Hour(), min: t.Minute(), sec: t.Second(),
		frac: frac, yday: t.YearDay(), wday: int(t.Weekday()), zone: zone, offset: offset}, f)
}

// zoneOffsetText is PostgreSQL's OF / TZH form: +HH, or +HH:MM when the
// offset has minutes.
func zoneOffsetText(off int, withMinutes bool) string {
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := fmt.Sprintf("%s%02d", sign, off/3600)
	if withMinutes && off%3600 != 0 {
		s += fmt.Sprintf(":%02d", off%3600/60)
	}
	return s
}

// toCharInterval is to_char(interval, text): years, months within the
// year, days, and the time part's hours (not reduced modulo 24).
func toCharInterval(iv Interval, f string) (string, error) {
	us := iv.Micros
	return toCharFields(dateFields{year: int(iv.Months / 12), month: int(iv.Months % 12), day: int(iv.Days),
		hour: int(us / 3_600_000_000), min: int(us / 60_000_000 % 60), sec: int(us / 1_000_000 % 60), frac: us % 1_000_000, interval: true}, f)
}

func toCharFields(d dateFields, f string) (string, error) {
	var sb strings.Builder
	lastNum := -1 // the last numeric field written (for a TH/th suffix)
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
		if strings.HasPrefix(f[i:], "FM") || strings.HasPrefix(f[i:], "fm") {
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
			lastNum = n
			if fm {
				return strconv.Itoa(n)
			}
			if n < 0 {
				width++ // PostgreSQL widens the field for the sign
			}
			return fmt.Sprintf("%0*d", width, n)
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
		hour12 := d.hour % 12
		if hour12 == 0 {
			hour12 = 12
		}
		switch matched {
		case "hh24", "hh12", "yyyy", "ddd", "yy", "mm", "dd", "hh", "mi", "ss", "ms", "us", "q", "d":
			matched = strings.ToUpper(matched)
		}
		if d.interval {
			switch matched {
			case "YYYY", "YY", "MM", "DD", "HH24", "HH12", "HH", "MI", "SS", "MS", "US", "AM", "PM", "am", "pm":
			case "DDD", "Q", "q", "ddd", "IYYY", "IW", "ID":
				return "", unsupported("to_char pattern %s is not supported for intervals", matched)
			default:
				return "", errf(CodeInvalidDatetimeFormat, "invalid format specification for an interval value")
			}
		}
		switch matched {
		case "YYYY":
			sb.WriteString(num(d.year, 4))
		case "IYYY", "IW", "ID", "IDDD":
			t := time.Date(d.year, time.Month(d.month), d.day, 12, 0, 0, 0, time.UTC)
			iy, iw := t.ISOWeek()
			switch matched {
			case "IDDD":
				sb.WriteString(num((iw-1)*7+(d.wday+6)%7+1, 3))
			case "IYYY":
				sb.WriteString(num(iy, 4))
			case "IW":
				sb.WriteString(num(iw, 2))
			default:
				sb.WriteString(strconv.Itoa((d.wday+6)%7 + 1))
			}
		case "YY":
			sb.WriteString(num(d.year%100, 2))
		case "MM":
			sb.WriteString(num(d.month, 2))
		case "DD":
			if fm || d.day >= 0 {
				sb.WriteString(num(d.day, 2))
			} else {
				sb.WriteString(fmt.Sprintf("%02d", d.day)) // no sign widening for DD
			}
		case "DDD":
			sb.WriteString(num(d.yday, 3))
		case "D":
			sb.WriteString(strconv.Itoa(d.wday + 1))
		case "Q":
			sb.WriteString(strconv.Itoa((d.month-1)/3 + 1))
		case "HH24":
			sb.WriteString(num(d.hour, 2))
		case "HH12", "HH":
			sb.WriteString(num(hour12, 2))
		case "MI":
			sb.WriteString(num(d.min, 2))
		case "SS":
			sb.WriteString(num(d.sec, 2))
		case "MS":
			sb.WriteString(num(int(d.frac/1000), 3))
		case "US":
			sb.WriteString(num(int(d.frac), 6))
		case "AM", "PM":
			if d.hour%24 < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
		case "am", "pm":
			if d.hour%24 < 12 {
				sb.WriteString("am")
			} else {
				sb.WriteString("pm")
			}
		case "MONTH", "Month", "month":
			sb.WriteString(word(time.Month(d.month).String(), 9, matched == "MONTH", matched == "month"))
		case "MON", "Mon", "mon":
			sb.WriteString(word(time.Month(d.month).String()[:3], 0, matched == "MON", matched == "mon"))
		case "DAY", "Day", "day":
			sb.WriteString(word(time.Weekday(d.wday).String(), 9, matched == "DAY", matched == "day"))
		case "TH", "th":
			if lastNum >= 0 {
				sfx := ordinalSuffix(lastNum)
				if matched == "TH" {
					sfx = strings.ToUpper(sfx)
				}
				sb.WriteString(sfx)
			}
		case "Y,YYY":
			sb.WriteString(fmt.Sprintf("%d,%03d", d.year/1000, d.year%1000))
		case "SSSS", "SSSSS":
			sb.WriteString(num(d.hour*3600+d.min*60+d.sec, 0))
		case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
			n := int(matched[2] - '0')
			v := int(d.frac)
			for k := n; k < 6; k++ {
				v /= 10
			}
			sb.WriteString(fmt.Sprintf("%0*d", n, v))
		case "WW":
			sb.WriteString(num((d.yday-1)/7+1, 2))
		case "W":
			sb.WriteString(num((d.day-1)/7+1, 0))
		case "CC":
			c := (d.year + 99) / 100
			if d.year <= 0 {
				c = -((99 - d.year) / 100)
			}
			sb.WriteString(num(c, 2))
		case "J":
			sb.WriteString(num(int(daysFromCivil(d.year, time.Month(d.month), d.day))+2440588, 0))
		case "RM", "rm":
			r := romanNumeral(int64(d.month), matched == "rm")
			if !fm {
				r = fmt.Sprintf("%-4s", r)
			}
			sb.WriteString(r)
		case "TZ":
			sb.WriteString(strings.ToUpper(d.zone))
		case "tz":
			sb.WriteString(strings.ToLower(d.zone))
		case "OF":
			sb.WriteString(zoneOffsetText(d.offset, true))
		case "TZH":
			sb.WriteString(zoneOffsetText(d.offset, false))
		case "TZM":
			off := d.offset
			if off < 0 {
				off = -off
			}
			sb.WriteString(num(off%3600/60, 2))
		case "DY", "Dy", "dy":
			sb.WriteString(word(time.Weekday(d.wday).String()[:3], 0, matched == "DY", matched == "dy"))
		}
	}
	return sb.String(), nil
}

func init() {
	k := func(kind uint32) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[1].S[i] == "" {
					out.SetNull(int(i)) // PostgreSQL: an empty template gives NULL
					continue
				}
				us := a[0].I[i]
				if kind == OIDDate && !dateFinite(us) || kind != OIDDate && !tsFinite(us) {
					out.SetNull(int(i)) // timestamp_to_char: NULL for infinity
					continue
				}
				zone, offset := "", 0
				switch kind {
				case OIDDate:
					us *= usPerDay
				case OIDTimestamptz:
					zone, offset = time.Unix(floorDiv(us, 1_000_000), 0).In(ec.loc).Zone()
					us = utcToLocal(us, ec.loc)
				}
				t, frac := wallParts(us)
				s, err := toCharTime(t, frac, a[1].S[i], zone, offset)
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}
	}
	def("to_char", sig(TText, k(OIDTimestamptz), TTimestamptz, TText), sig(TText, k(OIDTimestamp), TTimestamp, TText))
	def("to_char",
		sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				s, err := toCharNumeric(&a[0].D[i], a[1].S[i])
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}, TNumeric, TText),
		sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				s, err := toCharFloat(a[0].F[i], 15, a[1].S[i])
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}, TFloat8, TText),
		sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				s, err := toCharFloat(a[0].F[i], 6, a[1].S[i])
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}, TFloat4, TText),
		sig(TText, toCharIntKernel(false), TInt8, TText),
		sig(TText, toCharIntKernel(true), TInt4, TText),
		sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[1].S[i] == "" {
					out.SetNull(int(i))
					continue
				}
				s, err := toCharInterval(a[0].V[i], a[1].S[i])
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}, TInterval, TText))
}

func toCharIntKernel(int4 bool) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, err := toCharInt(a[0].I[i], int4, a[1].S[i])
			if err != nil {
				return err
			}
			out.S[i] = s
		}
		return nil
	}
}

// ordinalSuffix is the English ordinal ending of n (TH/th).
func ordinalSuffix(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
