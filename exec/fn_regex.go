package exec

import "unicode/utf8"

// regexp_count, regexp_substr, regexp_instr (pattern and optional start
// position; RE2 syntax as the other regex functions).

func init() {
	regexFn := func(kind string) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				s := a[0].S[i]
				re, _, err := compileARE(a[1].S[i], "")
				if err != nil {
					return err
				}
				start := int64(1)
				if len(a) > 2 {
					start = a[2].I[i]
					if start <= 0 {
						return errf(CodeInvalidParameterValue, "invalid value for parameter \"start\": %d", start)
					}
				}
				// byte offset of the start character
				off := 0
				for c := int64(1); c < start && off < len(s); c++ {
					_, n := utf8.DecodeRuneInString(s[off:])
					off += n
				}
				rest := s[off:]
				switch kind {
				case "count":
					out.I[i] = int64(len(re.FindAllStringIndex(rest, -1)))
				case "substr":
					loc := re.FindStringIndex(rest)
					if loc == nil {
						out.SetNull(int(i))
						continue
					}
					out.S[i] = rest[loc[0]:loc[1]]
				case "instr":
					loc := re.FindStringIndex(rest)
					if loc == nil {
						out.I[i] = 0
						continue
					}
					out.I[i] = start + int64(utf8.RuneCountInString(rest[:loc[0]]))
				}
			}
			return nil
		}
	}
	def("regexp_count", sig(TInt4, regexFn("count"), TText, TText), sig(TInt4, regexFn("count"), TText, TText, TInt4))
	def("regexp_substr", sig(TText, regexFn("substr"), TText, TText), sig(TText, regexFn("substr"), TText, TText, TInt4))
	def("regexp_instr", sig(TInt4, regexFn("instr"), TText, TText), sig(TInt4, regexFn("instr"), TText, TText, TInt4))
}
