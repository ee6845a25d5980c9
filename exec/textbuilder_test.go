package exec

import (
	"strings"
	"testing"
)

// TestTextBuilder: writes of any sizes give the concatenation; the bytes
// reserve reports are the chunk capacity the builder holds (what the
// budget is charged) and stay within a quarter of the value plus one
// maximal chunk; a string handed out is not changed by later writes.
func TestTextBuilder(t *testing.T) {
	cases := []struct {
		name   string
		writes []int // lengths; write i repeats the letter 'a'+i%26
	}{
		{"empty", nil},
		{"one small", []int{5}},
		{"many small", repeatInts(3, 1000)},
		{"growing", []int{1, 10, 100, 1000, 10000, 100000}},
		{"one huge", []int{maxTextChunk + 7}},
		{"past the chunk cap", repeatInts(1<<20, 40)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b textBuilder
			var want strings.Builder
			charged, handed := 0, []string{}
			for i, n := range tc.writes {
				s := strings.Repeat(string(rune('a'+i%26)), n)
				charged += b.reserve(n)
				b.WriteString(s)
				want.WriteString(s)
				if i%7 == 3 {
					handed = append(handed, b.String())
				}
			}
			if got := b.String(); got != want.String() || b.Len() != want.Len() {
				t.Fatalf("value of %d bytes differs from the %d written", len(got), want.Len())
			}
			for _, h := range handed {
				if !strings.HasPrefix(want.String(), h) {
					t.Fatal("a string handed out changed with later writes")
				}
			}
			held := 0
			for _, c := range b.chunks {
				held += cap(c)
			}
			if len(handed) == 0 && charged != held {
				t.Fatalf("charged %d bytes, the chunks hold %d", charged, held)
			}
			if lim := want.Len() + want.Len()/4 + maxTextChunk; len(handed) == 0 && charged > lim {
				t.Fatalf("charged %d bytes for a %d-byte value (bound %d)", charged, want.Len(), lim)
			}
		})
	}
}

func repeatInts(n, times int) []int {
	out := make([]int, times)
	for i := range out {
		out[i] = n
	}
	return out
}
