package exec

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// Hashes and binary encodings of bytea: sha224, sha256, sha384, sha512,
// encode and decode (hex, base64, escape).

func init() {
	hash := func(f func([]byte) []byte) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.S[i] = string(f([]byte(a[0].S[i])))
			}
			return nil
		}
	}
	def("sha224", sig(TBytea, hash(func(b []byte) []byte { h := sha256.Sum224(b); return h[:] }), TBytea))
	def("sha384", sig(TBytea, hash(func(b []byte) []byte { h := sha512.Sum384(b); return h[:] }), TBytea))
	def("sha512", sig(TBytea, hash(func(b []byte) []byte { h := sha512.Sum512(b); return h[:] }), TBytea))
	def("sha256", sig(TBytea, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			h := sha256.Sum256([]byte(a[0].S[i]))
			out.S[i] = string(h[:])
		}
		return nil
	}, TBytea))
	def("encode", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			switch strings.ToLower(a[1].S[i]) {
			case "hex":
				out.S[i] = hex.EncodeToString([]byte(a[0].S[i]))
			case "base64":
				// PostgreSQL breaks base64 output into 76-character lines
				enc := base64.StdEncoding.EncodeToString([]byte(a[0].S[i]))
				var sb strings.Builder
				for len(enc) > 76 {
					sb.WriteString(enc[:76])
					sb.WriteByte('\n')
					enc = enc[76:]
				}
				sb.WriteString(enc)
				out.S[i] = sb.String()
			case "escape":
				out.S[i] = encodeByteaEscape(a[0].S[i])
			default:
				return errf(CodeInvalidParameterValue, "unrecognized encoding: \"%s\"", a[1].S[i])
			}
		}
		return nil
	}, TBytea, TText))
	def("decode", sig(TBytea, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s := a[0].S[i]
			switch strings.ToLower(a[1].S[i]) {
			case "hex":
				b, err := decodeHexPG(s)
				if err != nil {
					return err
				}
				out.S[i] = b
			case "base64":
				b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
				if err != nil {
					return errf(CodeInvalidParameterValue, "invalid base64 end sequence")
				}
				out.S[i] = string(b)
			case "escape":
				b, err := parseByteaEscape(s)
				if err != nil {
					return err
				}
				out.S[i] = b
			default:
				return errf(CodeInvalidParameterValue, "unrecognized encoding: \"%s\"", a[1].S[i])
			}
		}
		return nil
	}, TText, TText))
}
