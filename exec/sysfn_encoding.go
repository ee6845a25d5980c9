package exec

import (
	"strings"
	"sync"
	"unicode"
)

// Character-set encodings. pggraph stores and speaks UTF8 only (the
// database and server encoding, and the only client_encoding it
// accepts); the encoding functions still know PostgreSQL 15's numbering
// (pg15/encodings.tsv) so pg_database.encoding and the catalogs'
// collencoding filters read as in PostgreSQL.

// encodingUTF8 is UTF8's number.
const encodingUTF8 = 6

// pgEncodings are PostgreSQL 15's encoding names by number.
var pgEncodings = sync.OnceValue(func() map[int64]string {
	out := map[int64]string{}
	for _, r := range tsvRows("encodings.tsv") {
		out[factI64(r[0])] = r[1]
	}
	return out
})

// cleanEncodingName folds an encoding name as PostgreSQL compares them:
// letters and digits only, case-insensitively ("utf-8" is UTF8).
func cleanEncodingName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

func init() {
	constText("getdatabaseencoding", func(*evalCtx) string { return "UTF8" })
	def("pg_encoding_to_char", sig(TName, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		names := pgEncodings()
		for _, i := range sel {
			out.S[i] = names[a[0].I[i]] // "" for an unknown number, as PostgreSQL
		}
		return nil
	}, TInt4))
	def("pg_char_to_encoding", sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		names := pgEncodings()
		for _, i := range sel {
			out.I[i] = -1 // not an encoding
			want := cleanEncodingName(a[0].S[i])
			for n, name := range names {
				if cleanEncodingName(name) == want {
					out.I[i] = n
				}
			}
		}
		return nil
	}, TName))
}
