package lance

import "testing"

func TestIsDataFileKey(t *testing.T) {
	for _, c := range []struct {
		key  string
		want bool
	}{
		{"nodes/person.lance/data/0f1e2d3c-aaaa.lance", true},
		{"data/x.lance", true},
		{"g/tree/dev/t.lance/data/abc.lance", true},
		{"nodes/person.lance/_versions/18446744073709551614.manifest", false},
		{"nodes/person.lance/_deletions/0-1-2.arrow", false},
		{"nodes/person.lance/latest_version_hint.json", false},
		{"nodes/person.lance", false},
		{"nodes/person.lance/data/.lance", false},
		{"nodes/metadata/x.lance", false},
		{"nodes/mydata/x.lance", false},
		{"nodes/data/sub/x.lance", false},
	} {
		if got := IsDataFileKey(c.key); got != c.want {
			t.Errorf("IsDataFileKey(%q) = %v, want %v", c.key, got, c.want)
		}
	}
}
