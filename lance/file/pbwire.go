package file

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// pbField is one decoded protobuf field: a varint/fixed value or bytes.
type pbField struct {
	num protowire.Number
	typ protowire.Type
	u   uint64
	b   []byte
}

// pbMsg is a decoded message: fields in wire order. The file metadata
// messages are small, so a generic walk is simpler than one decoder each.
type pbMsg []pbField

// maxPBDepth bounds recursion through nested encodings in hostile input.
const maxPBDepth = 32

func parsePB(b []byte) (pbMsg, error) {
	var m pbMsg
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, corrupt("", "protobuf tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		f := pbField{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.u, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			f.u, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.u = uint64(v)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil, corrupt("", "protobuf field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		m = append(m, f)
	}
	return m, nil
}

// uint returns the last varint value of field num (proto3 last-wins).
func (m pbMsg) uint(num protowire.Number) uint64 {
	var v uint64
	for _, f := range m {
		if f.num == num && f.typ == protowire.VarintType {
			v = f.u
		}
	}
	return v
}

func (m pbMsg) has(num protowire.Number) bool {
	for _, f := range m {
		if f.num == num {
			return true
		}
	}
	return false
}

// bytes returns the last bytes value of field num, or nil.
func (m pbMsg) bytes(num protowire.Number) []byte {
	var v []byte
	for _, f := range m {
		if f.num == num && f.typ == protowire.BytesType {
			v = f.b
		}
	}
	return v
}

// all returns every bytes value of field num (repeated messages).
func (m pbMsg) all(num protowire.Number) [][]byte {
	var out [][]byte
	for _, f := range m {
		if f.num == num && f.typ == protowire.BytesType {
			out = append(out, f.b)
		}
	}
	return out
}

// uints returns a repeated integer field, packed or not.
func (m pbMsg) uints(num protowire.Number) ([]uint64, error) {
	var out []uint64
	for _, f := range m {
		if f.num != num {
			continue
		}
		switch f.typ {
		case protowire.VarintType:
			out = append(out, f.u)
		case protowire.BytesType:
			b := f.b
			for len(b) > 0 {
				v, n := protowire.ConsumeVarint(b)
				if n < 0 {
					return nil, corrupt("", "packed field %d: %v", num, protowire.ParseError(n))
				}
				out = append(out, v)
				b = b[n:]
			}
		}
	}
	return out, nil
}

// --- encoding helpers ---

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendPacked(b []byte, num protowire.Number, vs []uint64) []byte {
	if len(vs) == 0 {
		return b
	}
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, v)
	}
	return appendBytesField(b, num, p)
}
