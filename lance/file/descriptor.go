package file

import (
	"github.com/pggraph/pggraph/lance/schema"
)

// descriptor is global buffer 0: FileDescriptor{1 schema{1 fields, 5 metadata}, 2 length}.
type descriptor struct {
	fields   []schema.Field
	metadata map[string][]byte
	numRows  uint64
}

func (d descriptor) encode() []byte {
	var s, fb []byte
	for _, f := range d.fields {
		fb = schema.EncodeField(fb[:0], f) // one scratch buffer for every field
		s = appendBytesField(s, 1, fb)
	}
	s = schema.AppendMetadata(s, 5, d.metadata)
	var b []byte
	b = appendBytesField(b, 1, s)
	if d.numRows != 0 {
		b = appendVarintField(b, 2, d.numRows)
	}
	return b
}

func decodeDescriptor(b []byte) (descriptor, error) {
	m, err := parsePB(b)
	if err != nil {
		return descriptor{}, err
	}
	d := descriptor{numRows: m.uint(2)}
	s, err := parsePB(m.bytes(1))
	if err != nil {
		return descriptor{}, err
	}
	for _, fb := range s.all(1) {
		f, err := schema.DecodeField(fb)
		if err != nil {
			return descriptor{}, corrupt("", "schema field: %v", err)
		}
		d.fields = append(d.fields, f)
	}
	for _, e := range s.all(5) {
		k, v, err := schema.DecodeMetadataEntry(e)
		if err != nil {
			return descriptor{}, corrupt("", "schema metadata: %v", err)
		}
		if d.metadata == nil {
			d.metadata = map[string][]byte{}
		}
		d.metadata[k] = v
	}
	return d, nil
}
