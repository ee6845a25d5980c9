package lancesrc

import (
	"testing"

	"github.com/pggraph/pggraph/lance/format"
)

// TestSameFilesMatchesIdentity checks the allocation-free comparison
// against the identity string it stands for.
func TestSameFilesMatchesIdentity(t *testing.T) {
	frag := func(paths ...string) *format.Fragment {
		fr := &format.Fragment{}
		for _, p := range paths {
			fr.Files = append(fr.Files, format.DataFile{Path: p})
		}
		return fr
	}
	cases := []*format.Fragment{frag(), frag("a"), frag("ab"), frag("a", "b"), frag("a", "bc"), frag("ab", "c"), frag("", "a")}
	for _, x := range cases {
		for _, y := range cases {
			want := identityOf(x).files == identityOf(y).files
			if got := sameFiles(identityOf(x).files, y); got != want {
				t.Fatalf("sameFiles(%q, %v) = %v, want %v", identityOf(x).files, y.Files, got, want)
			}
		}
	}
}
