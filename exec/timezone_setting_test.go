package exec

import (
	"testing"
	"time"
)

// Each TimeZone setting form names the offset PostgreSQL 15 gives it
// (SET TimeZone = '<setting>'; SELECT '2024-01-01 00:00+00'::timestamptz).
func TestLoadTimeZone(t *testing.T) {
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		setting string
		east    int // seconds east of UTC at 2024-01-01
	}{
		{"UTC", 0},
		{"gmt", 0},
		{"+05:30", -(5*3600 + 30*60)}, // POSIX: west of Greenwich
		{"-7", -7 * 3600},             // a number: hours east
		{"5.5", 5*3600 + 30*60},
		{"+05", 5 * 3600}, // still a plain number
		{"UTC+3", -3 * 3600},
		{"<+05:30>-05:30", 5*3600 + 30*60}, // SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE
		{"<-07>+07", -7 * 3600},            // SET TIME ZONE -7
		{"<+05>-05", 5 * 3600},
		{"<+30>-30", 30 * 3600}, // SET TimeZone = '30'
		{"30", 30 * 3600},
		{"America/New_York", -5 * 3600},
		{"Asia/Kolkata", 5*3600 + 30*60},
		{"EST5EDT", -5 * 3600},
		{"Etc/GMT+3", -3 * 3600},
		{"EST", -5 * 3600},
	} {
		loc, err := LoadTimeZone(c.setting)
		if err != nil {
			t.Errorf("%q: %v", c.setting, err)
			continue
		}
		if _, off := at.In(loc).Zone(); off != c.east {
			t.Errorf("%q: offset %d s east, want %d", c.setting, off, c.east)
		}
	}
	for _, bad := range []string{"", "Mars/Olympus", "<+05", "+168", "+05:61", "AB+3", "200"} {
		if _, err := LoadTimeZone(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
