package file

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// encKind numbers the CompressiveEncoding oneof (lance.encodings21).
type encKind int

const (
	encFlat                 encKind = 1
	encVariable             encKind = 2
	encConstant             encKind = 3
	encOutOfLineBitpacking  encKind = 4
	encInlineBitpacking     encKind = 5
	encFsst                 encKind = 6
	encDictionary           encKind = 7
	encRle                  encKind = 8
	encByteStreamSplit      encKind = 9
	encGeneral              encKind = 10
	encFixedSizeList        encKind = 11
	encPackedStruct         encKind = 12
	encVariablePackedStruct encKind = 13
)

var encNames = map[encKind]string{
	encFlat: "flat", encVariable: "variable", encConstant: "constant",
	encOutOfLineBitpacking: "out_of_line_bitpacking", encInlineBitpacking: "inline_bitpacking",
	encFsst: "fsst", encDictionary: "dictionary", encRle: "rle", encByteStreamSplit: "byte_stream_split",
	encGeneral: "general", encFixedSizeList: "fixed_size_list", encPackedStruct: "packed_struct",
	encVariablePackedStruct: "variable_packed_struct",
}

func (k encKind) String() string {
	if s, ok := encNames[k]; ok {
		return s
	}
	return fmt.Sprintf("encoding#%d", int(k))
}

// enc is a decoded CompressiveEncoding tree.
type enc struct {
	kind        encKind
	bits        uint64 // flat: bits_per_value; bitpacking: uncompressed bits; fsl: items_per_value
	compression int    // BufferCompression scheme on flat/variable/inline values (0 = none)
	child       *enc   // variable.offsets, out_of_line.values, fsst/rle/bss/general/fsl values, dictionary.indices
	child2      *enc   // rle.run_lengths, dictionary.items
	symbols     []byte // fsst symbol table
	constant    []byte // constant.value
	hasValidity bool   // fsl
}

func (e *enc) String() string {
	if e == nil {
		return "<none>"
	}
	s := e.kind.String()
	switch e.kind {
	case encFlat, encInlineBitpacking:
		s += fmt.Sprintf("(%d)", e.bits)
	case encFixedSizeList:
		s += fmt.Sprintf("(%d,validity=%v)", e.bits, e.hasValidity)
	}
	if e.compression != 0 {
		s += fmt.Sprintf("[compressed %d]", e.compression)
	}
	if e.child != nil {
		s += "{" + e.child.String()
		if e.child2 != nil {
			s += "," + e.child2.String()
		}
		s += "}"
	}
	return s
}

func parseEnc(b []byte, depth int) (*enc, error) {
	if depth > maxPBDepth {
		return nil, corrupt("", "encoding nested too deeply")
	}
	m, err := parsePB(b)
	if err != nil {
		return nil, err
	}
	var e *enc
	for _, f := range m {
		if f.typ == protowire.BytesType && f.num >= 1 && f.num <= 13 {
			e = &enc{kind: encKind(f.num)}
			b = f.b
		}
	}
	if e == nil {
		return nil, corrupt("", "empty CompressiveEncoding")
	}
	in, err := parsePB(b)
	if err != nil {
		return nil, err
	}
	sub := func(num protowire.Number) (*enc, error) {
		if !in.has(num) {
			return nil, nil
		}
		return parseEnc(in.bytes(num), depth+1)
	}
	compression := func(num protowire.Number) error {
		if !in.has(num) {
			return nil
		}
		bc, err := parsePB(in.bytes(num))
		if err != nil {
			return err
		}
		e.compression = int(bc.uint(1))
		if e.compression == 0 {
			e.compression = -1 // present but unspecified: still not plain
		}
		return nil
	}
	switch e.kind {
	case encFlat:
		e.bits = in.uint(1)
		err = compression(2)
	case encVariable:
		if e.child, err = sub(1); err == nil {
			err = compression(2)
		}
	case encConstant:
		e.constant = in.bytes(1)
	case encOutOfLineBitpacking:
		e.bits = in.uint(1)
		e.child, err = sub(3)
	case encInlineBitpacking:
		e.bits = in.uint(1)
		err = compression(2)
	case encFsst:
		e.symbols = in.bytes(1)
		e.child, err = sub(2)
	case encDictionary:
		if e.child, err = sub(1); err == nil {
			e.child2, err = sub(2)
		}
	case encRle:
		if e.child, err = sub(1); err == nil {
			e.child2, err = sub(2)
		}
	case encByteStreamSplit:
		e.child, err = sub(1)
	case encGeneral:
		if in.has(1) {
			bc, perr := parsePB(in.bytes(1))
			if perr != nil {
				return nil, perr
			}
			e.compression = int(bc.uint(1))
		}
		e.child, err = sub(3)
	case encFixedSizeList:
		e.bits = in.uint(1)
		e.hasValidity = in.uint(3) != 0
		e.child, err = sub(2)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// --- building the encodings the writer emits ---

func wrapEnc(kind encKind, body []byte) []byte {
	return appendBytesField(nil, protowire.Number(kind), body)
}

func flatEnc(bits uint64) []byte {
	return wrapEnc(encFlat, appendVarintField(nil, 1, bits))
}

func variableEnc(offsetBits uint64) []byte {
	return wrapEnc(encVariable, appendBytesField(nil, 1, flatEnc(offsetBits)))
}

func fslEnc(items uint64, hasValidity bool, inner []byte) []byte {
	var b []byte
	b = appendVarintField(b, 1, items)
	b = appendBytesField(b, 2, inner)
	if hasValidity {
		b = appendVarintField(b, 3, 1)
	}
	return wrapEnc(encFixedSizeList, b)
}
