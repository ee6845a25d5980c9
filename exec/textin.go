package exec

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // TimeZone names must resolve without the host's zoneinfo
	"unicode/utf8"

	"github.com/pggraph/pggraph/pgerr"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func syntaxErr(typ, s string) *Error {
	return errf(CodeInvalidTextRepr, "invalid input syntax for type %s: \"%s\"", typ, s)
}

// CheckInput reports the error reading text s as a value of type t would
// give (nil when it is valid input), without keeping the value.
func CheckInput(t Type, s string) error {
	return parseText(NewVec(t, 1), 0, s, time.UTC)
}

// parseText stores the text input s, read as type v.T, at row i.
func parseText(v *Vec, i int, s string, loc *time.Location) error {
	return parseTextStyle(v, i, s, loc, DateStyle{})
}

// parseTextStyle is parseText in a session's DateStyle (its field order
// reads ambiguous dates) and IntervalStyle (sql_standard's leading sign).
func parseTextStyle(v *Vec, i int, s string, loc *time.Location, st DateStyle) error {
	if err := parseTextBase(v, i, s, loc, st); err != nil {
		return err
	}
	if t := v.T; t.Mod >= 0 && t.Mod < 6 && (t.OID == OIDTime || t.OID == OIDTimestamp || t.OID == OIDTimestamptz) {
		v.I[i] = roundTemporal(v.I[i], t) // time(p), timestamp(p)
	}
	return nil
}

func parseTextBase(v *Vec, i int, s string, loc *time.Location, st DateStyle) error {
	t := v.T
	order := st.Order
	switch t.OID {
	case OIDBool:
		b, ok := parseBool(s)
		if !ok {
			return syntaxErr("boolean", s)
		}
		v.B[i] = b
	case OIDInt2, OIDInt4, OIDInt8, OIDOid, OIDRegclass, OIDRegtype, OIDRegproc, OIDRegprocedure, OIDRegoperator, OIDRegnamespace, OIDXid:
		n, err := parseInt(s, t)
		if err != nil {
			return err
		}
		v.I[i] = n
	case OIDFloat4, OIDFloat8:
		f, err := parseFloat(s, t)
		if err != nil {
			return err
		}
		v.F[i] = f
	case OIDNumeric:
		d, err := parseNumeric(s)
		if err != nil {
			return err
		}
		if err := applyNumericTypmod(&d, t.Mod); err != nil {
			return err
		}
		v.D[i] = d
	case OIDDate:
		d, err := parseDateIn(s, loc, st.Order)
		if err != nil {
			return err
		}
		v.I[i] = d
	case OIDTimestamp, OIDTimestamptz:
		us, err := parseTimestamp(s, t.OID == OIDTimestamptz, loc, st.Order)
		if err != nil {
			return err
		}
		v.I[i] = us
	case OIDTime:
		x := strings.TrimSpace(s)
		if strings.EqualFold(x, "allballs") {
			x = "00:00:00"
		}
		if strings.EqualFold(x, "now") {
			x = formatTimeOfDay(utcToLocal(time.Now().UnixMicro(), loc) % usPerDay)
		}
		us, st := parseClockStatus(x)
		if st == clockSyntax {
			// a zone after the time of day is dropped (pgjdbc sends a
			// java.sql.Time as 23:59:59+00)
			if loc := zoneSuffix.FindStringIndex(x); loc != nil && loc[0] > 0 {
				us, st = parseClockStatus(strings.TrimSpace(x[:loc[0]]))
			}
		}
		if st == clockSyntax && !strings.ContainsAny(x, "Tt") {
			// a date (and zone) before the time of day is read and
			// dropped, as PostgreSQL's time input does: lib/pq sends a
			// Go time.Time as 0001-01-01 12:34:56Z BC
			noEra := strings.TrimSpace(x)
			if n := len(noEra); n > 3 && strings.EqualFold(noEra[n-3:], " BC") {
				noEra = noEra[:n-3]
			}
			if ts, err := parseTimestamp(noEra, false, time.UTC, order); err == nil {
				us, st = ((ts%usPerDay)+usPerDay)%usPerDay, clockOK
			}
		}
		if st == clockRange {
			return errf(CodeDatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
		}
		if st != clockOK {
			return errf(CodeInvalidDatetimeFormat, "invalid input syntax for type time: \"%s\"", s)
		}
		v.I[i] = us
	case OIDInterval:
		iv, err := parseIntervalStyle(s, st.Interval)
		if err != nil {
			return err
		}
		v.V[i] = iv
	case OIDBytea:
		b, err := parseBytea(s)
		if err != nil {
			return err
		}
		v.S[i] = b
	case OIDUUID:
		u, ok := parseUUID(strings.TrimSpace(s))
		if !ok {
			return syntaxErr("uuid", s)
		}
		v.S[i] = u
	case OIDJSON:
		if err := checkJSONDepth(s); err != nil {
			return err
		}
		if !validJSON(s) {
			return jsonSyntaxErr("json", s)
		}
		v.S[i] = s
	case OIDJSONB:
		n, err := normalizeJSONB(s)
		if err != nil {
			return err
		}
		v.S[i] = n
	case OIDVarchar, OIDBpchar:
		out, err := fitChar(s, t, false)
		if err != nil {
			return err
		}
		v.S[i] = out
	case OIDName:
		v.S[i] = clipName(s)
	case OIDChar:
		if len(s) > 1 {
			s = s[:1]
		}
		v.S[i] = s
	case OIDVector:
		a, err := parseVector(s, t)
		if err != nil {
			return err
		}
		v.A[i] = a
	case OIDInt2Vector, OIDOidVector:
		// int2vectorin/oidvectorin: space-separated, 0-based
		f := strings.Fields(s)
		items := NewVec(t.Elem(), len(f))
		for k, x := range f {
			n, err := parseInt(x, t.Elem())
			if err != nil {
				return err
			}
			items.I[k] = n
		}
		v.A[i] = &Array{Elem: t.Elem(), Items: items, vector: true}
	default:
		if t.IsArray() {
			a, err := parseArray(s, t.Elem(), loc)
			if err != nil {
				return err
			}
			v.A[i] = a
			return nil
		}
		if t.Kind() == KStr {
			v.S[i] = s
			return nil
		}
		return unsupported("input of type %s is not supported", t)
	}
	return nil
}

// fitChar applies varchar(n)/char(n): an explicit cast truncates, an
// assignment errors (22001); char(n) pads with blanks.
func fitChar(s string, t Type, explicit bool) (string, error) {
	if t.Mod < 4 {
		return s, nil
	}
	n := int(t.Mod - 4)
	r := []rune(s)
	if len(r) > n {
		tail := strings.TrimRight(string(r[n:]), " ")
		if tail != "" && !explicit {
			name := "character varying"
			if t.OID == OIDBpchar {
				name = "character"
			}
			return "", errf(CodeStringDataRightTrunc, "value too long for type %s(%d)", name, n)
		}
		r = r[:n]
	}
	if t.OID == OIDBpchar && len(r) < n {
		return string(r) + strings.Repeat(" ", n-len(r)), nil
	}
	return string(r), nil
}

func parseBool(s string) (bool, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return false, false
	}
	switch {
	case strings.HasPrefix("true", t), strings.HasPrefix("yes", t), t == "on", t == "1":
		return true, true
	case strings.HasPrefix("false", t), strings.HasPrefix("no", t), t == "off" || t == "of", t == "0":
		return false, true
	}
	return false, false
}

func intRange(t Type) (int64, int64, string) {
	switch t.OID {
	case OIDInt2:
		return math.MinInt16, math.MaxInt16, "smallint"
	case OIDInt4:
		return math.MinInt32, math.MaxInt32, "integer"
	case OIDOid, OIDRegclass, OIDRegtype, OIDRegproc, OIDRegprocedure, OIDRegoperator, OIDRegnamespace:
		return math.MinInt32, math.MaxUint32, "oid"
	case OIDXid:
		return 0, math.MaxUint32, "xid"
	}
	return math.MinInt64, math.MaxInt64, "bigint"
}

func parseInt(s string, t Type) (int64, error) {
	lo, hi, name := intRange(t)
	x := strings.TrimSpace(s)
	n, err := strconv.ParseInt(x, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && x != "" {
			return 0, errf(CodeNumericOutOfRange, "value \"%s\" is out of range for type %s", s, name)
		}
		return 0, syntaxErr(name, s)
	}
	if strings.HasPrefix(x, "+") && len(x) > 1 && (x[1] == '+' || x[1] == '-') {
		return 0, syntaxErr(name, s)
	}
	if n < lo || n > hi {
		return 0, errf(CodeNumericOutOfRange, "value \"%s\" is out of range for type %s", s, name)
	}
	if n < 0 && hi == math.MaxUint32 {
		n = int64(uint32(int32(n)))
	}
	return n, nil
}

func parseFloat(s string, t Type) (float64, error) {
	name := "double precision"
	bits := 64
	if t.OID == OIDFloat4 {
		name, bits = "real", 32
	}
	x := strings.TrimSpace(s)
	switch strings.ToLower(x) {
	case "nan":
		return math.NaN(), nil
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	if x == "" || strings.ContainsAny(x, "_xXpP") {
		return 0, syntaxErr(name, s)
	}
	f, err := strconv.ParseFloat(x, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, errf(CodeNumericOutOfRange, "\"%s\" is out of range for type %s", x, name) // PostgreSQL quotes the number as read, without the white space around it
		}
		return 0, syntaxErr(name, s)
	}
	if f == 0 {
		// a non-zero value that underflows to zero is out of range, as
		// strtod's ERANGE is in PostgreSQL (denormals are accepted)
		mant := x
		if k := strings.IndexAny(mant, "eE"); k >= 0 {
			mant = mant[:k]
		}
		if strings.ContainsAny(mant, "123456789") {
			return 0, errf(CodeNumericOutOfRange, "\"%s\" is out of range for type %s", x, name) // PostgreSQL quotes the number as read, without the white space around it
		}
	}
	return f, nil
}

func daysFromCivil(y int, m time.Month, d int) int64 {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// splitDate reads YYYY-MM-DD at the start of s, returning the rest. A
// year of one or two digits is not ISO: 12-31-2024 is read in the
// DateStyle field order (decodeDate).
func splitDate(s string) (y, m, d int, rest string, ok bool) {
	i := 0
	num := func() (int, bool) {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if j == i {
			return 0, false
		}
		n, err := strconv.Atoi(s[j:i])
		return n, err == nil
	}
	if y, ok = num(); !ok || i < 3 || i >= len(s) || s[i] != '-' {
		ok = false
		return
	}
	i++
	if m, ok = num(); !ok || i >= len(s) || s[i] != '-' {
		ok = false
		return
	}
	i++
	if d, ok = num(); !ok {
		return
	}
	return y, m, d, s[i:], true
}

func validCivil(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// specialDay answers PostgreSQL's date words: epoch, today, tomorrow,
// yesterday (and now, for timestamps), as the local day in loc.
func specialDay(x string, loc *time.Location) (int64, bool) {
	if loc == nil {
		loc = time.UTC
	}
	today := func() int64 { return floorDiv(utcToLocal(time.Now().UnixMicro(), loc), usPerDay) }
	switch strings.ToLower(x) {
	case "epoch":
		return 0, true
	case "today", "now":
		return today(), true
	case "tomorrow":
		return today() + 1, true
	case "yesterday":
		return today() - 1, true
	}
	return 0, false
}

// zoneSuffix is a numeric zone offset or Z at the end of a date or time
// input (+00, -08:00, +0530, Z).
var zoneSuffix = regexp.MustCompile(`(?i)(^|\s*)([+-]\d{1,2}(:?\d{2}(:?\d{2})?)?|z)$`)

func parseDateIn(s string, loc *time.Location, order DateOrder) (int64, error) {
	x := strings.TrimSpace(s)
	switch parseInfinity(x) {
	case 1:
		return dateNoEnd, nil
	case -1:
		return dateNoBegin, nil
	}
	if d, ok := specialDay(x, loc); ok {
		return d, nil
	}
	y, m, d, rest, ok := splitDate(x)
	rest = strings.TrimSpace(rest)
	bc := false
	if strings.EqualFold(rest, "BC") {
		bc, rest = true, ""
	} else if n := len(rest); n > 3 && strings.EqualFold(rest[n-3:], " BC") {
		bc, rest = true, strings.TrimSpace(rest[:n-3])
	}
	if !ok || (rest != "" && !isISORest(rest)) {
		// the other forms: 12/31/2024, Dec 31 2024, J2451187, ...
		f, dok, rangeErr := decodeDate(x, order)
		if rangeErr {
			return 0, dateFieldRangeError(s, 0, 0)
		}
		if dok {
			y, m, d, bc, rest, ok = f.y, f.m, f.d, f.bc, f.rest, true
			x = isoDate(y, m, d) + " " + rest
		}
	}
	if ok && zoneSuffix.MatchString(rest) {
		// a zone after the date is dropped (pgjdbc sends a java.sql.Date
		// as 2024-02-29 +00)
		rest = ""
	}
	if ok && rest != "" {
		// a time of day (and zone) after the date is read and dropped, as
		// PostgreSQL's date input does: drivers send JavaScript Dates as
		// 2024-02-29T00:00:00.000+00:00
		_, err := parseTimestamp(strings.TrimSuffix(strings.TrimSuffix(x, "BC"), "bc"), true, time.UTC, order)
		if e, isErr := err.(*Error); isErr && e.Code == CodeDatetimeFieldOverflow {
			return 0, err
		}
		if err == nil {
			rest = ""
		}
	}
	if !ok || rest != "" {
		return 0, errf(CodeInvalidDatetimeFormat, "invalid input syntax for type date: \"%s\"", s)
	}
	if !validCivil(y, m, d) {
		return 0, dateFieldRangeError(s, m, d)
	}
	if bc {
		y = 1 - y
	}
	days := daysFromCivil(y, time.Month(m), d)
	if !dateInRange(days) {
		return 0, errf(CodeDatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	return days, nil
}

// isoDate writes y-m-d as the ISO reader reads it.
func isoDate(y, m, d int) string {
	var sb strings.Builder
	formatYear(&sb, y)
	sb.WriteByte('-')
	write2(&sb, m)
	sb.WriteByte('-')
	write2(&sb, d)
	return sb.String()
}

// isISORest reports text after an ISO date that the ISO reader takes: a
// time of day, optionally a zone. Anything else (a month name, a second
// date) is for decodeDate.
func isISORest(rest string) bool {
	c := rest[0]
	return c >= '0' && c <= '9' || c == '+' || c == '-' || c == 'T' || c == 't' || c == 'Z' || c == 'z'
}

// parseClock reads HH:MM[:SS[.ffffff]] as µs since midnight.
func parseClock(s string) (int64, bool) {
	us, st := parseClockStatus(s)
	return us, st == clockOK
}

const (
	clockOK = iota
	clockSyntax
	clockRange // well-formed, but a field is out of range (22008)
)

// parseClockStatus reads hh:mm[:ss[.frac]], telling a syntax error from
// a field out of range as PostgreSQL does.
func parseClockStatus(s string) (int64, int) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, clockSyntax
	}
	h, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || h < 0 || mi < 0 {
		return 0, clockSyntax
	}
	if h > 24 || mi > 59 {
		return 0, clockRange
	}
	var us int64
	if len(parts) == 3 {
		sec, frac, _ := strings.Cut(parts[2], ".")
		sv, err := strconv.Atoi(sec)
		if err != nil || sv < 0 {
			return 0, clockSyntax
		}
		if sv > 60 {
			return 0, clockRange
		}
		us = int64(sv) * 1_000_000
		if frac != "" {
			for len(frac) < 7 {
				frac += "0"
			}
			f, err := strconv.Atoi(frac[:7])
			if err != nil {
				return 0, clockSyntax
			}
			us += int64((f + 5) / 10)
		}
	}
	total := int64(h)*3600_000_000 + int64(mi)*60_000_000 + us
	if total > 24*3600_000_000 {
		return 0, clockRange
	}
	return total, clockOK
}

// parseTimestamp reads ISO timestamps with an optional zone suffix; tz
// inputs without a zone are in loc.
func parseTimestamp(s string, tz bool, loc *time.Location, order DateOrder) (int64, error) {
	name := "timestamp" // timestamp_in's name for it in errors
	if tz {
		name = "timestamp with time zone"
	}
	x := strings.TrimSpace(s)
	switch strings.ToLower(x) {
	case "epoch":
		return 0, nil
	case "now":
		now := time.Now().UnixMicro()
		if !tz {
			if loc == nil {
				loc = time.UTC
			}
			now = utcToLocal(now, loc)
		}
		return now, nil
	case "today", "tomorrow", "yesterday":
		d, _ := specialDay(x, loc)
		if !tz {
			return d * usPerDay, nil
		}
		if loc == nil {
			loc = time.UTC
		}
		return localToUTC(d*usPerDay, loc), nil
	}
	switch parseInfinity(x) {
	case 1:
		return tsNoEnd, nil
	case -1:
		return tsNoBegin, nil
	}
	bad := func() error {
		return errf(CodeInvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", name, s)
	}
	x, bc := stripEra(x)
	y, m, d, rest, ok := splitDate(x)
	if !ok || (strings.TrimLeft(rest, " T") != "" && !isISORest(strings.TrimLeft(rest, " T"))) {
		// the other forms: 12/31/2024 10:00, Tue Dec 31 10:00:00 2024 UTC, ...
		f, dok, rangeErr := decodeDate(x, order)
		if rangeErr {
			return 0, dateFieldRangeError(s, 0, 0)
		}
		if !dok {
			return 0, bad()
		}
		y, m, d, rest = f.y, f.m, f.d, f.rest
		bc = bc != f.bc
	}
	if bc {
		if y == 0 {
			return 0, dateFieldRangeError(s, 0, 0)
		}
		y = 1 - y
	}
	if !validCivil(y, m, d) {
		return 0, dateFieldRangeError(s, m, d)
	}
	var clock int64
	zoneSet := false
	var off int
	var zoneLoc *time.Location
	rest = strings.TrimLeft(rest, " T")
	if rest != "" {
		// clock ends at a zone marker
		end := len(rest)
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if c == '+' || c == '-' || c == ' ' || c == 'Z' || c == 'z' || (c >= 'A' && c <= 'Y') || (c >= 'a' && c <= 'y') {
				end = i
				break
			}
		}
		var st int
		if end == 0 && (rest[0] < '0' || rest[0] > '9') && rest[0] != '+' && rest[0] != '-' {
			st = clockOK // a zone without a time of day: midnight
		} else if clock, st = parseClockStatus(rest[:end]); st != clockOK {
			if st == clockRange {
				return 0, errf(CodeDatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
			}
			return 0, bad()
		}
		zone := strings.TrimSpace(rest[end:])
		if zone != "" {
			switch {
			case strings.EqualFold(zone, "Z"), strings.EqualFold(zone, "UTC"), strings.EqualFold(zone, "GMT"):
				zoneSet = true
			case zone[0] == '+' || zone[0] == '-':
				o, ok := parseOffset(zone)
				if !ok {
					if h, err := strconv.Atoi(strings.SplitN(zone[1:], ":", 2)[0]); err == nil && h > 15 && len(zone) <= 3 {
						return 0, errf(pgerr.InvalidTimeZoneDisplacementValue, "time zone displacement out of range: \"%s\"", s)
					}
					return 0, bad()
				}
				off, zoneSet = o, true
			default:
				if o, ok := tzAbbrevs[strings.ToUpper(zone)]; ok {
					off, zoneSet = o, true
					break
				}
				l, err := time.LoadLocation(zone)
				if err != nil {
					return 0, bad()
				}
				zoneLoc, zoneSet = l, true
			}
		}
	}
	local := daysFromCivil(y, time.Month(m), d)*usPerDay + clock
	if !tz {
		return local, nil
	}
	if zoneSet && zoneLoc == nil {
		return local - int64(off)*1_000_000, nil
	}
	if zoneLoc == nil {
		zoneLoc = loc
	}
	return localToUTC(local, zoneLoc), nil
}

// localToUTC interprets µs of wall-clock time in loc the way PostgreSQL's
// DetermineTimeZoneOffset does around transitions: a time skipped by a
// spring-forward gap uses the offset from before the gap, a time repeated
// by a fall-back uses the later (standard-time) instant.
func localToUTC(local int64, loc *time.Location) int64 {
	if !tsFinite(local) {
		return local
	}
	secs := floorDiv(local, 1_000_000)
	frac := local - secs*1_000_000
	offAt := func(utc int64) int64 {
		_, off := time.Unix(utc, 0).In(loc).Zone()
		return int64(off)
	}
	before := offAt(secs - 43200)
	after := offAt(secs + 43200)
	if before == after {
		return (secs-before)*1_000_000 + frac
	}
	bt, at := secs-before, secs-after // candidate UTC instants
	bValid, aValid := offAt(bt) == before, offAt(at) == after
	switch {
	case bValid && !aValid:
		return bt*1_000_000 + frac
	case aValid && !bValid:
		return at*1_000_000 + frac
	case bt > at: // gap (neither valid): the earlier offset
		return bt*1_000_000 + frac
	}
	return at*1_000_000 + frac
}

// iso8601Interval rewrites the part after "P" of an ISO 8601 duration
// ("1Y2M3DT4H5M6S") as verbose interval input.
func iso8601Interval(x string) (string, bool) {
	var parts []string
	timePart := false
	for len(x) > 0 {
		if x[0] == 'T' {
			if timePart {
				return "", false
			}
			timePart = true
			x = x[1:]
			continue
		}
		j := 0
		for j < len(x) && (x[j] == '-' || x[j] == '+' || x[j] == '.' || (x[j] >= '0' && x[j] <= '9')) {
			j++
		}
		if j == 0 || j == len(x) {
			return "", false
		}
		num, unit := x[:j], x[j]+('a'-'A') // designators are upper case
		x = x[j+1:]
		var name string
		switch {
		case !timePart && unit == 'y':
			name = "years"
		case !timePart && unit == 'm':
			name = "months"
		case !timePart && unit == 'w':
			name = "weeks"
		case !timePart && unit == 'd':
			name = "days"
		case timePart && unit == 'h':
			name = "hours"
		case timePart && unit == 'm':
			name = "minutes"
		case timePart && unit == 's':
			name = "seconds"
		default:
			return "", false
		}
		parts = append(parts, num+" "+name)
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, " "), true
}

// iso8601AltInterval rewrites ISO 8601's alternative format after "P"
// (YYYY-MM-DD[Thh:mm:ss[.f]]) as verbose interval input.
func iso8601AltInterval(x string) (string, bool) {
	date, clock, hasClock := strings.Cut(x, "T")
	p := strings.Split(date, "-")
	if len(p) != 3 {
		return "", false
	}
	for _, n := range p {
		if _, err := strconv.ParseUint(n, 10, 31); err != nil {
			return "", false
		}
	}
	out := p[0] + " years " + p[1] + " months " + p[2] + " days"
	if hasClock {
		if _, ok := parseClock(clock); !ok {
			return "", false
		}
		out += " " + clock
	}
	return out, true
}

// tzAbbrevs holds common entries of PostgreSQL's default
// timezone_abbreviations set (seconds east of UTC); an abbreviation is a
// fixed offset, unlike a zone name.
var tzAbbrevs = map[string]int{
	"ACDT": 37800, "ACST": 34200, "ADT": -10800, "AEDT": 39600, "AEST": 36000, "AKDT": -28800, "AKST": -32400,
	"AST": -14400, "AWST": 28800, "BST": 3600, "CDT": -18000, "CEST": 7200, "CET": 3600, "CST": -21600,
	"EDT": -14400, "EEST": 10800, "EET": 7200, "EST": -18000, "GMT": 0, "HKT": 28800, "HST": -36000,
	"IST": 7200, "JST": 32400, "KST": 32400, "MDT": -21600, "MEST": 7200, "MET": 3600, "MSK": 10800,
	"MST": -25200, "NDT": -9000, "NST": -12600, "NZDT": 46800, "NZST": 43200, "PDT": -25200, "PST": -28800,
	"SGT": 28800, "UCT": 0, "UT": 0, "UTC": 0, "WET": 0, "Z": 0, "ZULU": 0,
}

func parseOffset(z string) (int, bool) {
	sign := 1
	if z[0] == '-' {
		sign = -1
	}
	z = z[1:]
	var h, m, s int
	var err error
	switch {
	case strings.Contains(z, ":"):
		p := strings.Split(z, ":")
		h, err = strconv.Atoi(p[0])
		if err == nil && len(p) > 1 {
			m, err = strconv.Atoi(p[1])
		}
		if err == nil && len(p) > 2 {
			s, err = strconv.Atoi(p[2])
		}
	case len(z) == 4:
		h, err = strconv.Atoi(z[:2])
		if err == nil {
			m, err = strconv.Atoi(z[2:])
		}
	default:
		h, err = strconv.Atoi(z)
	}
	if err != nil || h > 15 || m > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60 + s), true
}

var intervalUnits = map[string]struct {
	months int32
	days   int32
	us     int64
}{
	"microsecond": {0, 0, 1}, "millisecond": {0, 0, 1000}, "second": {0, 0, 1_000_000},
	"minute": {0, 0, 60_000_000}, "hour": {0, 0, 3600_000_000}, "day": {0, 1, 0},
	"week": {0, 7, 0}, "month": {1, 0, 0}, "year": {12, 0, 0}, "decade": {120, 0, 0},
	"century": {1200, 0, 0}, "millennium": {12000, 0, 0},
}

func intervalUnit(u string) (string, bool) {
	u = strings.ToLower(u)
	switch u {
	case "us", "usec", "usecs", "microseconds":
		return "microsecond", true
	case "ms", "msec", "msecs", "milliseconds":
		return "millisecond", true
	case "s", "sec", "secs", "seconds":
		return "second", true
	case "m", "min", "mins", "minutes":
		return "minute", true
	case "h", "hr", "hrs", "hours":
		return "hour", true
	case "d", "days":
		return "day", true
	case "w", "weeks":
		return "week", true
	case "mon", "mons", "months":
		return "month", true
	case "y", "yr", "yrs", "years":
		return "year", true
	case "decades":
		return "decade", true
	case "centuries":
		return "century", true
	case "millennia":
		return "millennium", true
	}
	_, ok := intervalUnits[u]
	return u, ok
}

// parseInterval reads interval input in the default IntervalStyle.
func parseInterval(s string) (Interval, error) { return parseIntervalStyle(s, IntervalPostgres) }

// parseIntervalStyle reads interval input: the postgres and verbose
// forms ("1 day 02:00", "-3 hours", "1 year 2 mons", "@ 1 minute ago"),
// ISO 8601 ("P1Y2M3DT4H5M6S") and SQL-standard fields ("1-2",
// "3 4:05:06"). With IntervalStyle sql_standard a leading minus applies
// to every field when no other field has a sign, as PostgreSQL's
// DecodeInterval reads it.
func parseIntervalStyle(s string, style IntervalStyle) (Interval, error) {
	bad := func() (Interval, error) {
		return Interval{}, errf(CodeInvalidDatetimeFormat, "invalid input syntax for type interval: \"%s\"", s)
	}
	if x := strings.TrimSpace(s); len(x) > 1 && x[0] == 'P' {
		// ISO 8601 designators: P[nY][nM][nW][nD][T[nH][nM][nS]], read
		// as the equivalent verbose input (same fraction cascading)
		verbose, ok := iso8601Interval(x[1:])
		if !ok {
			verbose, ok = iso8601AltInterval(x[1:])
		}
		if !ok {
			return bad()
		}
		return parseInterval(verbose)
	}
	f := strings.Fields(strings.ToLower(strings.TrimSpace(s)))
	var iv Interval
	// years (in months) apart from the other months: sql_standard's
	// leading sign turns each positive field negative separately
	var yearMonths int32
	ago := false
	if len(f) > 0 && f[0] == "@" {
		f = f[1:]
	}
	if len(f) == 0 {
		return bad()
	}
	for i := 0; i < len(f); i++ {
		tok := f[i]
		if tok == "ago" && i == len(f)-1 {
			ago = true
			continue
		}
		if ym, ok := yearMonthField(tok); ok {
			// SQL standard year-month: 1-2, -1-2, +1-2
			yearMonths += ym[0] * 12
			iv.Months += ym[1]
			continue
		}
		if strings.Contains(tok, ":") {
			neg := strings.HasPrefix(tok, "-")
			us, ok := parseClock(strings.TrimLeft(tok, "+-"))
			if !ok {
				// hours beyond 24 are fine in intervals
				p := strings.Split(strings.TrimLeft(tok, "+-"), ":")
				h, err := strconv.Atoi(p[0])
				if err != nil || len(p) < 2 {
					return bad()
				}
				rest, ok2 := parseClock("0:" + strings.Join(p[1:], ":"))
				if !ok2 {
					return bad()
				}
				us = int64(h)*3600_000_000 + rest
			}
			if neg {
				us = -us
			}
			iv.Micros += us
			continue
		}
		num, unitTok := tok, ""
		// "1day" style
		j := 0
		for j < len(tok) && (tok[j] == '-' || tok[j] == '+' || tok[j] == '.' || (tok[j] >= '0' && tok[j] <= '9')) {
			j++
		}
		if j < len(tok) {
			num, unitTok = tok[:j], tok[j:]
		} else if i+1 < len(f) && strings.Contains(f[i+1], ":") {
			unitTok = "days" // SQL standard day-time: 3 4:05:06
		} else if i+1 < len(f) {
			i++
			unitTok = f[i]
		}
		val, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return bad()
		}
		if unitTok == "" {
			iv.Micros += int64(math.Round(val * 1_000_000))
			continue
		}
		u, ok := intervalUnit(unitTok)
		if !ok {
			return bad()
		}
		spec := intervalUnits[u]
		whole := math.Trunc(val)
		frac := val - whole
		if spec.months >= 12 {
			yearMonths += int32(whole) * spec.months
		} else {
			iv.Months += int32(whole) * spec.months
		}
		iv.Days += int32(whole) * spec.days
		iv.Micros += int64(whole) * spec.us
		if frac != 0 {
			switch {
			case spec.months != 0:
				m := frac * float64(spec.months)
				iv.Months += int32(math.Trunc(m))
				d := (m - math.Trunc(m)) * 30
				iv.Days += int32(math.Trunc(d))
				iv.Micros += int64(math.Round((d - math.Trunc(d)) * usPerDay))
			case spec.days != 0:
				d := frac * float64(spec.days)
				iv.Days += int32(math.Trunc(d))
				iv.Micros += int64(math.Round((d - math.Trunc(d)) * usPerDay))
			default:
				iv.Micros += int64(math.Round(frac * float64(spec.us)))
			}
		}
	}
	if style == IntervalSQLStandard && strings.HasPrefix(f[0], "-") {
		more := false
		for _, tok := range f[1:] {
			more = more || tok[0] == '-' || tok[0] == '+'
		}
		if !more {
			neg := func(n int64) int64 {
				if n > 0 {
					return -n
				}
				return n
			}
			yearMonths, iv.Months, iv.Days, iv.Micros = int32(neg(int64(yearMonths))), int32(neg(int64(iv.Months))), int32(neg(int64(iv.Days))), neg(iv.Micros)
		}
	}
	iv.Months += yearMonths
	if ago {
		iv = Interval{-iv.Months, -iv.Days, -iv.Micros}
	}
	return iv, nil
}

// yearMonthField reads a SQL-standard year-month field ([+-]Y-M).
func yearMonthField(tok string) ([2]int32, bool) {
	sign, body := int32(1), tok
	if body != "" && (body[0] == '-' || body[0] == '+') {
		if body[0] == '-' {
			sign = -1
		}
		body = body[1:]
	}
	ys, ms, ok := strings.Cut(body, "-")
	if !ok {
		return [2]int32{}, false
	}
	y, err1 := strconv.ParseUint(ys, 10, 31)
	m, err2 := strconv.ParseUint(ms, 10, 31)
	if err1 != nil || err2 != nil {
		return [2]int32{}, false
	}
	return [2]int32{sign * int32(y), sign * int32(m)}, true
}

// decodeHexPG decodes hex digit pairs as PostgreSQL's hex_decode does:
// whitespace is allowed only between pairs, and errors are 22023.
func decodeHexPG(s string) (string, error) {
	out := make([]byte, 0, len(s)/2)
	val := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	bad := func(i int) error {
		_, w := utf8.DecodeRuneInString(s[i:])
		return errf(CodeInvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i:i+w])
	}
	for i := 0; i < len(s); {
		if c := s[i]; c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			i++
			continue
		}
		hi, ok := val(s[i])
		if !ok {
			return "", bad(i)
		}
		if i+1 >= len(s) {
			return "", errf(CodeInvalidParameterValue, "invalid hexadecimal data: odd number of digits")
		}
		lo, ok := val(s[i+1])
		if !ok {
			return "", bad(i + 1)
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	return string(out), nil
}

func parseBytea(s string) (string, error) {
	if strings.HasPrefix(s, `\x`) {
		return decodeHexPG(s[2:])
	}
	return parseByteaEscape(s)
}

// encodeByteaEscape is encode(b, 'escape'): NUL and high-bit bytes as
// \ooo, a backslash doubled.
func encodeByteaEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0 || c >= 0x80:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
		case c == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parseByteaEscape reads bytea's escape format (also decode(s, 'escape')).
func parseByteaEscape(s string) (string, error) {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i++
			continue
		}
		if i+3 < len(s) {
			n, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
			if err == nil {
				out = append(out, byte(n))
				i += 3
				continue
			}
		}
		return "", syntaxErr("bytea", s)
	}
	return string(out), nil
}

// maxArrayDims is PostgreSQL's MAXDIM.
const maxArrayDims = 6

// arrayNesting is the number of '{' an array literal opens before its
// first element (spaces between them allowed).
func arrayNesting(x string) int {
	n := 0
	for i := 0; i < len(x) && n <= maxArrayDims; i++ {
		switch {
		case x[i] == '{':
			n++
		case isArraySpace(x[i]):
		default:
			return n
		}
	}
	return n
}

// parseArray reads a one-dimensional array literal such as {1,2,"a b",NULL};
// malformed text gets PostgreSQL's message and the DETAIL naming what is
// wrong.
func parseArray(s string, elem Type, loc *time.Location) (*Array, error) {
	bad := func(detail string) error {
		return &Error{Code: CodeInvalidTextRepr, Message: "malformed array literal: \"" + s + "\"", Detail: detail}
	}
	const endOfInput = "Unexpected end of input."
	x := strings.TrimSpace(s)
	if strings.HasPrefix(x, "[") && strings.Contains(x, "]={") {
		// explicit bounds ('[0:2]={1,2,3}'): exec's arrays start at 1
		return nil, unsupported("array literals with explicit bounds are not supported")
	}
	if x == "" || x[0] != '{' {
		return nil, bad(`Array value must start with "{" or dimension information.`)
	}
	skipSpace := func(i int) int {
		for i < len(x) && isArraySpace(x[i]) {
			i++
		}
		return i
	}
	var items []string
	var nulls []bool
	i := 1
	for afterComma := false; ; {
		if i = skipSpace(i); i >= len(x) {
			return nil, bad(endOfInput)
		}
		switch x[i] {
		case '}':
			if afterComma {
				return nil, bad(`Unexpected "}" character.`)
			}
		case ',':
			return nil, bad(`Unexpected "," character.`)
		case '{':
			// PostgreSQL counts the nesting first: past its six
			// dimensions a literal is 54000, however deep (a hostile
			// one nests thousands of levels)
			if depth := arrayNesting(x); depth > maxArrayDims {
				return nil, errf(CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", maxArrayDims+1, maxArrayDims)
			}
			return nil, unsupported("multidimensional arrays are not supported")
		}
		if x[i] == '}' {
			i++
			break
		}
		var sb strings.Builder
		quoted := x[i] == '"'
		if quoted {
			for i++; i < len(x) && x[i] != '"'; i++ {
				if x[i] == '\\' && i+1 < len(x) {
					i++
				}
				sb.WriteByte(x[i])
			}
			if i >= len(x) {
				return nil, bad(endOfInput)
			}
			i = skipSpace(i + 1)
		} else {
			keep := 0 // unescaped white space at the end is not part of the value
			for ; i < len(x) && x[i] != ',' && x[i] != '}'; i++ {
				c := x[i]
				switch {
				case c == '\\' && i+1 < len(x):
					i++
					sb.WriteByte(x[i])
					keep = sb.Len()
					continue
				case c == '"':
					return nil, bad("Unexpected array element.")
				case c == '{':
					return nil, bad(`Unexpected "{" character.`)
				}
				sb.WriteByte(c)
				if !isArraySpace(c) {
					keep = sb.Len()
				}
			}
			if keep < sb.Len() {
				v := sb.String()[:keep]
				sb.Reset()
				sb.WriteString(v)
			}
		}
		if i >= len(x) {
			return nil, bad(endOfInput)
		}
		if x[i] != ',' && x[i] != '}' {
			return nil, bad("Unexpected array element.")
		}
		v := sb.String()
		items = append(items, v)
		nulls = append(nulls, !quoted && strings.EqualFold(v, "NULL"))
		if x[i] == '}' {
			i++
			break
		}
		i++
		afterComma = true
	}
	if i = skipSpace(i); i < len(x) {
		return nil, bad("Junk after closing right brace.")
	}
	vec := NewVec(elem, len(items))
	for k, it := range items {
		if nulls[k] {
			vec.SetNull(k)
			continue
		}
		if err := parseText(vec, k, it, loc); err != nil {
			return nil, err
		}
	}
	return &Array{Elem: elem, Items: vec}, nil
}

// dateFieldRangeError is PostgreSQL's 22008 for a date whose fields are out
// of range; a month above 12 or a day above 31 suggests the fields were
// read in the wrong order, so PostgreSQL hints at DateStyle.
func dateFieldRangeError(s string, month, day int) *Error {
	e := errf(CodeDatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	if month > 12 || day > 31 {
		e.Hint = `Perhaps you need a different "datestyle" setting.`
	}
	return e
}

// isArraySpace is array_in's white space (scanner_isspace).
func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseVector is pgvector's vector_in: '[1,2,3]' (white space around the
// brackets and elements allowed), finite float4 elements, at least one
// and at most 16000, and exactly the typmod's count when it has one.
func parseVector(s string, t Type) (*Array, error) {
	bad := func() (*Array, error) {
		return nil, errf(CodeInvalidTextRepr, "invalid input syntax for type vector: \"%s\"", s)
	}
	x := strings.TrimSpace(s)
	if !strings.HasPrefix(x, "[") || !strings.HasSuffix(x, "]") || len(x) < 2 {
		return bad()
	}
	body := strings.TrimSpace(x[1 : len(x)-1])
	if body == "" {
		return nil, errf(codeDataException, "vector must have at least 1 dimension")
	}
	parts := strings.Split(body, ",")
	if len(parts) > 16000 {
		return nil, errf(CodeProgramLimitExceeded, "vector cannot have more than 16000 dimensions")
	}
	items := NewVec(TFloat4, len(parts))
	for k, p := range parts {
		p = strings.TrimSpace(p)
		f, err := strconv.ParseFloat(p, 32)
		if p == "" || strings.ContainsAny(p, " \t") {
			return bad()
		}
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return nil, errf(CodeNumericOutOfRange, "\"%s\" is out of range for type vector", p)
			}
			return bad()
		}
		if math.IsNaN(f) {
			return nil, errf(codeDataException, "NaN not allowed in vector")
		}
		if math.IsInf(f, 0) {
			return nil, errf(codeDataException, "infinite value not allowed in vector")
		}
		items.F[k] = f
	}
	if err := checkVectorDims(len(parts), t); err != nil {
		return nil, err
	}
	return &Array{Elem: TFloat4, Items: items}, nil
}

// checkVectorDims enforces vector(n)'s dimension count.
func checkVectorDims(n int, t Type) error {
	if t.Mod > 0 && int32(n) != t.Mod {
		return errf(codeDataException, "expected %d dimensions, not %d", t.Mod, n)
	}
	return nil
}

// codeDataException is SQLSTATE 22000 (pgvector's dimension and value
// errors).
const codeDataException = pgerr.DataException

// parseUUID reads uuid input as PostgreSQL does: 32 hex digits, an
// optional hyphen after any group of four, optionally in braces; the
// result is the canonical lower-case 8-4-4-4-12 form.
func parseUUID(s string) (string, bool) {
	if strings.HasPrefix(s, "{") {
		if !strings.HasSuffix(s, "}") {
			return "", false
		}
		s = s[1 : len(s)-1]
	}
	var hexd []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
			hexd = append(hexd, c)
		case c >= 'A' && c <= 'F':
			hexd = append(hexd, c+('a'-'A'))
		case c == '-' && len(hexd) > 0 && len(hexd)%4 == 0 && len(hexd) < 32 && s[i-1] != '-':
		default:
			return "", false
		}
	}
	if len(hexd) != 32 || strings.HasSuffix(s, "-") {
		return "", false
	}
	h := string(hexd)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true
}

// ParseTimestamptz reads a timestamp with time zone as PostgreSQL's input
// function does (zone-less text is in loc); for values outside SQL
// expressions, such as a role's VALID UNTIL.
func ParseTimestamptz(s string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	us, err := parseTimestamp(s, true, loc, OrderMDY)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMicro(us).UTC(), nil
}
