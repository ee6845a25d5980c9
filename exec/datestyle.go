package exec

import "strings"

// DateStyle is a session's DateStyle and IntervalStyle settings: how text
// output renders date, timestamp, timestamptz and interval values, and the
// field order text input reads an ambiguous date such as 01/02/2024 in.
// The zero value is PostgreSQL's default: ISO, MDY with IntervalStyle
// postgres. Binary format does not depend on it.
type DateStyle struct {
	Output   DateOutput
	Order    DateOrder
	Interval IntervalStyle
}

// DateOutput is DateStyle's output style.
type DateOutput uint8

const (
	DateISO      DateOutput = iota // 2024-12-31 10:00:00+00
	DateSQL                        // 12/31/2024 10:00:00 UTC
	DatePostgres                   // Tue Dec 31 10:00:00 2024 UTC
	DateGerman                     // 31.12.2024 10:00:00 UTC
)

// DateOrder is DateStyle's field order.
type DateOrder uint8

const (
	OrderMDY DateOrder = iota
	OrderDMY
	OrderYMD
)

// IntervalStyle is the IntervalStyle setting.
type IntervalStyle uint8

const (
	IntervalPostgres        IntervalStyle = iota // 1 year 2 mons 3 days 04:05:06
	IntervalPostgresVerbose                      // @ 1 year 2 mons 3 days 4 hours 5 mins 6 secs
	IntervalSQLStandard                          // +1-2 +3 +4:05:06
	IntervalISO8601                              // P1Y2M3DT4H5M6S
)

// ParseDateStyle reads the normalized setting values ("SQL, DMY",
// "iso_8601"); unknown parts keep the defaults.
func ParseDateStyle(dateStyle, intervalStyle string) DateStyle {
	var st DateStyle
	for _, part := range strings.Split(dateStyle, ",") {
		switch strings.ToUpper(strings.TrimSpace(part)) {
		case "SQL":
			st.Output = DateSQL
		case "POSTGRES":
			st.Output = DatePostgres
		case "GERMAN":
			st.Output = DateGerman
		case "DMY":
			st.Order = OrderDMY
		case "YMD":
			st.Order = OrderYMD
		}
	}
	switch strings.ToLower(strings.TrimSpace(intervalStyle)) {
	case "postgres_verbose":
		st.Interval = IntervalPostgresVerbose
	case "sql_standard":
		st.Interval = IntervalSQLStandard
	case "iso_8601":
		st.Interval = IntervalISO8601
	}
	return st
}
