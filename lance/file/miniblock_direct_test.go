package file

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDirectDecodeMatchesGeneral decodes every page the direct decoder
// accepts both ways — directly into Arrow buffers (gathered into a new
// buffer, and in place in a private copy of the page) and through the
// general leafData path — and requires identical arrays, for our files
// (every type, with and without nulls, several page sizes, sliced
// inputs) and for the files the official Lance wrote (testdata).
func TestDirectDecodeMatchesGeneral(t *testing.T) {
	ctx := context.Background()
	type source struct {
		name string
		b    []byte
	}
	var files []source
	for i, tc := range []struct {
		nullable  bool
		nullP     float64
		pageBytes int
		sliced    bool
	}{
		{true, 0.2, 0, false},
		{true, 0.01, 8 << 10, true},
		{false, 0, 0, true},
		{true, 1, 0, false},
		{true, 0.5, 100 << 10, false},
	} {
		s := allTypesSchema(tc.nullable)
		rng := newRand(int64(40 + i))
		var buf bytes.Buffer
		w, err := NewStreamWriter(&buf, s, WriterOptions{PageBytes: tc.pageBytes})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{3000, 5000, 17} {
			rec := randomBatch(rng, memory.DefaultAllocator, s, n, tc.nullP)
			if tc.sliced {
				sl := rec.NewSlice(5, rec.NumRows()-2)
				rec.Release()
				rec = sl
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
		if _, err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
		files = append(files, source{name: "ours", b: buf.Bytes()})
	}
	lanceFiles, _ := filepath.Glob(filepath.Join("testdata", "*", "data", "*.lance"))
	if len(lanceFiles) == 0 {
		t.Fatal("no oracle-written files under testdata")
	}
	for _, f := range lanceFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, source{name: f, b: b})
	}
	compared := map[physKind]int{}
	withNulls := 0
	for _, f := range files {
		r, err := OpenBytes(f.b)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		for ci, cm := range r.cols {
			p, fld := r.phys[ci], r.schema.Field(ci)
			for pi, pm := range cm.pages {
				if p.kind == physList || !directable(p, pm.layout) {
					continue
				}
				bufs, err := r.readBuffers(ctx, pm.buffers)
				if err != nil {
					t.Fatal(err)
				}
				direct, err := decodeMiniBlockDirect(fld.Name, p, fld.Type, pm.layout, pm.length, bufs, false)
				if err != nil {
					t.Fatalf("%s %s page %d: direct: %v", f.name, fld.Name, pi, err)
				}
				// in place, on a private copy of the page (as read from a store)
				own := make([][]byte, len(bufs))
				for i, b := range bufs {
					own[i] = append([]byte(nil), b...)
				}
				inPlace, err := decodeMiniBlockDirect(fld.Name, p, fld.Type, pm.layout, pm.length, own, true)
				if err != nil {
					t.Fatalf("%s %s page %d: direct in place: %v", f.name, fld.Name, pi, err)
				}
				if !array.Equal(direct, inPlace) || direct.NullN() != inPlace.NullN() {
					t.Fatalf("%s %s page %d: in-place decode differs:\n%v\n%v", f.name, fld.Name, pi, direct, inPlace)
				}
				inPlace.Release()
				ld, err := decodeMiniBlockLeaf(fld.Name, p, pm.layout, pm.length, bufs)
				if err != nil {
					t.Fatalf("%s %s page %d: general: %v", f.name, fld.Name, pi, err)
				}
				general, err := ld.toArrow(fld.Name, p, fld.Type)
				if err != nil {
					t.Fatal(err)
				}
				if !array.Equal(direct, general) || direct.NullN() != general.NullN() {
					t.Fatalf("%s %s page %d: direct decode differs from the general path:\n%v\n%v", f.name, fld.Name, pi, direct, general)
				}
				if direct.NullN() > 0 {
					withNulls++
				}
				compared[p.kind]++
				direct.Release()
				general.Release()
			}
		}
	}
	for _, k := range []physKind{physFixed, physBool, physVariable} {
		if compared[k] == 0 {
			t.Errorf("no page of layout %d went through the direct decoder", k)
		}
	}
	if withNulls == 0 {
		t.Error("no page with nulls went through the direct decoder")
	}
	t.Logf("pages compared by layout: %v (%d with nulls)", compared, withNulls)
}

// TestDirectDecodeRejectsCorruptChunks: the direct decoder turns
// malformed chunk tables and chunk headers into ErrCorrupt (the fuzz
// target covers arbitrary bytes; these are the boundary cases).
func TestDirectDecodeRejectsCorruptChunks(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, s)
	for i := 0; i < 5000; i++ {
		if i%7 == 0 {
			b.Field(0).AppendNull()
			b.Field(1).AppendNull()
			continue
		}
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append("v")
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, _ := NewStreamWriter(&buf, s, WriterOptions{})
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, err := OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for ci := range r.cols {
		pm := r.cols[ci].pages[0]
		fld := r.schema.Field(ci)
		if !directable(r.phys[ci], pm.layout) {
			t.Fatalf("column %s: page not directable", fld.Name)
		}
		bufs, err := r.readBuffers(context.Background(), pm.buffers)
		if err != nil {
			t.Fatal(err)
		}
		clone := func() [][]byte {
			return [][]byte{append([]byte(nil), bufs[0]...), append([]byte(nil), bufs[1]...)}
		}
		cases := map[string]func(b [][]byte) [][]byte{
			"odd table":          func(b [][]byte) [][]byte { b[0] = b[0][:len(b[0])-1]; return b },
			"truncated data":     func(b [][]byte) [][]byte { b[1] = b[1][:len(b[1])/2]; return b },
			"empty data":         func(b [][]byte) [][]byte { b[1] = nil; return b },
			"no table":           func(b [][]byte) [][]byte { b[0] = nil; return b },
			"huge value size":    func(b [][]byte) [][]byte { b[1][4], b[1][5] = 0xFF, 0xFF; return b },
			"huge def size":      func(b [][]byte) [][]byte { b[1][2], b[1][3] = 0xFF, 0xFF; return b },
			"level count":        func(b [][]byte) [][]byte { b[1][0]++; return b },
			"one buffer":         func(b [][]byte) [][]byte { return b[:1] },
			"chunk past the end": func(b [][]byte) [][]byte { b[0][0], b[0][1] = 0xF0, 0xFF; return b },
		}
		for name, mutate := range cases {
			for _, owned := range []bool{false, true} {
				_, err := decodeMiniBlockDirect(fld.Name, r.phys[ci], fld.Type, pm.layout, pm.length, mutate(clone()), owned)
				if !IsCorrupt(err) {
					t.Errorf("column %s, %s (in place %v): %v, want ErrCorrupt", fld.Name, name, owned, err)
				}
			}
		}
	}
}
