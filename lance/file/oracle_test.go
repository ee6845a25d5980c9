package file

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance/schema"
)

// oracleColumns describes s for the oracle, optionally with the plain
// encoding metadata.
func oracleColumns(t *testing.T, s *arrow.Schema, plain bool) []oracle.Column {
	var cols []oracle.Column
	for _, f := range s.Fields() {
		lt, err := schema.LogicalType(f.Type)
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := f.Type.(*arrow.ListType); ok {
			inner, err := schema.LogicalType(l.Elem())
			if err != nil {
				t.Fatal(err)
			}
			lt = "list:" + inner
		}
		c := oracle.Column{Name: f.Name, Type: lt, Nullable: f.Nullable}
		if plain {
			c.Metadata = schema.PlainEncodingMetadata()
		}
		cols = append(cols, c)
	}
	return cols
}

func oracleRows(rows []map[string]any) []oracle.Row {
	out := make([]oracle.Row, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}

// readDataFiles reads every data file of a dataset with our reader, in name
// order, reporting per column whether it was decodable.
func readDataFiles(t *testing.T, dir string) (rows []map[string]any, unsupported map[string]error) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "data", "*.lance"))
	if len(files) == 0 {
		t.Fatalf("no data files under %s", dir)
	}
	sort.Strings(files)
	ctx := context.Background()
	unsupported = map[string]error{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := OpenBytes(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cols := map[string][]any{}
		for _, fld := range r.Schema().Fields() {
			out, err := r.ReadAll(ctx, ScanOptions{Columns: []string{fld.Name}})
			if err != nil {
				if !IsUnsupported(err) {
					t.Fatalf("%s column %s: %v (must be a value or an unsupported error)", f, fld.Name, err)
				}
				unsupported[fld.Name] = err
				continue
			}
			for _, rec := range out {
				for i := 0; i < int(rec.NumRows()); i++ {
					cols[fld.Name] = append(cols[fld.Name], jsonValue(rec.Column(0), i))
				}
				rec.Release()
			}
		}
		for i := 0; i < int(r.NumRows()); i++ {
			row := map[string]any{}
			for name, vs := range cols {
				row[name] = vs[i]
			}
			rows = append(rows, row)
		}
	}
	return rows, unsupported
}

// normalize round-trips through JSON so both sides use the same Go types.
func normalize(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func compareRows(t *testing.T, got []map[string]any, want []oracle.Row, skip map[string]error) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, oracle has %d", len(got), len(want))
	}
	for i := range want {
		w := map[string]any(want[i])
		for k := range skip {
			delete(w, k)
		}
		g, wn := normalize(t, got[i]), normalize(t, w)
		if !reflect.DeepEqual(g, wn) {
			t.Fatalf("row %d:\n ours   %v\n oracle %v", i, g, wn)
		}
	}
}

// TestReadOracleWrittenFiles makes datasets with the official Lance and reads
// their data files directly. With the plain-encoding field metadata every
// column must decode exactly; with Lance's defaults each column must decode
// exactly or be refused with an error naming the encoding.
func TestReadOracleWrittenFiles(t *testing.T) {
	for _, plain := range []bool{true, false} {
		for _, n := range []int{3, 2500} {
			t.Run(fmt.Sprintf("plain=%v/rows=%d", plain, n), func(t *testing.T) {
				rng := newRand(int64(n))
				s := allTypesSchema(true)
				rec := randomBatch(rng, memory.DefaultAllocator, s, n, 0.2)
				rows := oracleRows(rowsOf([]arrow.RecordBatch{rec}))
				rec.Release()
				root := t.TempDir()
				oracle.Create(t, root, "t", oracleColumns(t, s, plain), rows)
				dump := oracle.Read(t, root, "t")
				got, unsup := readDataFiles(t, filepath.Join(root, "t.lance"))
				if plain && len(unsup) > 0 {
					t.Fatalf("plain-mode columns refused: %v", unsup)
				}
				for c, err := range unsup {
					t.Logf("default encoding refused for %s: %v", c, err)
				}
				compareRows(t, got, dump.Rows, unsup)
			})
		}
	}
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

// TestReadOracleBitpacked checks data Lance compresses with bitpacking by
// default (sequential and small integers, sparse nulls over many levels).
func TestReadOracleBitpacked(t *testing.T) {
	cols, rows := bitpackedData()
	root := t.TempDir()
	oracle.Create(t, root, "t", cols, rows)
	got, unsup := readDataFiles(t, filepath.Join(root, "t.lance"))
	for c, err := range unsup {
		t.Errorf("column %s refused: %v", c, err)
	}
	compareRows(t, got, oracle.Read(t, root, "t").Rows, unsup)
	// The point of this test is that Lance bitpacked something: make sure.
	encs := encodingsUsed(t, filepath.Join(root, "t.lance"))
	for _, want := range []string{"value inline_bitpacking", "def out_of_line_bitpacking"} {
		if !encs[want] {
			t.Errorf("Lance did not use %s here (used %v); the test no longer covers it", want, encs)
		}
	}
}

func bitpackedData() ([]oracle.Column, []oracle.Row) {
	cols := []oracle.Column{{Name: "seq", Type: "int64"}, {Name: "small", Type: "int32", Nullable: true},
		{Name: "u8", Type: "uint8", Nullable: true}, {Name: "b", Type: "bool", Nullable: true}}
	var rows []oracle.Row
	for i := 0; i < 5000; i++ {
		r := oracle.Row{"seq": fmt.Sprint(i * 3), "small": float64(i % 100), "u8": float64(i % 7), "b": i%3 == 0}
		if i%11 == 0 {
			r["small"], r["b"] = nil, nil
		}
		if i%97 == 0 {
			r["u8"] = nil
		}
		rows = append(rows, r)
	}
	return cols, rows
}

// encodingsUsed lists "value <kind>" and "def <kind>" over all pages.
func encodingsUsed(t *testing.T, dir string) map[string]bool {
	files, _ := filepath.Glob(filepath.Join(dir, "data", "*.lance"))
	out := map[string]bool{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		r, err := OpenBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.cols {
			for _, p := range c.pages {
				for e := p.layout.value; e != nil; e = e.child {
					out["value "+e.kind.String()] = true
				}
				if p.layout.dictionary != nil {
					out["dictionary"] = true
				}
				if p.layout.kind == layoutFullZip {
					out["full-zip"] = true
				}
				if p.layout.def != nil {
					out["def "+p.layout.def.kind.String()] = true
				}
			}
		}
	}
	return out
}

// defaultEncodingsData is shaped so Lance 8.0 picks its compressive
// encodings: long runs (rle), a 4-value category (dictionary), varied
// strings (fsst), long strings (full-zip + fsst), a constant, doubles.
func defaultEncodingsData(n int, withVec bool) ([]oracle.Column, []oracle.Row) {
	cols := []oracle.Column{
		{Name: "runs", Type: "int32", Nullable: true}, {Name: "cat", Type: "string", Nullable: true},
		{Name: "catn", Type: "string", Nullable: true}, {Name: "rnd", Type: "string", Nullable: true},
		{Name: "long", Type: "string", Nullable: true}, {Name: "longl", Type: "large_string", Nullable: false},
		{Name: "konst", Type: "int64"}, {Name: "f", Type: "double", Nullable: true},
		{Name: "dint", Type: "int64", Nullable: true},
	}
	if withVec {
		cols = append(cols, oracle.Column{Name: "vec", Type: "fixed_size_list:float:64", Nullable: true})
	}
	cats := []string{"red", "green", "blue", "yellow"}
	var rows []oracle.Row
	for i := 0; i < n; i++ {
		r := oracle.Row{
			"runs": float64(i / 500), "cat": cats[i%4], "catn": cats[i%3],
			"rnd":  fmt.Sprintf("user-%d-x%d", (i*7919)%100000, i%13),
			"long": strings.Repeat("L", 300) + fmt.Sprint(i), "longl": strings.Repeat("Q", 280+i%50),
			"konst": "42", "f": float64(i) / 7, "dint": fmt.Sprint((i % 5) * 1000003),
		}
		if withVec {
			vec := make([]any, 64)
			for k := range vec {
				vec[k] = float64((i*k)%1000) / 4
			}
			r["vec"] = vec
			if i%7 == 0 {
				r["vec"] = nil
			}
		}
		if i%3 == 0 {
			r["long"] = nil
		}
		if i%7 == 0 {
			r["catn"] = nil
		}
		rows = append(rows, r)
	}
	return cols, rows
}

// TestReadOracleDefaultEncodings reads what Lance writes with its default
// (compressive) encodings and checks those encodings were really used.
func TestReadOracleDefaultEncodings(t *testing.T) {
	cols, rows := defaultEncodingsData(5000, true)
	root := t.TempDir()
	oracle.Create(t, root, "t", cols, rows)
	got, unsup := readDataFiles(t, filepath.Join(root, "t.lance"))
	for c, err := range unsup {
		t.Errorf("column %s refused: %v", c, err)
	}
	compareRows(t, got, oracle.Read(t, root, "t").Rows, unsup)
	encs := encodingsUsed(t, filepath.Join(root, "t.lance"))
	t.Logf("encodings Lance used: %v", encs)
	for _, want := range []string{"value rle", "value fsst", "dictionary", "full-zip"} {
		if !encs[want] {
			t.Errorf("Lance did not use %s here (used %v); the test no longer covers it", want, encs)
		}
	}
}

// TestReadOracleFullZipPlain: with the plain-encoding metadata Lance still
// writes long values full-zip (uncompressed variable values); we read them.
func TestReadOracleFullZipPlain(t *testing.T) {
	plain := schema.PlainEncodingMetadata()
	cols := []oracle.Column{
		{Name: "s", Type: "string", Nullable: true, Metadata: plain},
		{Name: "ls", Type: "large_string", Metadata: plain},
	}
	var rows []oracle.Row
	for i := 0; i < 200; i++ {
		r := oracle.Row{"s": strings.Repeat("L", 400) + fmt.Sprint(i), "ls": strings.Repeat("Q", 20000+i)}
		if i%4 == 0 {
			r["s"] = nil
		}
		rows = append(rows, r)
	}
	root := t.TempDir()
	oracle.Create(t, root, "t", cols, rows)
	got, unsup := readDataFiles(t, filepath.Join(root, "t.lance"))
	if len(unsup) > 0 {
		t.Fatalf("refused: %v", unsup)
	}
	compareRows(t, got, oracle.Read(t, root, "t").Rows, nil)
	if encs := encodingsUsed(t, filepath.Join(root, "t.lance")); !encs["full-zip"] || !encs["value variable"] {
		t.Fatalf("Lance did not write plain full-zip here: %v", encs)
	}
}

// TestRefuseOracle22: a 2.2 file (not our format) is refused with an error
// naming the version, never misread.
func TestRefuseOracle22(t *testing.T) {
	root := t.TempDir()
	oracle.Create(t, root, "t", []oracle.Column{{Name: "id", Type: "int64"}}, []oracle.Row{{"id": "1"}}, "--storage-version", "2.2")
	files, _ := filepath.Glob(filepath.Join(root, "t.lance", "data", "*.lance"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	b, _ := os.ReadFile(files[0])
	if _, err := OpenBytes(b); !IsUnsupported(err) || !strings.Contains(err.Error(), "2.2") {
		t.Fatalf("2.2 file: %v", err)
	}
}

// TestReadOracleByteStreamSplit: floats Lance writes with byte-stream-split.
func bssData() ([]oracle.Column, []oracle.Row) {
	bss := map[string]string{schema.MetaBSS: "on", schema.MetaCompression: "zstd"}
	cols := []oracle.Column{{Name: "f", Type: "float", Nullable: true, Metadata: bss}, {Name: "d", Type: "double", Metadata: bss}}
	var rows []oracle.Row
	for i := 0; i < 3000; i++ {
		r := oracle.Row{"f": float64(float32(i) / 3), "d": float64(i) * 1.000001}
		if i%9 == 0 {
			r["f"] = nil
		}
		rows = append(rows, r)
	}
	return cols, rows
}

func TestReadOracleByteStreamSplit(t *testing.T) { // and general zstd
	cols, rows := bssData()
	root := t.TempDir()
	oracle.Create(t, root, "t", cols, rows)
	got, unsup := readDataFiles(t, filepath.Join(root, "t.lance"))
	if len(unsup) > 0 {
		t.Fatalf("refused: %v", unsup)
	}
	compareRows(t, got, oracle.Read(t, root, "t").Rows, nil)
	if encs := encodingsUsed(t, filepath.Join(root, "t.lance")); !encs["value byte_stream_split"] || !encs["value general"] {
		t.Fatalf("Lance did not use byte_stream_split here: %v", encs)
	}
}

// listsData makes list columns Lance encodes with dictionaries, rle,
// bitpacking, fsst and full-zip by default, with null, empty and
// null-item rows.
func listsData(n int) ([]oracle.Column, []oracle.Row) {
	cols := []oracle.Column{{Name: "cats", Type: "list:string", Nullable: true}, {Name: "longs", Type: "list:string", Nullable: true},
		{Name: "runs", Type: "list:int32", Nullable: true}, {Name: "seq", Type: "list:int64", Nullable: true}, {Name: "b", Type: "list:bool", Nullable: true}}
	var rows []oracle.Row
	c := []string{"a", "bb", "ccc"}
	for i := 0; i < n; i++ {
		r := oracle.Row{"cats": []any{c[i%3], c[(i+1)%3]},
			"longs": []any{strings.Repeat("x", 300+i%7) + fmt.Sprint(i), fmt.Sprint(i * 7919)},
			"runs":  []any{float64(i / 700), float64(i / 700)},
			"seq":   []any{fmt.Sprint(i), fmt.Sprint(i + 1), nil}, "b": []any{i%2 == 0}}
		if i%5 == 0 {
			r["cats"], r["longs"], r["seq"] = nil, []any{}, []any{}
		}
		if i%11 == 0 {
			r["longs"] = nil
		}
		rows = append(rows, r)
	}
	return cols, rows
}

// TestReadOracleDefaultLists reads list columns Lance writes with its
// default encodings (dictionary and full-zip list pages included).
func TestReadOracleDefaultLists(t *testing.T) {
	cols, rows := listsData(4000)
	root := t.TempDir()
	oracle.Create(t, root, "t", cols, rows)
	got, unsup := readDataFiles(t, filepath.Join(root, "t.lance"))
	if len(unsup) > 0 {
		t.Fatalf("refused: %v", unsup)
	}
	compareRows(t, got, oracle.Read(t, root, "t").Rows, nil)
	encs := encodingsUsed(t, filepath.Join(root, "t.lance"))
	for _, want := range []string{"dictionary", "full-zip", "value rle", "value fsst"} {
		if !encs[want] {
			t.Errorf("Lance did not use %s here (used %v)", want, encs)
		}
	}
}

// TestPlainMetadataKeepsLancePlain: with schema.PlainEncodingMetadata on
// every field, data that Lance would otherwise compress (runs, categories,
// repetitive strings, small integers) comes out with plain value buffers.
func TestPlainMetadataKeepsLancePlain(t *testing.T) {
	cols, rows := defaultEncodingsData(2500, true)
	for i := range cols {
		cols[i].Metadata = schema.PlainEncodingMetadata()
	}
	lcols, lrows := listsData(1500)
	for i := range lcols {
		lcols[i].Metadata = schema.PlainEncodingMetadata()
	}
	for _, ds := range []struct {
		cols []oracle.Column
		rows []oracle.Row
	}{{cols, rows}, {lcols, lrows}} {
		root := t.TempDir()
		oracle.Create(t, root, "t", ds.cols, ds.rows)
		got, unsup := readDataFiles(t, filepath.Join(root, "t.lance"))
		if len(unsup) > 0 {
			t.Fatalf("refused: %v", unsup)
		}
		compareRows(t, got, oracle.Read(t, root, "t").Rows, nil)
		plain := map[string]bool{"value flat": true, "value variable": true, "value fixed_size_list": true, "full-zip": true,
			"def out_of_line_bitpacking": true, "def inline_bitpacking": true, "def flat": true}
		for e := range encodingsUsed(t, filepath.Join(root, "t.lance")) {
			if !plain[e] {
				t.Errorf("Lance used %s despite the plain-encoding metadata", e)
			}
		}
	}
}
