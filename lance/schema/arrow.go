package schema

import (
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
)

// extensionNameKey is the Arrow metadata key mirrored into Field.ExtensionName.
const extensionNameKey = "ARROW:extension:name"

// maxDepth bounds nesting so hostile field lists cannot recurse unboundedly.
const maxDepth = 64

// FromArrow flattens an Arrow schema into Lance fields, parents before
// children, ids assigned depth-first from 0. Field metadata is copied.
func FromArrow(s *arrow.Schema) ([]Field, error) {
	var out []Field
	next := int32(0)
	for _, f := range s.Fields() {
		if err := appendArrowField(&out, f, -1, &next, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func appendArrowField(out *[]Field, af arrow.Field, parent int32, next *int32, depth int) error {
	if depth > maxDepth {
		return unsupported(af.Name, "nesting deeper than %d", maxDepth)
	}
	lt, err := LogicalType(af.Type)
	if err != nil {
		return &Error{Field: af.Name, Detail: err.(*Error).Detail, Err: ErrUnsupportedType}
	}
	f := Field{
		Name:        af.Name,
		ID:          *next,
		ParentID:    parent,
		LogicalType: lt,
		Nullable:    af.Nullable,
		Encoding:    legacyEncoding(af.Type),
	}
	*next++
	if af.HasMetadata() {
		f.Metadata = make(map[string][]byte, af.Metadata.Len())
		for i, k := range af.Metadata.Keys() {
			f.Metadata[k] = []byte(af.Metadata.Values()[i])
		}
		if v, ok := af.Metadata.GetValue(extensionNameKey); ok {
			f.ExtensionName = v
		}
	}
	*out = append(*out, f)
	var children []arrow.Field
	switch t := af.Type.(type) {
	case *arrow.StructType:
		children = t.Fields()
	case *arrow.ListType:
		children = []arrow.Field{t.ElemField()}
	case *arrow.LargeListType:
		children = []arrow.Field{t.ElemField()}
	}
	for _, c := range children {
		if err := appendArrowField(out, c, f.ID, next, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// legacyEncoding mirrors the encoding enum Lance still writes per field.
func legacyEncoding(dt arrow.DataType) LegacyEncoding {
	switch dt.(type) {
	case *arrow.StringType, *arrow.LargeStringType, *arrow.BinaryType, *arrow.LargeBinaryType:
		return EncodingVarBinary
	case *arrow.DictionaryType:
		return EncodingDictionary
	case *arrow.ListType, *arrow.LargeListType, *arrow.BooleanType, *arrow.FixedSizeListType,
		*arrow.FixedSizeBinaryType, *arrow.Decimal128Type, *arrow.Decimal256Type:
		return EncodingPlain
	}
	if _, ok := dt.(arrow.FixedWidthDataType); ok && dt.ID() != arrow.NULL {
		return EncodingPlain
	}
	return EncodingNone
}

type node struct {
	f        Field
	children []*node
}

// ToArrow rebuilds the Arrow schema from a flat Lance field list. A field
// whose parent id is -1 is top level; any other parent must appear earlier.
func ToArrow(fields []Field) (*arrow.Schema, error) {
	roots, err := buildTree(fields)
	if err != nil {
		return nil, err
	}
	out := make([]arrow.Field, 0, len(roots))
	for _, r := range roots {
		af, err := r.arrow(0)
		if err != nil {
			return nil, err
		}
		out = append(out, af)
	}
	return arrow.NewSchema(out, nil), nil
}

func buildTree(fields []Field) ([]*node, error) {
	byID := make(map[int32]*node, len(fields))
	var roots []*node
	for _, f := range fields {
		if _, dup := byID[f.ID]; dup {
			return nil, malformed(f.Name, "duplicate field id %d", f.ID)
		}
		n := &node{f: f}
		byID[f.ID] = n
		if f.ParentID == -1 {
			roots = append(roots, n)
			continue
		}
		p, ok := byID[f.ParentID]
		if !ok {
			return nil, malformed(f.Name, "parent id %d not defined before the field", f.ParentID)
		}
		p.children = append(p.children, n)
	}
	return roots, nil
}

func (n *node) arrow(depth int) (arrow.Field, error) {
	f := n.f
	if depth > maxDepth {
		return arrow.Field{}, unsupported(f.Name, "nesting deeper than %d", maxDepth)
	}
	af := arrow.Field{Name: f.Name, Nullable: f.Nullable}
	if len(f.Metadata) > 0 || f.ExtensionName != "" {
		keys := make([]string, 0, len(f.Metadata)+1)
		for k := range f.Metadata {
			keys = append(keys, k)
		}
		if _, ok := f.Metadata[extensionNameKey]; !ok && f.ExtensionName != "" {
			keys = append(keys, extensionNameKey)
		}
		sort.Strings(keys)
		vals := make([]string, len(keys))
		for i, k := range keys {
			if v, ok := f.Metadata[k]; ok {
				vals[i] = string(v)
			} else {
				vals[i] = f.ExtensionName
			}
		}
		af.Metadata = arrow.NewMetadata(keys, vals)
	}
	kids := func() ([]arrow.Field, error) {
		out := make([]arrow.Field, len(n.children))
		for i, c := range n.children {
			cf, err := c.arrow(depth + 1)
			if err != nil {
				return nil, err
			}
			out[i] = cf
		}
		return out, nil
	}
	switch f.LogicalType {
	case "struct":
		cs, err := kids()
		if err != nil {
			return arrow.Field{}, err
		}
		af.Type = arrow.StructOf(cs...)
		return af, nil
	case "list", "list.struct", "large_list", "large_list.struct":
		if len(n.children) != 1 {
			return arrow.Field{}, malformed(f.Name, "%s with %d child fields", f.LogicalType, len(n.children))
		}
		cs, err := kids()
		if err != nil {
			return arrow.Field{}, err
		}
		if f.LogicalType[0] == 'l' && f.LogicalType[1] == 'a' {
			af.Type = arrow.LargeListOfField(cs[0])
		} else {
			af.Type = arrow.ListOfField(cs[0])
		}
		return af, nil
	}
	if len(n.children) != 0 {
		return arrow.Field{}, malformed(f.Name, "logical type %q cannot have child fields", f.LogicalType)
	}
	dt, err := ParseLogicalType(f.LogicalType)
	if err != nil {
		return arrow.Field{}, &Error{Field: f.Name, Detail: err.(*Error).Detail, Err: ErrUnsupportedType}
	}
	af.Type = dt
	return af, nil
}
