package format

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one decoded protobuf field occurrence.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64 // varint / fixed value
	b   []byte // length-delimited payload (aliases the input)
	raw []byte // the whole field including its tag, for unknown-field preservation
}

// eachField walks a message. fn returns known=false for fields it does
// not recognise; their raw bytes are appended to *unknown (if non-nil)
// in their original order.
func eachField(msg string, b []byte, unknown *[]byte, fn func(f *field) (bool, error)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return &CorruptError{Message: msg, Reason: "bad tag", Err: protowire.ParseError(n)}
		}
		f := field{num: num, typ: typ}
		var m int
		switch typ {
		case protowire.VarintType:
			f.v, m = protowire.ConsumeVarint(b[n:])
		case protowire.Fixed32Type:
			var v uint32
			v, m = protowire.ConsumeFixed32(b[n:])
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, m = protowire.ConsumeFixed64(b[n:])
		case protowire.BytesType:
			f.b, m = protowire.ConsumeBytes(b[n:])
		default:
			// groups and anything else: skip generically
			m = protowire.ConsumeFieldValue(num, typ, b[n:])
		}
		if m < 0 {
			return &CorruptError{Message: msg, Reason: "bad value of field " + itoa(int(num)), Err: protowire.ParseError(m)}
		}
		f.raw = b[:n+m]
		b = b[n+m:]
		known, err := fn(&f)
		if err != nil {
			return err
		}
		if !known && unknown != nil {
			*unknown = append(*unknown, f.raw...)
		}
	}
	return nil
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var buf [20]byte
	p := len(buf)
	for i > 0 {
		p--
		buf[p] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		p--
		buf[p] = '-'
	}
	return string(buf[p:])
}

func (f *field) wantType(msg string, t protowire.Type) error {
	if f.typ != t {
		return corrupt(msg, "field "+itoa(int(f.num))+" has wrong wire type")
	}
	return nil
}

func (f *field) u64(msg string) (uint64, error) {
	if err := f.wantType(msg, protowire.VarintType); err != nil {
		return 0, err
	}
	return f.v, nil
}

func (f *field) u32(msg string) (uint32, error) {
	v, err := f.u64(msg)
	if err != nil {
		return 0, err
	}
	// proto3 uint32 decoders truncate; do the same.
	return uint32(v), nil
}

func (f *field) i32(msg string) (int32, error) {
	v, err := f.u64(msg)
	if err != nil {
		return 0, err
	}
	return int32(int64(v)), nil
}

func (f *field) i64(msg string) (int64, error) {
	v, err := f.u64(msg)
	return int64(v), err
}

func (f *field) boolean(msg string) (bool, error) {
	v, err := f.u64(msg)
	return v != 0, err
}

func (f *field) bytes(msg string) ([]byte, error) {
	if err := f.wantType(msg, protowire.BytesType); err != nil {
		return nil, err
	}
	return f.b, nil
}

func (f *field) str(msg string) (string, error) {
	b, err := f.bytes(msg)
	return string(b), err
}

// cloneBytes copies a payload so decoded messages do not alias input.
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// appendPackedOrSingle decodes a repeated varint field in either the
// packed or the unpacked form.
func (f *field) varints(msg string, dst []uint64) ([]uint64, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(dst, f.v), nil
	case protowire.BytesType:
		b := f.b
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, &CorruptError{Message: msg, Reason: "bad packed varint", Err: protowire.ParseError(n)}
			}
			dst = append(dst, v)
			b = b[n:]
		}
		return dst, nil
	}
	return nil, corrupt(msg, "field "+itoa(int(f.num))+" has wrong wire type")
}

// ---- encoding helpers (proto3: zero scalars are omitted) ----

func putUint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func putUintAlways(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func putInt(b []byte, num protowire.Number, v int64) []byte { return putUint(b, num, uint64(v)) }

func putBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return putUint(b, num, 1)
}

func putString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func putStringAlways(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func putBytesAlways(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// putMessage appends a nested message produced by enc. enc appends the
// message to b itself and the length prefix is slid in front of it
// afterwards, so a manifest encode allocates nothing per nested message
// (a manifest holds several per fragment and is encoded at every commit).
func putMessage(b []byte, num protowire.Number, enc func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	start := len(b)
	b = enc(b)
	return prefixLength(b, start)
}

// prefixLength inserts the varint length of b[start:] at start.
func prefixLength(b []byte, start int) []byte {
	n := len(b) - start
	sz := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, sz)...) // grows without allocating when cap allows
	copy(b[start+sz:], b[start:start+n])
	protowire.AppendVarint(b[start:start], uint64(n))
	return b
}

func putPackedUint64(b []byte, num protowire.Number, vs []uint64) []byte {
	if len(vs) == 0 {
		return b
	}
	n := 0
	for _, v := range vs {
		n += protowire.SizeVarint(v)
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	for _, v := range vs {
		b = protowire.AppendVarint(b, v)
	}
	return b
}

func putPackedInt32(b []byte, num protowire.Number, vs []int32) []byte {
	if len(vs) == 0 {
		return b
	}
	n := 0
	for _, v := range vs {
		n += protowire.SizeVarint(uint64(int64(v)))
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	for _, v := range vs {
		b = protowire.AppendVarint(b, uint64(int64(v)))
	}
	return b
}

func putPackedUint32(b []byte, num protowire.Number, vs []uint32) []byte {
	if len(vs) == 0 {
		return b
	}
	n := 0
	for _, v := range vs {
		n += protowire.SizeVarint(uint64(v))
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	for _, v := range vs {
		b = protowire.AppendVarint(b, uint64(v))
	}
	return b
}

// int32s converts decoded varints to int32 (sign-extended encoding).
func int32s(vs []uint64) []int32 {
	out := make([]int32, len(vs))
	for i, v := range vs {
		out[i] = int32(int64(v))
	}
	return out
}

func uint32s(vs []uint64) []uint32 {
	out := make([]uint32, len(vs))
	for i, v := range vs {
		if v > math.MaxUint32 {
			v = uint64(uint32(v))
		}
		out[i] = uint32(v)
	}
	return out
}

// ---- maps: repeated entry messages {1 key, 2 value} ----

func decodeMapEntry(msg string, b []byte) (key string, val []byte, err error) {
	err = eachField(msg+" entry", b, nil, func(f *field) (bool, error) {
		switch f.num {
		case 1:
			s, err := f.str(msg)
			key = s
			return true, err
		case 2:
			v, err := f.bytes(msg)
			val = cloneBytes(v)
			return true, err
		}
		return false, nil
	})
	if val == nil {
		val = []byte{}
	}
	return key, val, err
}

func putStringMap(b []byte, num protowire.Number, m map[string]string) []byte {
	for _, k := range sortedKeys(m) {
		b = putMessage(b, num, func(e []byte) []byte {
			e = putString(e, 1, k)
			return putString(e, 2, m[k])
		})
	}
	return b
}

func putBytesMap(b []byte, num protowire.Number, m map[string][]byte) []byte {
	for _, k := range sortedKeys(m) {
		b = putMessage(b, num, func(e []byte) []byte {
			e = putString(e, 1, k)
			if len(m[k]) > 0 {
				e = putBytesAlways(e, 2, m[k])
			}
			return e
		})
	}
	return b
}
