package exec

import (
	"strconv"
	"strings"
	"time"
)

// Date and timestamp text input in the forms PostgreSQL's DecodeDateTime
// reads besides ISO 8601 (which splitDate reads): the other DateStyles'
// output (12/31/2024, 31.12.2024, 12-31-2024, Tue Dec 31 10:00:00 2024
// UTC), month names (Dec 31 2024, December 31, 2024, 31 Dec 2024,
// 2024-Dec-31), Julian day numbers (J2451187), a year and day of year
// (1999.008, 1999-008), undelimited dates (20241231) and an era (BC, AD). An all-numeric date whose first field
// has fewer than three digits is read in the session's DateStyle field
// order; a two-digit year means 1970-2069.

// decodedDate is a decoded date with what follows it: rest is the time of
// day and zone, in the order written, for the ISO reader.
type decodedDate struct {
	y, m, d int
	bc      bool
	rest    string
}

// dateToken is one number of a date: its value and digit count.
type dateToken struct {
	n, digits int
}

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
	"dec": 12, "december": 12,
}

var dayNames = map[string]bool{
	"sun": true, "sunday": true, "mon": true, "monday": true, "tue": true, "tues": true, "tuesday": true,
	"wed": true, "wednesday": true, "wed.": true, "thu": true, "thur": true, "thurs": true, "thursday": true,
	"fri": true, "friday": true, "sat": true, "saturday": true,
}

// julianEpoch is the Julian day number of 1970-01-01.
const julianEpoch = 2440588

// decodeDate reads s (trimmed, not ISO) as a date in one of the forms
// above. ok=false: not a date PostgreSQL reads; range=true: a date whose
// fields are out of range (month is then the month as read, for the
// DateStyle hint).
func decodeDate(s string, order DateOrder) (f decodedDate, ok bool, rangeErr bool) {
	fieldsIn := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	var nums []dateToken    // loose numbers (Dec 31 2024)
	var sepNums []dateToken // the numbers of one delimited date (12/31/2024)
	month, julian := 0, -1
	doyYear, doy := 0, 0 // 1999.008
	haveDelimited, undelimited := false, false
	var rest []string
	num := func(x string) (dateToken, bool) {
		if x == "" || len(x) > 9 {
			return dateToken{}, false
		}
		for i := 0; i < len(x); i++ {
			if x[i] < '0' || x[i] > '9' {
				return dateToken{}, false
			}
		}
		n, _ := strconv.Atoi(x)
		return dateToken{n, len(x)}, true
	}
	for _, fld := range fieldsIn {
		low := strings.ToLower(fld)
		switch {
		case low == "bc":
			f.bc = true
			continue
		case low == "ad":
			continue
		case dayNames[low]:
			continue
		case monthNames[low] != 0 && month == 0:
			month = monthNames[low]
			continue
		case fld[0] == '+' || fld[0] == '-' || strings.Contains(fld, ":"):
			rest = append(rest, fld) // a time of day or a zone offset
			continue
		case (fld[0] == 'J' || fld[0] == 'j') && len(fld) > 1 && fld[1] >= '0' && fld[1] <= '9':
			if t, isNum := num(fld[1:]); isNum && julian < 0 {
				julian = t.n
				continue
			}
			return f, false, false
		}
		if t, isNum := num(fld); isNum {
			switch {
			case t.digits == 8 && !haveDelimited && month == 0 && len(nums) == 0: // YYYYMMDD
				sepNums = []dateToken{{t.n / 10000, 4}, {t.n / 100 % 100, 2}, {t.n % 100, 2}}
				haveDelimited = true
			case t.digits == 6 && !haveDelimited && month == 0 && len(nums) == 0: // YYMMDD
				sepNums = []dateToken{{t.n / 10000, 2}, {t.n / 100 % 100, 2}, {t.n % 100, 2}}
				haveDelimited, undelimited = true, true
			default:
				nums = append(nums, t)
			}
			continue
		}
		if delimitedDate(fld) {
			parts := strings.FieldsFunc(fld, isDateDelim)
			if len(parts) == 2 && !haveDelimited && doy == 0 {
				// year and day of year (1999.008, 1999-008): a year of
				// three or more digits, then three digits 1-366
				y, yok := num(parts[0])
				d, dok := num(parts[1])
				if yok && dok && y.digits > 2 && d.digits == 3 && d.n >= 1 && d.n <= 366 {
					doyYear, doy = y.n, d.n
					continue
				}
			}
			if len(parts) != 3 || haveDelimited {
				return f, false, false
			}
			for _, p := range parts {
				if m := monthNames[strings.ToLower(p)]; m != 0 && month == 0 {
					month = m
					continue
				}
				t, isNum := num(p)
				if !isNum {
					return f, false, false
				}
				sepNums = append(sepNums, t)
			}
			haveDelimited = true
			continue
		}
		rest = append(rest, fld) // a zone name or abbreviation, checked by the reader
	}
	if julian >= 0 {
		if month != 0 || haveDelimited || len(nums) > 0 {
			return f, false, false
		}
		t := time.Unix(int64(julian-julianEpoch)*86400, 0).UTC()
		f.y, f.m, f.d = t.Year(), int(t.Month()), t.Day()
		if f.y <= 0 {
			f.y, f.bc = 1-f.y, !f.bc
		}
		f.rest = strings.Join(rest, " ")
		return f, true, false
	}
	if doy > 0 {
		if month != 0 || haveDelimited || len(nums) > 0 {
			return f, false, false
		}
		// day 366 of a common year is January 1 of the next, as
		// PostgreSQL counts it (date2j(year, 1, 1) + doy - 1)
		y := doyYear
		if f.bc {
			y = 1 - y
		}
		t := time.Date(y, time.January, doy, 0, 0, 0, 0, time.UTC)
		f.y, f.m, f.d = t.Year(), int(t.Month()), t.Day()
		if f.bc {
			f.y = 1 - f.y
		}
		f.rest = strings.Join(rest, " ")
		return f, true, false
	}
	var year dateToken
	switch {
	case month != 0:
		// a month name: of the two numbers, one with more than two digits
		// (or above 31) is the year, else the order decides
		all := append(sepNums, nums...)
		if len(all) != 2 {
			return f, false, false
		}
		a, b := all[0], all[1]
		if a.digits > 2 || (order == OrderYMD && b.digits <= 2) {
			year, f.d = a, b.n
		} else {
			year, f.d = b, a.n
		}
		f.m = month
	case haveDelimited && len(sepNums) == 3 && len(nums) == 0:
		a, b, c := sepNums[0], sepNums[1], sepNums[2]
		switch {
		case a.digits > 2 || order == OrderYMD || undelimited:
			year, f.m, f.d = a, b.n, c.n
		case order == OrderDMY:
			f.d, f.m, year = a.n, b.n, c
		default:
			f.m, f.d, year = a.n, b.n, c
		}
	default:
		return f, false, false
	}
	f.y = year.n
	if year.digits <= 2 && !f.bc {
		if f.y < 70 {
			f.y += 2000
		} else {
			f.y += 1900
		}
	}
	if f.bc && f.y == 0 {
		return f, false, true
	}
	f.rest = strings.Join(rest, " ")
	return f, true, false
}

// delimitedDate reports a field such as 12/31/2024, 31.12.2024 or
// 2024-Dec-31: parts joined by - / or . beginning with a digit or a month.
func delimitedDate(fld string) bool {
	parts := strings.FieldsFunc(fld, isDateDelim)
	if len(parts) < 2 || !strings.ContainsAny(fld, "-/.") {
		return false
	}
	return fld[0] >= '0' && fld[0] <= '9' || monthNames[strings.ToLower(parts[0])] != 0
}

func isDateDelim(r rune) bool { return r == '-' || r == '/' || r == '.' }

// stripEra removes a trailing BC or AD from s, reporting BC.
func stripEra(s string) (string, bool) {
	if n := len(s); n > 3 && (s[n-3] == ' ') {
		switch strings.ToUpper(s[n-2:]) {
		case "BC":
			return strings.TrimSpace(s[:n-3]), true
		case "AD":
			return strings.TrimSpace(s[:n-3]), false
		}
	}
	return s, false
}
