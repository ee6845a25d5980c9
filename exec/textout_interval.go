package exec

import (
	"strconv"
	"strings"
)

// Interval text output in the four IntervalStyles, as PostgreSQL's
// EncodeInterval writes them. The fields are years and months (from the
// months), days, and hours, minutes, seconds and microseconds (from the
// time part), each truncated toward zero, so a field's sign is its part's.

type intervalFields struct {
	year, mon, day, hour, min, sec, usec int64
}

func splitInterval(iv Interval) intervalFields {
	t := iv.Micros
	return intervalFields{
		year: int64(iv.Months / 12), mon: int64(iv.Months % 12), day: int64(iv.Days),
		hour: t / 3600_000_000, min: t / 60_000_000 % 60, sec: t / 1_000_000 % 60, usec: t % 1_000_000,
	}
}

// formatIntervalStyled renders iv in an IntervalStyle (postgres: "1 year
// 2 mons -3 days +04:05:06").
func formatIntervalStyled(iv Interval, style IntervalStyle) string {
	f := splitInterval(iv)
	var sb strings.Builder
	switch style {
	case IntervalSQLStandard:
		writeIntervalSQL(&sb, f)
	case IntervalISO8601:
		writeIntervalISO(&sb, f)
	case IntervalPostgresVerbose:
		writeIntervalVerbose(&sb, f)
	default:
		writeIntervalPostgres(&sb, f)
	}
	return sb.String()
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// writeSeconds is AppendSeconds: |sec| (two digits when fill) and the
// fraction without trailing zeros.
func writeSeconds(sb *strings.Builder, sec, usec int64, fill bool) {
	if fill {
		write2(sb, int(abs64(sec)))
	} else {
		sb.WriteString(strconv.FormatInt(abs64(sec), 10))
	}
	writeFrac(sb, abs64(usec))
}

func writeIntervalPostgres(sb *strings.Builder, f intervalFields) {
	isZero, isBefore := true, false
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if !isZero {
			sb.WriteByte(' ')
		}
		if isBefore && n > 0 {
			sb.WriteByte('+')
		}
		sb.WriteString(strconv.FormatInt(n, 10))
		sb.WriteByte(' ')
		sb.WriteString(unit)
		if n != 1 {
			sb.WriteByte('s')
		}
		// each nonzero field sets is_before for the next one only
		isBefore, isZero = n < 0, false
	}
	part(f.year, "year")
	part(f.mon, "mon")
	part(f.day, "day")
	if isZero || f.hour != 0 || f.min != 0 || f.sec != 0 || f.usec != 0 {
		if !isZero {
			sb.WriteByte(' ')
		}
		switch {
		case f.hour < 0 || f.min < 0 || f.sec < 0 || f.usec < 0:
			sb.WriteByte('-')
		case isBefore:
			sb.WriteByte('+')
		}
		write2h(sb, abs64(f.hour))
		sb.WriteByte(':')
		write2(sb, int(abs64(f.min)))
		sb.WriteByte(':')
		writeSeconds(sb, f.sec, f.usec, true)
	}
}

// write2h writes hours with at least two digits.
func write2h(sb *strings.Builder, h int64) {
	if h < 10 {
		sb.WriteByte('0')
	}
	sb.WriteString(strconv.FormatInt(h, 10))
}

func writeIntervalVerbose(sb *strings.Builder, f intervalFields) {
	sb.WriteByte('@')
	isZero, isBefore := true, false
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		// the first nonzero field decides "ago"; later ones print
		// relative to it
		if isZero {
			isBefore = n < 0
			n = abs64(n)
		} else if isBefore {
			n = -n
		}
		sb.WriteByte(' ')
		sb.WriteString(strconv.FormatInt(n, 10))
		sb.WriteByte(' ')
		sb.WriteString(unit)
		if n != 1 {
			sb.WriteByte('s')
		}
		isZero = false
	}
	part(f.year, "year")
	part(f.mon, "mon")
	part(f.day, "day")
	part(f.hour, "hour")
	part(f.min, "min")
	if f.sec != 0 || f.usec != 0 {
		sb.WriteByte(' ')
		if f.sec < 0 || (f.sec == 0 && f.usec < 0) {
			if isZero {
				isBefore = true
			} else if !isBefore {
				sb.WriteByte('-')
			}
		} else if isBefore {
			sb.WriteByte('-')
		}
		writeSeconds(sb, f.sec, f.usec, false)
		sb.WriteString(" sec")
		if abs64(f.sec) != 1 || f.usec != 0 {
			sb.WriteByte('s')
		}
		isZero = false
	}
	if isZero {
		sb.WriteString(" 0")
	}
	if isBefore {
		sb.WriteString(" ago")
	}
}

func writeIntervalSQL(sb *strings.Builder, f intervalFields) {
	neg := f.year < 0 || f.mon < 0 || f.day < 0 || f.hour < 0 || f.min < 0 || f.sec < 0 || f.usec < 0
	pos := f.year > 0 || f.mon > 0 || f.day > 0 || f.hour > 0 || f.min > 0 || f.sec > 0 || f.usec > 0
	hasYM := f.year != 0 || f.mon != 0
	hasDT := f.day != 0 || f.hour != 0 || f.min != 0 || f.sec != 0 || f.usec != 0
	standard := !(neg && pos) && !(hasYM && hasDT)
	if neg && standard {
		// one sign before the whole value
		sb.WriteByte('-')
		f = intervalFields{-f.year, -f.mon, -f.day, -f.hour, -f.min, -f.sec, -f.usec}
	}
	clock := func() {
		sb.WriteString(strconv.FormatInt(abs64(f.hour), 10))
		sb.WriteByte(':')
		write2(sb, int(abs64(f.min)))
		sb.WriteByte(':')
		writeSeconds(sb, f.sec, f.usec, true)
	}
	sign := func(neg bool) {
		if neg {
			sb.WriteByte('-')
		} else {
			sb.WriteByte('+')
		}
	}
	switch {
	case !neg && !pos:
		sb.WriteByte('0')
	case !standard:
		// mixed signs or both parts: every part signed
		sign(f.year < 0 || f.mon < 0)
		sb.WriteString(strconv.FormatInt(abs64(f.year), 10) + "-" + strconv.FormatInt(abs64(f.mon), 10) + " ")
		sign(f.day < 0)
		sb.WriteString(strconv.FormatInt(abs64(f.day), 10) + " ")
		sign(f.hour < 0 || f.min < 0 || f.sec < 0 || f.usec < 0)
		clock()
	case hasYM:
		sb.WriteString(strconv.FormatInt(f.year, 10) + "-" + strconv.FormatInt(f.mon, 10))
	case f.day != 0:
		sb.WriteString(strconv.FormatInt(f.day, 10) + " ")
		clock()
	default:
		clock()
	}
}

func writeIntervalISO(sb *strings.Builder, f intervalFields) {
	if f == (intervalFields{}) {
		sb.WriteString("PT0S")
		return
	}
	sb.WriteByte('P')
	part := func(n int64, unit byte) {
		if n != 0 {
			sb.WriteString(strconv.FormatInt(n, 10))
			sb.WriteByte(unit)
		}
	}
	part(f.year, 'Y')
	part(f.mon, 'M')
	part(f.day, 'D')
	if f.hour != 0 || f.min != 0 || f.sec != 0 || f.usec != 0 {
		sb.WriteByte('T')
	}
	part(f.hour, 'H')
	part(f.min, 'M')
	if f.sec != 0 || f.usec != 0 {
		if f.sec < 0 || f.usec < 0 {
			sb.WriteByte('-')
		}
		writeSeconds(sb, f.sec, f.usec, false)
		sb.WriteByte('S')
	}
}
