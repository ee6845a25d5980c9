package exec

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// LoadTimeZone resolves a TimeZone setting the way PostgreSQL reads it:
// UTC/GMT/Z; a plain number, hours east of Greenwich; a POSIX specification — an optional abbreviation (letters,
// or anything in <…>) followed by an offset [+-]hh[:mm[:ss]] counted
// positive WEST of Greenwich, so '+05:30' and '<+05:30>-05:30' name
// opposite zones ("SET TIME ZONE 5.5" is stored in the second form, as
// PostgreSQL's SHOW prints it); a tz database name; a time zone
// abbreviation. The error is 22023.
func LoadTimeZone(setting string) (*time.Location, error) {
	name := strings.TrimSpace(setting)
	if name == "" {
		return nil, errf(CodeInvalidParameterValue, "time zone \"%s\" not recognized", setting)
	}
	if strings.EqualFold(name, "utc") || strings.EqualFold(name, "gmt") || strings.EqualFold(name, "z") {
		return time.UTC, nil
	}
	// a plain number is hours EAST (PostgreSQL reads it before POSIX)
	if h, err := strconv.ParseFloat(name, 64); err == nil {
		if math.IsNaN(h) || math.Abs(h) >= 168 {
			return nil, errf(CodeInvalidParameterValue, "time zone \"%s\" not recognized", setting)
		}
		off := int(math.Round(h * 3600))
		var abbr strings.Builder
		writeOffset(&abbr, off) // PostgreSQL stores '5' as <+05>-05
		return time.FixedZone(abbr.String(), off), nil
	}
	if abbr, west, ok := parsePosixZone(name); ok {
		// '-03:30' has no abbreviation: the zone's is empty, as PostgreSQL
		// prints it (zoneAbbrev)
		return time.FixedZone(abbr, -west), nil
	}
	return loadZone(name)
}

// parsePosixZone splits a POSIX zone without daylight rules into its
// abbreviation and its offset in seconds west of Greenwich. Names the tz
// database knows (EST5EDT, Etc/GMT+3) are not POSIX specifications here;
// loadZone reads them.
func parsePosixZone(s string) (abbr string, west int, ok bool) {
	rest := s
	switch {
	case strings.HasPrefix(rest, "<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return "", 0, false
		}
		abbr, rest = rest[1:end], rest[end+1:]
	default:
		i := 0
		for i < len(rest) && (rest[i] >= 'A' && rest[i] <= 'Z' || rest[i] >= 'a' && rest[i] <= 'z') {
			i++
		}
		if i > 0 && i < 3 {
			return "", 0, false // POSIX abbreviations have at least three letters
		}
		abbr, rest = rest[:i], rest[i:]
	}
	if rest == "" {
		return "", 0, false
	}
	if abbr != "" && !strings.HasPrefix(s, "<") {
		if _, err := time.LoadLocation(s); err == nil {
			return "", 0, false
		}
	}
	sign := 1
	switch rest[0] {
	case '+':
		rest = rest[1:]
	case '-':
		sign, rest = -1, rest[1:]
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return "", 0, false
	}
	limits := []int{167, 59, 59} // PostgreSQL's POSIX parser: under a week
	secs := 0
	for k, p := range parts {
		if p == "" || len(p) > 3 || k > 0 && len(p) > 2 {
			return "", 0, false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > limits[k] {
			return "", 0, false
		}
		secs += n * []int{3600, 60, 1}[k]
	}
	return abbr, sign * secs, true
}
