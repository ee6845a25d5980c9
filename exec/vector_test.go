package exec

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// pgvector's vector(n) is not installed in the PostgreSQL the other
// tests compare with, so these expectations are pgvector 0.8's documented
// behaviour: '[1,2,3]' text form, shortest float4 digits, dimension and
// value errors with their SQLSTATEs, casts from numeric arrays, binary
// send layout, and storage as Arrow fixed_size_list<float32>[n].

// vectorCatalog has table emb (id int8, v vector(3)) with two rows and a
// NULL vector.
func vectorCatalog(t *testing.T) *MemCatalog {
	t.Helper()
	cols := []ColumnDef{{Name: "id", Type: TInt8}, {Name: "v", Type: VectorType(3)}}
	mt, err := NewMemTable(cols, [][]any{{int64(1), "[1,2,3]"}, {int64(2), "[0.5, -1e-07, 1e+20]"}, {int64(3), nil}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mt.Records[0].Column(1).(*array.FixedSizeList); !ok {
		t.Fatalf("vector(3) column stored as %s, want fixed_size_list", mt.Records[0].Column(1).DataType())
	}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "emb", Columns: cols, Source: mt})
	return cat
}

func TestVectorType(t *testing.T) {
	eng := &Engine{Catalog: vectorCatalog(t)}
	sess := &Session{Database: "main", User: "app"}
	cases := []struct {
		sql, want, code string
	}{
		{sql: `SELECT v FROM emb WHERE id = 1`, want: "[1,2,3]"},
		{sql: `SELECT v FROM emb WHERE id = 2`, want: "[0.5,-1e-07,1e+20]"},
		{sql: `SELECT v IS NULL FROM emb WHERE id = 3`, want: "t"},
		{sql: `SELECT v::text FROM emb WHERE id = 1`, want: "[1,2,3]"},
		{sql: `SELECT v::real[] FROM emb WHERE id = 1`, want: "{1,2,3}"},
		{sql: `SELECT '[1, 2.5 ,3]'::vector`, want: "[1,2.5,3]"},
		{sql: `SELECT ' [4,5,6] '::vector(3)`, want: "[4,5,6]"},
		{sql: `SELECT '[0.1]'::vector`, want: "[0.1]"},
		{sql: `SELECT ARRAY[1,2,3]::vector(3)`, want: "[1,2,3]"},
		{sql: `SELECT ARRAY[1.5,2]::numeric[]::vector`, want: "[1.5,2]"},
		{sql: `SELECT '{7,8}'::float8[]::vector`, want: "[7,8]"},
		{sql: `SELECT '[1,2]'::vector(3)`, code: "22000"},
		{sql: `SELECT '[1,2]'::vector::vector(3)`, code: "22000"},
		{sql: `SELECT ARRAY[1,2]::vector(3)`, code: "22000"},
		{sql: `SELECT '[]'::vector`, code: "22000"},
		{sql: `SELECT '[1,NaN]'::vector`, code: "22000"},
		{sql: `SELECT '[1,Infinity]'::vector`, code: "22000"},
		{sql: `SELECT '[1,a]'::vector`, code: "22P02"},
		{sql: `SELECT '1,2'::vector`, code: "22P02"},
		{sql: `SELECT '[1e39]'::vector`, code: "22003"},
		{sql: `SELECT ARRAY[1,NULL]::vector`, code: "22004"},
		{sql: `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'emb'::regclass AND attname = 'v'`, want: "vector(3)"},
		{sql: `SELECT t.typname || ' ' || n.nspname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace JOIN pg_attribute a ON a.atttypid = t.oid WHERE a.attrelid = 'emb'::regclass AND a.attname = 'v'`, want: "vector pg_catalog"},
		{sql: `SELECT data_type || ' ' || udt_schema || '.' || udt_name FROM information_schema.columns WHERE table_name = 'emb' AND column_name = 'v'`, want: "vector pg_catalog.vector"},
		{sql: `SELECT 'vector'::regtype::text`, want: "vector"},
		{sql: `SELECT vector_dims(v) FROM emb WHERE id = 1`, want: "3"},
		{sql: `SELECT l2_distance(v, '[1,2,5]') FROM emb WHERE id = 1`, want: "2"},
		{sql: `SELECT l1_distance('[1,2]'::vector, '[3,5]')`, want: "5"},
		{sql: `SELECT inner_product('[1,2]'::vector, '[3,5]')`, want: "13"},
		{sql: `SELECT cosine_distance('[1,0]'::vector, '[0,2]')`, want: "1"},
		{sql: `SELECT cosine_distance('[1,1]'::vector, '[2,2]')`, want: "0"},
		{sql: `SELECT cosine_distance('[0,0]'::vector, '[2,2]')`, want: "NaN"},
		{sql: `SELECT vector_norm('[3,4]')`, want: "5"},
		{sql: `SELECT l2_distance('[1,2]'::vector, '[1,2,3]')`, code: "22000"},
		// pgvector's operators in SQL: <-> l2, <+> l1, <#> negative inner product, <=> cosine
		{sql: `SELECT v <-> '[1,2,5]' FROM emb WHERE id = 1`, want: "2"},
		{sql: `SELECT '[1,2]'::vector <+> '[3,5]'`, want: "5"},
		{sql: `SELECT '[1,2]'::vector <#> '[3,5]'`, want: "-13"},
		{sql: `SELECT '[1,1]'::vector <=> '[2,2]'`, want: "0"},
		{sql: `SELECT id FROM emb WHERE v IS NOT NULL ORDER BY v <-> '[0.5,0,1e20]' LIMIT 1`, want: "2"},
		{sql: `SELECT '[1,2]'::vector <-> '[1,2,3]'`, code: "22000"},
	}
	for _, c := range cases {
		r, err := eng.Query(context.Background(), sess, c.sql)
		if c.code != "" {
			if Code(err) != c.code {
				t.Errorf("%s: got %v, want SQLSTATE %s", c.sql, err, c.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		rows := r.Rows()
		if len(rows) != 1 || rows[0][0] == nil || *rows[0][0] != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, dumpRows(rows), c.want)
		}
	}
	r, err := eng.Query(context.Background(), sess, `SELECT v FROM emb WHERE id = 1`)
	if err != nil {
		t.Fatal(err)
	}
	if col := r.Columns[0]; col.TypeOID != OIDVector || col.TypeMod != 3 {
		t.Errorf("RowDescription of a vector(3) column: oid %d mod %d", col.TypeOID, col.TypeMod)
	}
}

func dumpRows(rows [][]*string) string {
	var b bytes.Buffer
	for _, r := range rows {
		b.WriteString(rowString(r) + ";")
	}
	return b.String()
}

// TestVectorBinaryAndArrow checks vector_send's layout and both Arrow
// storage forms (fixed_size_list and the list exec/lancesrc.ExecForm
// presents).
func TestVectorBinaryAndArrow(t *testing.T) {
	v := NewVec(VectorType(2), 1)
	if err := parseText(v, 0, "[1.5,-2]", nil); err != nil {
		t.Fatal(err)
	}
	got, err := AppendBinary(nil, v, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 2, 0, 0}
	want = binary.BigEndian.AppendUint32(want, math.Float32bits(1.5))
	want = binary.BigEndian.AppendUint32(want, math.Float32bits(-2))
	if !bytes.Equal(got, want) {
		t.Errorf("vector_send: got %x, want %x", got, want)
	}
	fsl := vecToArrow(memory.DefaultAllocator, v)
	if fsl.DataType().ID() != arrow.FIXED_SIZE_LIST {
		t.Fatalf("Arrow type %s", fsl.DataType())
	}
	back, err := vecFromArrow(fsl, VectorType(2))
	if err != nil || FormatText1(back, 0) != "[1.5,-2]" {
		t.Errorf("fixed_size_list round trip: %v %q", err, FormatText1(back, 0))
	}
	// a slice starting past row 0 reads its own rows
	two := NewVec(VectorType(2), 2)
	_ = parseText(two, 0, "[1,2]", nil)
	_ = parseText(two, 1, "[3,4]", nil)
	sl := array.NewSlice(vecToArrow(memory.DefaultAllocator, two), 1, 2)
	back, err = vecFromArrow(sl, VectorType(2))
	if err != nil || FormatText1(back, 0) != "[3,4]" {
		t.Errorf("sliced fixed_size_list: %v %q", err, FormatText1(back, 0))
	}
	lb := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Float32)
	lb.Append(true)
	lb.ValueBuilder().(*array.Float32Builder).AppendValues([]float32{0.25, 8}, nil)
	list := lb.NewArray()
	back, err = vecFromArrow(list, VectorType(2))
	if err != nil || FormatText1(back, 0) != "[0.25,8]" {
		t.Errorf("list form: %v %q", err, FormatText1(back, 0))
	}
}

// FormatText1 is FormatText for tests ("NULL" for NULL).
func FormatText1(v *Vec, i int) string {
	if v == nil {
		return "<nil>"
	}
	s, ok := FormatText(v, i, nil)
	if !ok {
		return "NULL"
	}
	return s
}

// TestVectorOperatorBinding binds pgvector's distance operators directly
// (the operator binder calls vectorOperator for them).
func TestVectorOperatorBinding(t *testing.T) {
	b := &binder{cat: &catalogSet{}}
	x := NewVec(VectorType(2), 1)
	y := NewVec(VectorType(2), 1)
	if err := parseText(x, 0, "[1,2]", nil); err != nil {
		t.Fatal(err)
	}
	if err := parseText(y, 0, "[3,5]", nil); err != nil {
		t.Fatal(err)
	}
	ec := &evalCtx{ctx: context.Background(), run: &runCtx{ctx: context.Background()}}
	for op, want := range map[string]string{"<->": "3.605551275463989", "<=>": "0.002945514498418511", "<+>": "5", "<#>": "-13"} {
		e, ok, err := b.vectorOperator(op, newConst(x), newConst(y))
		if !ok || err != nil {
			t.Fatalf("%s: %v %v", op, ok, err)
		}
		v, err := e.Eval(ec, &Batch{N: 1}, nil)
		if err != nil || FormatText1(v, 0) != want {
			t.Errorf("%s: %v %q, want %s", op, err, FormatText1(v, 0), want)
		}
	}
	if _, ok, _ := b.vectorOperator("+", newConst(x), newConst(y)); ok {
		t.Error("+ is not a vector operator")
	}
	n := NewVec(TInt4, 1)
	if _, ok, _ := b.vectorOperator("<->", newConst(n), newConst(n)); ok {
		t.Error("<-> on integers is not pgvector's")
	}
	if _, ok, err := b.vectorOperator("<->", newConst(x), newConst(n)); !ok || Code(err) != CodeUndefinedFunction {
		t.Errorf("vector <-> integer: %v %v", ok, err)
	}
}
