package schema

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/encoding/protowire"
)

func allTypesSchema() *arrow.Schema {
	md := arrow.NewMetadata([]string{"k"}, []string{"v"})
	return arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Metadata: md},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString},
		{Name: "bin", Type: arrow.BinaryTypes.Binary},
		{Name: "lbin", Type: arrow.BinaryTypes.LargeBinary},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second}},
		{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "America/New_York"}},
		{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "+05:30"}},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 20, Scale: 4}},
		{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 16}},
		{Name: "vec", Type: arrow.FixedSizeListOfField(128, arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float32, Nullable: true})},
		{Name: "lst", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32}, arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})},
	}, nil)
}

func TestArrowRoundTrip(t *testing.T) {
	s := allTypesSchema()
	fields, err := FromArrow(s)
	if err != nil {
		t.Fatal(err)
	}
	// Depth-first ids: lst(23) -> item(24), st(25) -> a(26), b(27).
	for _, w := range []struct {
		idx          int
		name         string
		id, parentID int32
	}{{0, "i8", 0, -1}, {23, "lst", 23, -1}, {24, "item", 24, 23}, {25, "st", 25, -1}, {26, "a", 26, 25}, {27, "b", 27, 25}} {
		f := fields[w.idx]
		if f.Name != w.name || f.ID != w.id || f.ParentID != w.parentID {
			t.Errorf("field %d = %s id=%d parent=%d, want %s %d %d", w.idx, f.Name, f.ID, f.ParentID, w.name, w.id, w.parentID)
		}
	}
	if len(fields) != 28 {
		t.Fatalf("got %d fields, want 28", len(fields))
	}
	back, err := ToArrow(fields)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(s) {
		t.Fatalf("round trip mismatch:\n%s\nvs\n%s", back, s)
	}
	// Metadata survives.
	if v, _ := back.Field(3).Metadata.GetValue("k"); v != "v" {
		t.Errorf("metadata lost: %v", back.Field(3).Metadata)
	}
}

func TestLogicalTypes(t *testing.T) {
	cases := []struct {
		dt   arrow.DataType
		want string
	}{
		{arrow.PrimitiveTypes.Float32, "float"},
		{arrow.PrimitiveTypes.Float64, "double"},
		{arrow.BinaryTypes.LargeString, "large_string"},
		{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "timestamp:us:UTC"},
		{&arrow.TimestampType{Unit: arrow.Nanosecond}, "timestamp:ns:-"},
		{&arrow.Decimal128Type{Precision: 38, Scale: 10}, "decimal:128:38:10"},
		{arrow.FixedSizeListOf(128, arrow.PrimitiveTypes.Float32), "fixed_size_list:float:128"},
		{&arrow.FixedSizeBinaryType{ByteWidth: 4}, "fixed_size_binary:4"},
		{arrow.FixedWidthTypes.Date32, "date32:day"},
	}
	for _, c := range cases {
		got, err := LogicalType(c.dt)
		if err != nil || got != c.want {
			t.Errorf("LogicalType(%s) = %q, %v; want %q", c.dt, got, err, c.want)
		}
		back, err := ParseLogicalType(got)
		if err != nil || !arrow.TypeEqual(back, c.dt) {
			t.Errorf("ParseLogicalType(%q) = %v, %v", got, back, err)
		}
	}
	// spelled-out list types (graph column definitions of SQL arrays)
	for lt, want := range map[string]arrow.DataType{
		"list:int32":            arrow.ListOf(arrow.PrimitiveTypes.Int32),
		"list:string":           arrow.ListOf(arrow.BinaryTypes.String),
		"list:timestamp:us:UTC": arrow.ListOf(&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}),
		"large_list:double":     arrow.LargeListOf(arrow.PrimitiveTypes.Float64),
		"list:decimal:128:10:2": arrow.ListOf(&arrow.Decimal128Type{Precision: 10, Scale: 2}),
	} {
		got, err := ParseLogicalType(lt)
		if err != nil || !arrow.TypeEqual(got, want) {
			t.Errorf("ParseLogicalType(%q) = %v, %v; want %v", lt, got, err, want)
			continue
		}
		if item := got.(arrow.ListLikeType).ElemField(); item.Name != "item" || !item.Nullable {
			t.Errorf("ParseLogicalType(%q): element field %+v, want a nullable \"item\"", lt, item)
		}
	}
	for _, bad := range []string{"", "int128", "timestamp:xs:UTC", "decimal:64:1:1", "decimal:128:x:1", "fixed_size_list:float:0", "fixed_size_binary:-1", "time32:us",
		"list", "list:", "list:int128", "large_list:timestamp:xs:UTC"} {
		if _, err := ParseLogicalType(bad); !IsUnsupportedType(err) {
			t.Errorf("ParseLogicalType(%q) err = %v, want unsupported", bad, err)
		}
	}
}

func TestFieldCodecRoundTrip(t *testing.T) {
	f := Field{Name: "x", ID: 7, ParentID: -1, LogicalType: "large_string", Nullable: true, Encoding: EncodingVarBinary,
		Metadata: map[string][]byte{"a": []byte("1"), "b": {}}, UnenforcedPrimaryKey: true}
	// An unmodelled field (99, varint 5) must survive.
	f.Unknown = protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 5)
	b := EncodeField(nil, f)
	got, err := DecodeField(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("got %+v\nwant %+v", got, f)
	}
	if again := EncodeField(nil, got); !bytes.Equal(again, b) {
		t.Fatalf("re-encoding differs")
	}
}

// A Field message as the official Lance 8.0 writes it (captured from a
// manifest): name "id", id 0, parent -1, "int64", encoding PLAIN.
func TestDecodeLanceField(t *testing.T) {
	raw := []byte{0x12, 0x02, 'i', 'd', 0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
		0x2a, 0x05, 'i', 'n', 't', '6', '4', 0x38, 0x01}
	f, err := DecodeField(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := Field{Name: "id", ID: 0, ParentID: -1, LogicalType: "int64", Encoding: EncodingPlain}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("got %+v want %+v", f, want)
	}
	if enc := EncodeField(nil, f); !bytes.Equal(enc, raw) {
		t.Fatalf("encoding differs: %x vs %x", enc, raw)
	}
}

func TestToArrowErrors(t *testing.T) {
	cases := map[string][]Field{
		"dup id":       {{Name: "a", ID: 1, ParentID: -1, LogicalType: "int8"}, {Name: "b", ID: 1, ParentID: -1, LogicalType: "int8"}},
		"orphan":       {{Name: "a", ID: 1, ParentID: 5, LogicalType: "int8"}},
		"list no kid":  {{Name: "a", ID: 0, ParentID: -1, LogicalType: "list"}},
		"leaf w/ kids": {{Name: "a", ID: 0, ParentID: -1, LogicalType: "int8"}, {Name: "b", ID: 1, ParentID: 0, LogicalType: "int8"}},
	}
	for name, fs := range cases {
		if _, err := ToArrow(fs); !IsMalformed(err) {
			t.Errorf("%s: err = %v, want malformed", name, err)
		}
	}
	if _, err := ToArrow([]Field{{Name: "a", ID: 0, ParentID: -1, LogicalType: "weird"}}); !IsUnsupportedType(err) {
		t.Errorf("unknown type: err = %v", err)
	}
	if _, err := FromArrow(arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8)}}, nil)); !IsUnsupportedType(err) {
		t.Errorf("map: err = %v", err)
	}
}

func TestWithPlainEncoding(t *testing.T) {
	s := WithPlainEncoding(allTypesSchema())
	fields, err := FromArrow(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if string(f.Metadata[MetaCompression]) != "none" || string(f.Metadata[MetaRLEThreshold]) != "0" {
			t.Errorf("%s lacks plain metadata: %v", f.Name, f.Metadata)
		}
	}
	if string(fields[3].Metadata["k"]) != "v" {
		t.Errorf("existing metadata lost")
	}
}

func FuzzDecodeField(f *testing.F) {
	fs, _ := FromArrow(allTypesSchema())
	for _, x := range fs {
		f.Add(EncodeField(nil, x))
	}
	f.Add([]byte{0x52, 0x05, 0x0a, 0x01, 'k', 0x12, 0x09})
	f.Fuzz(func(t *testing.T, b []byte) {
		fld, err := DecodeField(b)
		if err != nil {
			if !IsMalformed(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		again, err := DecodeField(EncodeField(nil, fld))
		if err != nil || !reflect.DeepEqual(again, fld) {
			t.Fatalf("re-decode mismatch: %v", err)
		}
		_, _ = ToArrow([]Field{fld})
	})
}

func TestColumnFieldID(t *testing.T) {
	fields, err := FromArrow(allTypesSchema())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, want int32
		ok       bool
	}{{3, 3, true}, {23, 24, true}, {24, 24, true}, {22, 22, true}, {25, 0, false}, {99, 0, false}} {
		got, ok := ColumnFieldID(fields, c.id)
		if got != c.want || ok != c.ok {
			t.Errorf("ColumnFieldID(%d) = %d, %v; want %d, %v", c.id, got, ok, c.want, c.ok)
		}
	}
}
