package file

import (
	"bytes"
	"strings"
	"testing"
)

// TestEncodeDirectIsTheNestedMessage checks the one-allocation encoding
// against the message built field by field, for lengths whose varints
// take one and two bytes.
func TestEncodeDirectIsTheNestedMessage(t *testing.T) {
	nested := func(url string, value []byte) []byte {
		var a []byte
		a = appendBytesField(a, anyTypeURL, []byte(url))
		a = appendBytesField(a, anyValue, value)
		return appendBytesField(nil, encodingDirect, appendBytesField(nil, 1, a))
	}
	for _, c := range []struct {
		url   string
		value []byte
	}{
		{columnEncodingURL, []byte{0x0a, 0x00}},
		{pageLayoutURL, nil},
		{pageLayoutURL, bytes.Repeat([]byte{7}, 100)},
		{strings.Repeat("u", 130), bytes.Repeat([]byte{1}, 300)},
	} {
		if got, want := encodeDirect(c.url, c.value), nested(c.url, c.value); !bytes.Equal(got, want) {
			t.Fatalf("encodeDirect(%q, %d bytes) = %x, want %x", c.url, len(c.value), got, want)
		}
	}
}
