package exec

import "math"

// PostgreSQL's infinite dates and timestamps. A date is days since the
// Unix epoch and a timestamp µs since it (docs/sql.md); 'infinity' and
// '-infinity' are the extreme values of the storage width, as in
// PostgreSQL (DATEVAL_NOBEGIN/NOEND, DT_NOBEGIN/NOEND), so ordering,
// min/max, hashing and the Arrow columns (date32, timestamp[us]) need no
// special case: every finite date lies well inside int32 (5874897 AD is
// day 2145042906) and every finite timestamp inside int64.
//
// What does need one: text and binary input and output, the casts among
// date, timestamp and timestamptz (an infinite value stays infinite),
// ± interval and date ± integer (infinite in, the same infinity out),
// date - date and timestamp - timestamp (an error, as PostgreSQL's
// "cannot subtract infinite ..."), date_trunc, AT TIME ZONE, extract
// (±Infinity for the unbounded fields, NULL for the others), to_char
// (NULL) and isfinite.
const (
	dateNoBegin = math.MinInt32
	dateNoEnd   = math.MaxInt32
	tsNoBegin   = math.MinInt64
	tsNoEnd     = math.MaxInt64
)

// dateFinite reports whether days is neither 'infinity' nor '-infinity'.
func dateFinite(days int64) bool { return days != dateNoBegin && days != dateNoEnd }

// tsFinite reports whether us is neither 'infinity' nor '-infinity'.
func tsFinite(us int64) bool { return us != tsNoBegin && us != tsNoEnd }

// dateToTimestamp is the infinity-preserving widening of days to µs
// (midnight, before any zone shift).
func dateToTimestamp(days int64) (int64, bool) {
	switch days {
	case dateNoBegin:
		return tsNoBegin, false
	case dateNoEnd:
		return tsNoEnd, false
	}
	return days * usPerDay, true
}

// timestampToDate is the infinity-preserving day of µs.
func timestampToDate(us int64) (int64, bool) {
	switch us {
	case tsNoBegin:
		return dateNoBegin, false
	case tsNoEnd:
		return dateNoEnd, false
	}
	return floorDiv(us, usPerDay), true
}

// infinityText is the text of an infinite value, "" for a finite one.
func infinityText(neg bool) string {
	if neg {
		return "-infinity"
	}
	return "infinity"
}

// parseInfinity recognizes PostgreSQL's 'infinity' and '-infinity'
// inputs (trimmed, any case; '+infinity' is not one of them). It answers
// +1, -1 or 0.
func parseInfinity(x string) int {
	if len(x) < 8 || len(x) > 9 {
		return 0
	}
	switch {
	case equalFoldASCII(x, "infinity"):
		return 1
	case equalFoldASCII(x, "-infinity"):
		return -1
	}
	return 0
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		c, d := a[i], b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// infiniteFieldIsInfinite reports the extract fields that are ±Infinity
// for an infinite date or timestamp (PostgreSQL's
// NonFiniteTimestampTzPart); every other field is NULL.
func infiniteFieldIsInfinite(unit string) bool {
	switch unit {
	case "year", "decade", "century", "millennium", "julian", "isoyear", "epoch":
		return true
	}
	return false
}
