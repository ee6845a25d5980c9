package exec

import "unicode/utf8"

// overlay(text PLACING text FROM n [FOR k]).

func init() {
	overlay := func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, r := []rune(a[0].S[i]), a[1].S[i]
			from := a[2].I[i]
			count := int64(utf8.RuneCountInString(r))
			if len(a) == 4 {
				count = a[3].I[i]
			}
			// substring(s, 1, from - 1) || r || substring(s, from + count)
			if from < 1 {
				return errf(codeSubstringError, "negative substring length not allowed")
			}
			head := min(from-1, int64(len(s)))
			tail := min(max(from+count-1, 0), int64(len(s)))
			out.S[i] = string(s[:head]) + r + string(s[tail:])
		}
		return nil
	}
	def("overlay", sig(TText, overlay, TText, TText, TInt4), sig(TText, overlay, TText, TText, TInt4, TInt4))
}

// codeSubstringError is substring_error.
const codeSubstringError = "22011"
