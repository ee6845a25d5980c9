package exec

import "unicode/utf8"

// nameMaxBytes is the longest value of type name: PostgreSQL's
// NAMEDATALEN (64) less its terminating zero byte.
const nameMaxBytes = 63

// clipName truncates a name value as PostgreSQL's name input does:
// to at most nameMaxBytes bytes, never inside a multi-byte character.
func clipName(s string) string {
	if len(s) <= nameMaxBytes {
		return s
	}
	n := nameMaxBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
