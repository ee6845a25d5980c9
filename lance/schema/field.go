package schema

import (
	"sort"

	"google.golang.org/protobuf/encoding/protowire"
)

// LegacyEncoding is the lance.file.Encoding enum stored in Field.encoding.
// Readers of 2.x files ignore it, but Lance still writes it, so we do too.
type LegacyEncoding int32

// Values of LegacyEncoding.
const (
	EncodingNone       LegacyEncoding = 0
	EncodingPlain      LegacyEncoding = 1
	EncodingVarBinary  LegacyEncoding = 2
	EncodingDictionary LegacyEncoding = 3
	EncodingRLE        LegacyEncoding = 4
)

// Field mirrors the lance.file.Field protobuf message.
type Field struct {
	Type                 int32 // 1: PARENT/REPEATED/LEAF; Lance writes 0
	Name                 string
	ID                   int32
	ParentID             int32 // -1 for a top-level field
	LogicalType          string
	Nullable             bool
	Encoding             LegacyEncoding
	ExtensionName        string
	Metadata             map[string][]byte
	UnenforcedPrimaryKey bool
	// Unknown holds every field this struct does not model (e.g. 8, the
	// legacy dictionary), as raw tag+value bytes, re-emitted by EncodeField.
	Unknown []byte
}

// Protobuf field numbers of lance.file.Field.
const (
	fieldType                 = 1
	fieldName                 = 2
	fieldID                   = 3
	fieldParentID             = 4
	fieldLogicalType          = 5
	fieldNullable             = 6
	fieldEncoding             = 7
	fieldExtensionName        = 9
	fieldMetadata             = 10
	fieldUnenforcedPrimaryKey = 12
)

// EncodeField appends the protobuf encoding of f to b (proto3 rules: zero
// values are omitted; metadata entries are sorted by key for determinism).
func EncodeField(b []byte, f Field) []byte {
	if f.Type != 0 {
		b = protowire.AppendTag(b, fieldType, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(f.Type)))
	}
	if f.Name != "" {
		b = protowire.AppendTag(b, fieldName, protowire.BytesType)
		b = protowire.AppendString(b, f.Name)
	}
	if f.ID != 0 {
		b = protowire.AppendTag(b, fieldID, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(f.ID)))
	}
	if f.ParentID != 0 {
		b = protowire.AppendTag(b, fieldParentID, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(f.ParentID)))
	}
	if f.LogicalType != "" {
		b = protowire.AppendTag(b, fieldLogicalType, protowire.BytesType)
		b = protowire.AppendString(b, f.LogicalType)
	}
	if f.Nullable {
		b = protowire.AppendTag(b, fieldNullable, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	if f.Encoding != 0 {
		b = protowire.AppendTag(b, fieldEncoding, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(f.Encoding)))
	}
	if f.ExtensionName != "" {
		b = protowire.AppendTag(b, fieldExtensionName, protowire.BytesType)
		b = protowire.AppendString(b, f.ExtensionName)
	}
	b = AppendMetadata(b, fieldMetadata, f.Metadata)
	if f.UnenforcedPrimaryKey {
		b = protowire.AppendTag(b, fieldUnenforcedPrimaryKey, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	return append(b, f.Unknown...)
}

// AppendMetadata appends a map<string,bytes> field number num, one entry
// message {1 key, 2 value} per key, sorted by key.
func AppendMetadata(b []byte, num protowire.Number, m map[string][]byte) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// the entry is appended in place after its length (computed
		// first): every data file's footer carries the schema, so a
		// buffer per entry was a large share of a 1-row commit's
		// allocations
		v := m[k]
		n := protowire.SizeTag(1) + protowire.SizeBytes(len(k)) + protowire.SizeTag(2) + protowire.SizeBytes(len(v))
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(n))
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, k)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, v)
	}
	return b
}

// DecodeMetadataEntry decodes one map<string,bytes> entry message.
func DecodeMetadataEntry(b []byte) (key string, value []byte, err error) {
	value = []byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", nil, malformed("", "metadata entry tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return "", nil, malformed("", "metadata key: %v", protowire.ParseError(m))
			}
			key, b = string(v), b[m:]
		case num == 2 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return "", nil, malformed("", "metadata value: %v", protowire.ParseError(m))
			}
			value, b = append([]byte{}, v...), b[m:]
		default:
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return "", nil, malformed("", "metadata entry field %d: %v", num, protowire.ParseError(m))
			}
			b = b[m:]
		}
	}
	return key, value, nil
}

// DecodeField decodes one lance.file.Field message. Proto3 defaults apply
// to absent fields (ParentID is 0 when absent, as in Lance).
func DecodeField(b []byte) (Field, error) {
	var f Field
	for len(b) > 0 {
		start := b
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return Field{}, malformed(f.Name, "tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		var m int
		switch {
		case typ == protowire.VarintType && (num == fieldType || num == fieldID || num == fieldParentID ||
			num == fieldNullable || num == fieldEncoding || num == fieldUnenforcedPrimaryKey):
			var v uint64
			v, m = protowire.ConsumeVarint(b)
			if m < 0 {
				return Field{}, malformed(f.Name, "field %d: %v", num, protowire.ParseError(m))
			}
			switch num {
			case fieldType:
				f.Type = int32(v)
			case fieldID:
				f.ID = int32(v)
			case fieldParentID:
				f.ParentID = int32(v)
			case fieldNullable:
				f.Nullable = v != 0
			case fieldEncoding:
				f.Encoding = LegacyEncoding(int32(v))
			case fieldUnenforcedPrimaryKey:
				f.UnenforcedPrimaryKey = v != 0
			}
		case typ == protowire.BytesType && (num == fieldName || num == fieldLogicalType ||
			num == fieldExtensionName || num == fieldMetadata):
			var v []byte
			v, m = protowire.ConsumeBytes(b)
			if m < 0 {
				return Field{}, malformed(f.Name, "field %d: %v", num, protowire.ParseError(m))
			}
			switch num {
			case fieldName:
				f.Name = string(v)
			case fieldLogicalType:
				f.LogicalType = string(v)
			case fieldExtensionName:
				f.ExtensionName = string(v)
			case fieldMetadata:
				k, val, err := DecodeMetadataEntry(v)
				if err != nil {
					return Field{}, err
				}
				if f.Metadata == nil {
					f.Metadata = map[string][]byte{}
				}
				f.Metadata[k] = val
			}
		default:
			m = protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return Field{}, malformed(f.Name, "field %d: %v", num, protowire.ParseError(m))
			}
			f.Unknown = append(f.Unknown, start[:n+m]...)
		}
		b = b[m:]
	}
	return f, nil
}
