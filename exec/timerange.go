package exec

import "math"

// PostgreSQL's date/time ranges: dates from 4714-11-24 BC to 5874897-12-31,
// timestamps from 4714-11-24 00:00 BC to 294276-12-31 23:59:59.999999.
// Arithmetic that leaves them, and interval arithmetic that overflows an
// interval field, fails with 22008 as in PostgreSQL instead of wrapping.

const (
	minDateDays = -2440588   // 4714-11-24 BC, days since 1970-01-01
	maxDateDays = 2145042905 // 5874897-12-31
	minTSMicros = -210866803200000000
	// PostgreSQL's end (294277-01-01) is beyond int64 µs since 1970; exec's
	// timestamps end at the int64 limit (year 294247)
	endTSMicros = math.MaxInt64
)

func dateInRange(d int64) bool { return d >= minDateDays && d <= maxDateDays }
func tsInRange(us int64) bool  { return us >= minTSMicros && us < endTSMicros }

func errDateRange() error { return errf(CodeDatetimeFieldOverflow, "date out of range") }
func errTSRange() error   { return errf(CodeDatetimeFieldOverflow, "timestamp out of range") }
func errIntervalRange() error {
	return errf(CodeDatetimeFieldOverflow, "interval out of range")
}

// addIntervals is x + y with PostgreSQL's per-field overflow check.
func addIntervals(x, y Interval) (Interval, error) {
	m := int64(x.Months) + int64(y.Months)
	d := int64(x.Days) + int64(y.Days)
	us := x.Micros + y.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (x.Micros > 0) == (y.Micros > 0) && (us > 0) != (x.Micros > 0) && x.Micros != 0 && y.Micros != 0 {
		return Interval{}, errIntervalRange()
	}
	return Interval{int32(m), int32(d), us}, nil
}

// scaleFits reports whether scaleInterval(v, f) stays within the fields'
// ranges (PostgreSQL: "interval out of range").
func scaleFits(v Interval, f float64) bool {
	m := float64(v.Months) * f
	d := float64(v.Days)*f + (m-math.Trunc(m))*30
	us := float64(v.Micros)*f + (d-math.Trunc(d))*float64(usPerDay)
	ok := func(x, lim float64) bool { return !math.IsNaN(x) && math.Abs(x) <= lim }
	return ok(m, math.MaxInt32) && ok(d, math.MaxInt32) && ok(us, 9.2e18)
}
