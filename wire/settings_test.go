package wire

import "testing"

// Parameters says where each value comes from, as pg_settings.source.
func TestSettingsParameters(t *testing.T) {
	s := NewSettings()
	s.setDefault("application_name", "psql", "application_name")
	s.setServerDefault("statement_timeout", "5s")
	s.setDefault("session_authorization", "alice", "")
	if _, err := s.Set("extra_float_digits", "2", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set("DateStyle", "ISO, DMY", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set("myapp.flag", "on", false); err != nil {
		t.Fatal(err)
	}
	got := map[string]Parameter{}
	for _, p := range s.Parameters() {
		got[p.Name] = p
	}
	cases := []struct {
		name                       string
		value, boot, reset, source string
	}{
		{"application_name", "psql", "", "psql", "client"},
		{"statement_timeout", "5s", "0", "5s", "command line"},
		{"extra_float_digits", "2", "1", "1", "session"},
		{"DateStyle", "ISO, DMY", "ISO, MDY", "ISO, MDY", "session"}, // SET LOCAL
		{"TimeZone", "UTC", "UTC", "UTC", "default"},
		{"myapp.flag", "on", "", "", "session"},
	}
	for _, c := range cases {
		p, ok := got[c.name]
		if !ok {
			t.Errorf("%s missing", c.name)
			continue
		}
		if p.Value != c.value || p.Boot != c.boot || p.Reset != c.reset || p.Source != c.source {
			t.Errorf("%s: %+v, want value %q boot %q reset %q source %q", c.name, p, c.value, c.boot, c.reset, c.source)
		}
	}
	for _, hidden := range []string{"session_authorization", "is_superuser"} {
		if _, ok := got[hidden]; ok {
			t.Errorf("%s is listed (PostgreSQL hides it from pg_settings)", hidden)
		}
	}
	if !got["server_version"].ReadOnly {
		t.Error("server_version is not read-only")
	}
}

// A DateStyle naming only a style or only an order keeps the other part
// of the session's current value, as PostgreSQL's check_datestyle does.
func TestDateStyleKeepsCurrentPart(t *testing.T) {
	s := NewSettings()
	steps := []struct{ set, want string }{
		{"SQL", "SQL, MDY"},
		{"dmy", "SQL, DMY"},
		{"postgres", "Postgres, DMY"},
		{"German", "German, DMY"},
		{"iso, ymd", "ISO, YMD"},
		{"sql", "SQL, YMD"},
		{"", "SQL, YMD"},
		{"default", "ISO, MDY"},
	}
	for _, st := range steps {
		if _, err := s.Set("DateStyle", st.set, false); err != nil {
			t.Fatalf("%q: %v", st.set, err)
		}
		if v, _ := s.Get("datestyle"); v != st.want {
			t.Errorf("after %q: %q, want %q", st.set, v, st.want)
		}
	}
}
