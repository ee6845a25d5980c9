package wire

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxZoneSeconds bounds a numeric or interval time zone as PostgreSQL's
// POSIX zone parser does (under a week: at most 167 hours).
const maxZoneSeconds = 168*3600 - 1

// zoneFromHours is the TimeZone value of a number (SET TIME ZONE -7, or
// SET TimeZone = '5.5'): that many hours east of Greenwich, written as
// PostgreSQL's SHOW prints it, a POSIX zone whose offset counts west
// (5.5 → <+05:30>-05:30).
func zoneFromHours(h float64) (string, bool) {
	if math.IsNaN(h) || math.Abs(h*3600) > maxZoneSeconds {
		return "", false
	}
	return posixZone(int(math.Round(h * 3600))), true
}

// zoneFromInterval reads the interval of SET TIME ZONE INTERVAL '…'
// HOUR TO MINUTE ([+-]h:mm, or [+-]m: a lone number is the qualifier's
// last field, so '-03' is three minutes) as an offset east of Greenwich.
func zoneFromInterval(text string) (string, *Error) {
	s := strings.TrimSpace(text)
	sign := 1
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	parts := strings.Split(s, ":")
	bad := &Error{Code: CodeInvalidDatetimeFormat, Message: fmt.Sprintf("invalid input syntax for type interval: \"%s\"", text)}
	if len(parts) > 2 || parts[0] == "" {
		return "", bad
	}
	a, err := strconv.Atoi(parts[0])
	if err != nil {
		return "", bad
	}
	secs := a * 60
	if len(parts) == 2 {
		m, err := strconv.Atoi(parts[1])
		if err != nil || m > 59 {
			return "", bad
		}
		secs = a*3600 + m*60
	}
	if secs > maxZoneSeconds {
		return "", zoneOutOfRange(fmt.Sprintf("INTERVAL '%s%d:%02d:00'", map[bool]string{true: "-", false: ""}[sign < 0], secs/3600, secs%3600/60))
	}
	return posixZone(sign * secs), nil
}

// zoneOutOfRange is PostgreSQL's refusal of an offset of a week or more.
func zoneOutOfRange(value string) *Error {
	return &Error{Code: CodeInvalidParameterValue, Message: fmt.Sprintf("invalid value for parameter \"TimeZone\": \"%s\"", value),
		Detail: "UTC timezone offset is out of range."}
}

// posixZone spells an offset east of Greenwich as <+hh[:mm[:ss]]>-hh[:mm[:ss]].
func posixZone(east int) string {
	abs := east
	sign, inverse := "+", "-"
	if east < 0 {
		abs, sign, inverse = -east, "-", "+"
	}
	digits := fmt.Sprintf("%02d", abs/3600)
	if m := abs % 3600 / 60; m != 0 || abs%60 != 0 {
		digits += fmt.Sprintf(":%02d", m)
	}
	if s := abs % 60; s != 0 {
		digits += fmt.Sprintf(":%02d", s)
	}
	return "<" + sign + digits + ">" + inverse + digits
}
