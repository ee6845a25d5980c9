package wire

import "testing"

// SET TIME ZONE's number and interval forms, and numeric TimeZone
// strings, are stored as PostgreSQL 15's SHOW prints them (checked
// against it in planner/testdata/timezone.sql).
func TestTimeZoneForms(t *testing.T) {
	for _, c := range []struct {
		sql, want string
	}{
		{"SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE", "<+05:30>-05:30"},
		{"SET TIME ZONE INTERVAL '-03' HOUR TO MINUTE", "<-00:03>+00:03"},
		{"SET TIME ZONE INTERVAL '+20:00' HOUR TO MINUTE", "<+20>-20"},
		{"SET TIME ZONE 'Europe/Paris'", "Europe/Paris"},
	} {
		sts, err := ParseUtility(c.sql)
		if err != nil || len(sts) != 1 {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := sts[0].Setting.Value; got != c.want {
			t.Errorf("%s: value %q, want %q", c.sql, got, c.want)
		}
	}
	for _, c := range []struct{ bad, code string }{
		{"SET TIME ZONE INTERVAL 'x' HOUR TO MINUTE", "22007"},
		{"SET TIME ZONE INTERVAL '+200:00' HOUR TO MINUTE", "22023"},
	} {
		_, err := ParseUtility(c.bad)
		if e, ok := err.(*Error); !ok || e.Code != c.code {
			t.Errorf("%s: %v, want %s", c.bad, err, c.code)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"-7", "<-07>+07"}, {"5.5", "<+05:30>-05:30"}, {"0", "<+00>-00"}, {"30", "<+30>-30"},
		{"+05:30", "+05:30"}, {"UTC+3", "UTC+3"}, {"<+04>-04", "<+04>-04"},
	} {
		if got, err := normTimeZone(c.in); err != nil || got != c.want {
			t.Errorf("normTimeZone(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"168", "-1000"} {
		if _, err := normTimeZone(bad); err == nil || err.Detail == "" {
			t.Errorf("normTimeZone(%q): %v, want out of range", bad, err)
		}
	}
}
