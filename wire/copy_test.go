package wire

import (
	"bufio"
	"encoding/binary"
	"io"
	"reflect"
	"strings"
	"testing"
)

// decodeAll runs the COPY FROM decoder over data without a connection.
func decodeAll(opts CopyOptions, data string) ([][]*string, error) {
	fillCopyDefaults(&opts)
	in := &CopyIn{opts: opts, br: bufio.NewReaderSize(strings.NewReader(data), 16), started: true, maxLine: 1 << 16}
	var out [][]*string
	for {
		row, err := in.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		var r []*string
		for _, f := range row {
			if f == nil {
				r = append(r, nil)
			} else {
				s := string(f)
				r = append(r, &s)
			}
		}
		out = append(out, r)
	}
}

func strs(vals ...any) []*string {
	out := make([]*string, len(vals))
	for i, v := range vals {
		if s, ok := v.(string); ok {
			out[i] = &s
		}
	}
	return out
}

func TestCopyDecoders(t *testing.T) {
	binRow := func(fields ...any) []byte {
		b := binary.BigEndian.AppendUint16(nil, uint16(len(fields)))
		for _, f := range fields {
			if f == nil {
				b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(f.(string))))
			b = append(b, f.(string)...)
		}
		return b
	}
	binHeader := string(binaryCopySignature) + "\x00\x00\x00\x00\x00\x00\x00\x00"
	cases := []struct {
		name string
		opts CopyOptions
		data string
		want [][]*string
		code string
	}{
		{"text", CopyOptions{}, "1\ta\n2\t\\N\n", [][]*string{strs("1", "a"), strs("2", nil)}, ""},
		{"text_escapes", CopyOptions{}, `a\tb\\c\x41\101\nd` + "\tx\\\ty\n", [][]*string{strs("a\tb\\cAA\nd", "x\ty")}, ""},
		{"text_crlf_and_end_marker", CopyOptions{}, "1\r\n\\.\nignored\n", [][]*string{strs("1")}, ""},
		{"text_no_final_newline", CopyOptions{}, "1\t2", [][]*string{strs("1", "2")}, ""},
		{"text_long_line", CopyOptions{}, strings.Repeat("x", 100) + "\n", [][]*string{strs(strings.Repeat("x", 100))}, ""},
		{"text_header_custom_null", CopyOptions{Header: true, Null: "", NullSet: true, Delimiter: '|'}, "a|b\n|x\n", [][]*string{strs(nil, "x")}, ""},
		{"csv", CopyOptions{Format: CopyCSV}, "1,\"a,b\",\n2,\"\",\"say \"\"hi\"\"\"\n", [][]*string{strs("1", "a,b", nil), strs("2", "", `say "hi"`)}, ""},
		{"csv_multiline_header", CopyOptions{Format: CopyCSV, Header: true}, "h1,h2\n\"x\ny\",z\n", [][]*string{strs("x\ny", "z")}, ""},
		{"csv_escape", CopyOptions{Format: CopyCSV, Escape: '\\'}, "\"a\\\"b\",c\n", [][]*string{strs(`a"b`, "c")}, ""},
		{"csv_unterminated", CopyOptions{Format: CopyCSV}, "\"open\n", nil, "22P04"},
		{"text_invalid_utf8", CopyOptions{}, "ok\n\xff\n", nil, CodeCharacterNotInRepertoire},
		{"csv_invalid_utf8", CopyOptions{Format: CopyCSV}, "\"a\n\xc3\x28\"\n", nil, CodeCharacterNotInRepertoire},
		{"binary", CopyOptions{Format: CopyBinary}, binHeader + string(binRow("ab", nil)) + string(binRow("", "c")) + "\xff\xff", [][]*string{strs("ab", nil), strs("", "c")}, ""},
		{"binary_no_trailer", CopyOptions{Format: CopyBinary}, binHeader + string(binRow("q")), [][]*string{strs("q")}, ""},
		{"binary_bad_signature", CopyOptions{Format: CopyBinary}, "PGCOPY\nxxxxxxxxxxxx", nil, "22P04"},
		{"binary_truncated_field", CopyOptions{Format: CopyBinary}, binHeader + "\x00\x01\x00\x00\x00\x09ab", nil, "22P04"},
		{"binary_huge_field", CopyOptions{Format: CopyBinary}, binHeader + "\x00\x01\x7f\xff\xff\xff", nil, "22P04"},
		{"binary_negative_count", CopyOptions{Format: CopyBinary}, binHeader + "\xff\x00", nil, "22P04"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAll(tc.opts, tc.data)
			if tc.code != "" {
				if Code(err) != tc.code {
					t.Fatalf("want %s, got %v (rows %v)", tc.code, err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %s want %s", render(got), render(tc.want))
			}
		})
	}
}

func render(rows [][]*string) string {
	var b strings.Builder
	for _, r := range rows {
		for i, f := range r {
			if i > 0 {
				b.WriteByte('|')
			}
			if f == nil {
				b.WriteString("NULL")
			} else {
				b.WriteString(*f)
			}
		}
		b.WriteByte(';')
	}
	return b.String()
}

func TestCopyTextRoundTrip(t *testing.T) {
	values := []string{"plain", "tab\there", "new\nline", `back\slash`, "", "\\N", "cr\rx", "a,b", `q"uote`}
	for _, format := range []CopyFormat{CopyText, CopyCSV} {
		o := CopyOptions{Format: format}
		fillCopyDefaults(&o)
		var data []byte
		for _, v := range values {
			data = appendCopyText(data, []byte(v), o)
			data = append(data, o.Delimiter)
			data = append(data, o.Null...) // a NULL second field
			data = append(data, '\n')
		}
		got, err := decodeAll(o, string(data))
		if err != nil {
			t.Fatalf("format %d: %v", format, err)
		}
		for i, v := range values {
			if got[i][0] == nil || *got[i][0] != v || got[i][1] != nil {
				t.Errorf("format %d value %q came back as %s", format, v, render(got[i:i+1]))
			}
		}
	}
}

func FuzzCopyDecode(f *testing.F) {
	f.Add(byte(0), []byte("1\ta\\tb\n\\N\t\\x4\n"))
	f.Add(byte(1), []byte("\"a\n\"\"b\",c\n"))
	f.Add(byte(2), append(append([]byte{}, binaryCopySignature...), 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 'x', 0xff, 0xff))
	f.Fuzz(func(t *testing.T, format byte, data []byte) {
		o := CopyOptions{Format: CopyFormat(format % 3)}
		rows, err := decodeAll(o, string(data))
		if err != nil && Code(err) == "" {
			t.Fatalf("untyped error %v", err)
		}
		total := 0
		for _, r := range rows {
			for _, v := range r {
				if v != nil {
					total += len(*v)
				}
			}
		}
		if total > len(data)*2+16 {
			t.Fatalf("decoded %d bytes from %d", total, len(data))
		}
	})
}
