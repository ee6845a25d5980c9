package objstore

import (
	"fmt"
	"strings"
)

// stagingMarker starts the base name of every staging file the local
// backend creates. Keys whose final segment starts with it are refused,
// so no object can collide with (or be mistaken for) a staging file.
const stagingMarker = ".pgstage-"

// ValidateKey reports whether key is a usable object key: a relative,
// slash-separated path with no empty, "." or ".." segments, no NUL and
// no backslash, whose final segment is not a staging name.
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if len(key) > 1024 {
		return fmt.Errorf("%w: key longer than 1024 bytes", ErrInvalidKey)
	}
	if strings.ContainsAny(key, "\x00\\") {
		return fmt.Errorf("%w: %q contains NUL or backslash", ErrInvalidKey, key)
	}
	// segment by segment without splitting: every store call checks its
	// key, a point lookup makes several
	last := key
	for rest := key; ; {
		seg, tail, more := strings.Cut(rest, "/")
		switch seg {
		case "":
			return fmt.Errorf("%w: %q has an empty segment", ErrInvalidKey, key)
		case ".", "..":
			return fmt.Errorf("%w: %q has a %q segment", ErrInvalidKey, key, seg)
		}
		if !more {
			last = seg
			break
		}
		rest = tail
	}
	if strings.HasPrefix(last, stagingMarker) {
		return fmt.Errorf("%w: %q uses the reserved staging prefix", ErrInvalidKey, key)
	}
	return nil
}

// validatePrefix accepts "" (everything) or any string that is a prefix
// of some valid key.
func validatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if strings.ContainsAny(prefix, "\x00\\") || strings.HasPrefix(prefix, "/") {
		return fmt.Errorf("%w: bad list prefix %q", ErrInvalidKey, prefix)
	}
	for _, s := range strings.Split(prefix, "/") {
		if s == ".." {
			return fmt.Errorf("%w: bad list prefix %q", ErrInvalidKey, prefix)
		}
	}
	return nil
}

// isStagingName reports whether a file's base name is one of ours.
func isStagingName(base string) bool { return strings.HasPrefix(base, stagingMarker) }
