package exec

import (
	"strings"
	"time"
)

// Date and timestamp text output in the DateStyle output styles other than
// ISO, as PostgreSQL's EncodeDateOnly and EncodeDateTime write them:
//
//	SQL       12/31/2024  12/31/2024 10:00:00.5 UTC   (DMY: 31/12/2024)
//	Postgres  12-31-2024  Tue Dec 31 10:00:00.5 2024 UTC   (DMY: 31-12-2024, Tue 31 Dec ...)
//	German    31.12.2024  31.12.2024 10:00:00.5 UTC
//
// timestamptz carries the zone's abbreviation (not its offset) in these
// styles; years before 1 AD print as their BC year with a " BC" suffix.
// time and timetz print the same in every style.

var (
	monthAbbrevs = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	dayAbbrevs   = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
)

// formatDateStyled is date output in st.
func formatDateStyled(days int64, st DateStyle) string {
	if st.Output == DateISO || !dateFinite(days) {
		return formatDate(days)
	}
	y, m, d := civil(days)
	var sb strings.Builder
	bc := writeStyledDate(&sb, y, int(m), d, st)
	if bc {
		sb.WriteString(" BC")
	}
	return sb.String()
}

// writeStyledDate writes the day part of the SQL, Postgres (date only)
// and German styles; it reports whether the year is BC.
func writeStyledDate(sb *strings.Builder, y, m, d int, st DateStyle) bool {
	sep := byte('/')
	switch st.Output {
	case DatePostgres:
		sep = '-'
	case DateGerman:
		sep = '.'
	}
	if st.Output == DateGerman || st.Order == OrderDMY {
		write2(sb, d)
		sb.WriteByte(sep)
		write2(sb, m)
	} else {
		write2(sb, m)
		sb.WriteByte(sep)
		write2(sb, d)
	}
	sb.WriteByte(sep)
	return formatYear(sb, y)
}

// formatTimestampStyled is timestamp (loc nil) or timestamptz (in loc)
// output in st.
func formatTimestampStyled(us int64, loc *time.Location, st DateStyle) string {
	if st.Output == DateISO || !tsFinite(us) {
		return formatTimestamp(us, loc)
	}
	secs := floorDiv(us, 1_000_000)
	frac := us - secs*1_000_000
	var t time.Time
	if loc != nil {
		t = time.Unix(secs, 0).In(loc)
	} else {
		t = time.Unix(secs, 0).UTC()
	}
	var sb strings.Builder
	bc := false
	if st.Output == DatePostgres {
		sb.WriteString(dayAbbrevs[t.Weekday()])
		sb.WriteByte(' ')
		if st.Order == OrderDMY {
			write2(&sb, t.Day())
			sb.WriteByte(' ')
			sb.WriteString(monthAbbrevs[t.Month()-1])
		} else {
			sb.WriteString(monthAbbrevs[t.Month()-1])
			sb.WriteByte(' ')
			write2(&sb, t.Day())
		}
		sb.WriteByte(' ')
		writeClock(&sb, int64(t.Hour()*3600+t.Minute()*60+t.Second())*1_000_000+frac)
		sb.WriteByte(' ')
		bc = formatYear(&sb, t.Year())
	} else {
		bc = writeStyledDate(&sb, t.Year(), int(t.Month()), t.Day(), st)
		sb.WriteByte(' ')
		writeClock(&sb, int64(t.Hour()*3600+t.Minute()*60+t.Second())*1_000_000+frac)
	}
	if loc != nil {
		sb.WriteByte(' ')
		sb.WriteString(zoneAbbrev(t))
	}
	if bc {
		sb.WriteString(" BC")
	}
	return sb.String()
}

// formatRecordStyled is a record's text output with its date, time and
// interval fields (kept as ISO text) printed in st.
func formatRecordStyled(v *Vec, i int, loc *time.Location, st DateStyle) string {
	a := v.A[i]
	fields, ok := RecordFields(v.T)
	if !ok {
		return formatRecord(a)
	}
	var items *Vec
	for k := 0; k < a.Items.N && k < len(fields); k++ {
		switch fields[k].Type.OID {
		case OIDDate, OIDTimestamp, OIDTimestamptz, OIDInterval:
		default:
			continue
		}
		if a.Items.IsNull(k) {
			continue
		}
		fv := NewVec(fields[k].Type, 1)
		if parseText(fv, 0, a.Items.S[k], loc) != nil {
			continue
		}
		if items == nil {
			items = NewVec(a.Items.T, a.Items.N)
			for j := 0; j < a.Items.N; j++ {
				if a.Items.IsNull(j) {
					items.SetNull(j)
				} else {
					items.S[j] = a.Items.S[j]
				}
			}
		}
		items.S[k] = formatValueStyle(fv, 0, loc, st)
	}
	if items == nil {
		return formatRecord(a)
	}
	cp := *a
	cp.Items = items
	return formatRecord(&cp)
}

// zoneAbbrev is the abbreviation PostgreSQL prints for t's zone: the tz
// database's (CET, IST, +04, +0545) or a POSIX setting's (<+0330>-03:30
// prints +0330, EST5 prints EST), verbatim. LoadTimeZone names the zones
// it builds so that this holds for them too: a plain-number setting
// ('5', '-3.5') is abbreviated as its offset ([+-]hh[:mm]), and a POSIX
// offset without an abbreviation ('-03:30') has none, so the SQL,
// Postgres and German styles print nothing after the time.
func zoneAbbrev(t time.Time) string {
	name, _ := t.Zone()
	return name
}
