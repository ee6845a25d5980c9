package objstore

import (
	"errors"
	"testing"
)

func TestValidateKey(t *testing.T) {
	good := []string{"a", "a/b", "tables/t.lance/_versions/18446744073709551614.manifest", "a.b/..c/d..", "x/" + "y" + stagingMarker}
	bad := []string{"", "/abs", "a//b", "a/./b", "../up", "a/..", "a/", ".", "..", "nul\x00x", `back\slash`, stagingMarker + "x", "d/" + stagingMarker + "tmp"}
	for _, k := range good {
		if err := ValidateKey(k); err != nil {
			t.Errorf("ValidateKey(%q) = %v", k, err)
		}
	}
	for _, k := range bad {
		if err := ValidateKey(k); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
}
