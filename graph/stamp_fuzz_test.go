package graph

import "testing"

// FuzzParseStamp: any bytes either parse into a valid stamp or give a
// typed RootError; never a panic.
func FuzzParseStamp(f *testing.F) {
	f.Add([]byte(`{"format":"pggraph","format_version":1,"graph_id":"G"}`))
	f.Add([]byte(`{"format":"pggraph","format_version":1e309}`))
	f.Add([]byte(`[]`))
	f.Add([]byte{0xff, 0xfe})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStamp(b)
		if err != nil {
			if !IsUnusableRoot(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if s.Format != FormatName || s.FormatVersion < 1 || s.FormatVersion > FormatVersion || s.GraphID == "" {
			t.Fatalf("accepted invalid stamp %+v", s)
		}
	})
}
