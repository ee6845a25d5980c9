package wire

import "testing"

// work_mem takes PostgreSQL's memory units, shows the largest unit that
// divides the value and answers 22023 with PostgreSQL's messages.
func TestWorkMemSetting(t *testing.T) {
	cases := []struct {
		in, show, msg string
	}{
		{"64MB", "64MB", ""},
		{"100", "100kB", ""},
		{"65536kB", "64MB", ""},
		{"1GB", "1GB", ""},
		{"2048", "2MB", ""},
		{"1048576B", "1MB", ""},
		{"10kB", "", `10 kB is outside the valid range for parameter "work_mem" (64 .. 2147483647)`},
		{"abc", "", `invalid value for parameter "work_mem": "abc"`},
		{"4mb", "", `invalid value for parameter "work_mem": "4mb"`},
	}
	for _, c := range cases {
		s := NewSettings()
		_, err := s.Set("work_mem", c.in, false)
		if c.msg != "" {
			e, ok := err.(*Error)
			if !ok || e.Code != CodeInvalidParameterValue || e.Message != c.msg {
				t.Errorf("%s: got %v, want 22023 %s", c.in, err, c.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if v, _ := s.Get("work_mem"); v != c.show {
			t.Errorf("%s: shows %q, want %q", c.in, v, c.show)
		}
	}
}
