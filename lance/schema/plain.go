package schema

import "github.com/apache/arrow-go/v18/arrow"

// Field-metadata keys read by the official Lance encoder.
const (
	MetaCompression   = "lance-encoding:compression"
	MetaDictSizeRatio = "lance-encoding:dict-size-ratio"
	MetaRLEThreshold  = "lance-encoding:rle-threshold"
	MetaBSS           = "lance-encoding:bss"
)

// PlainEncodingMetadata returns the field metadata that keeps the official
// Lance writer on flat/variable value buffers for a field: no general or
// FSST compression, dictionary encoding practically never chosen, RLE
// disabled, byte-stream-split off. (Definition levels are still bitpacked by
// Lance; our reader handles that.) Each call returns a fresh map.
func PlainEncodingMetadata() map[string]string {
	return map[string]string{
		MetaCompression:   "none",
		MetaDictSizeRatio: "0.000001",
		MetaRLEThreshold:  "0",
		MetaBSS:           "off",
	}
}

// WithPlainEncoding returns a copy of s in which every field, nested ones
// included, carries PlainEncodingMetadata (existing keys of a field win).
func WithPlainEncoding(s *arrow.Schema) *arrow.Schema {
	fs := make([]arrow.Field, len(s.Fields()))
	for i, f := range s.Fields() {
		fs[i] = withPlain(f)
	}
	md := s.Metadata()
	return arrow.NewSchema(fs, &md)
}

func withPlain(f arrow.Field) arrow.Field {
	m := PlainEncodingMetadata()
	keys := f.Metadata.Keys()
	vals := f.Metadata.Values()
	for i, k := range keys {
		m[k] = vals[i]
	}
	ks := make([]string, 0, len(m))
	vs := make([]string, 0, len(m))
	for k, v := range m {
		ks = append(ks, k)
		vs = append(vs, v)
	}
	f.Metadata = arrow.NewMetadata(ks, vs)
	switch t := f.Type.(type) {
	case *arrow.ListType:
		f.Type = arrow.ListOfField(withPlain(t.ElemField()))
	case *arrow.LargeListType:
		f.Type = arrow.LargeListOfField(withPlain(t.ElemField()))
	case *arrow.StructType:
		cs := make([]arrow.Field, len(t.Fields()))
		for i, c := range t.Fields() {
			cs[i] = withPlain(c)
		}
		f.Type = arrow.StructOf(cs...)
	}
	return f
}
