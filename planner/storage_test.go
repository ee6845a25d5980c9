package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/wire"
)

// TestStorageTypesThroughServer writes vector(n) and numeric(p,s)
// columns through the server: good rows round-trip, a wrong dimension
// or a numeric overflow is an error (nothing stored), never a crash or
// a silent NULL.
func TestStorageTypesThroughServer(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE t (id int primary key, v vector(3), p numeric(5,2))"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		sql   string
		state string
	}{
		{"INSERT INTO t VALUES (1, '[1,2,3]', 123.45)", ""},
		{"INSERT INTO t VALUES (2, '[1,2]', 1)", "22000"},
		{"INSERT INTO t VALUES (3, '[1,2,3,4]', 1)", "22000"},
		{"INSERT INTO t VALUES (4, '[1,2,3]', 1234.5)", "22003"},
		{"INSERT INTO t VALUES (5, NULL, NULL)", ""},
		{"INSERT INTO t VALUES (7, '{1,2,3}', 1)", "22P02"}, // pgvector's text form is [...]
		{"BEGIN", ""},
		{"INSERT INTO t VALUES (6, ARRAY[4,5,6.5], -0.01)", ""},
		{"UPDATE t SET p = p + 1 WHERE id = 6", ""},
		{"COMMIT", ""},
		{"UPDATE t SET v = '[7,8]' WHERE id = 1", "22000"},
	}
	for _, s := range steps {
		_, err := c.Exec(ctx, s.sql)
		if got := sqlState(err); got != s.state || (s.state == "" && err != nil) {
			t.Fatalf("%s: err %v (SQLSTATE %q), want %q", s.sql, err, got, s.state)
		}
	}
	rows, err := c.Query(ctx, "SELECT id, v::text, p::text FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int32
		var v, p *string
		if err := rows.Scan(&id, &v, &p); err != nil {
			t.Fatal(err)
		}
		str := func(s *string) string {
			if s == nil {
				return "NULL"
			}
			return *s
		}
		got = append(got, str(v)+" "+str(p))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"[1,2,3] 123.45", "NULL NULL", "[4,5,6.5] 0.99"}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rows %q, want %q", got, want)
		}
	}
}

// TestStorageArrayErrors converts values the storage type cannot hold:
// each is an error with pgvector's / PostgreSQL's SQLSTATE, never a NULL.
func TestStorageArrayErrors(t *testing.T) {
	num := func(s string) *exec.Vec {
		v := exec.NewVec(exec.TNumeric, 1)
		if _, _, err := v.D[0].SetString(s); err != nil {
			t.Fatal(err)
		}
		return v
	}
	list := func(vals []float32, valid []bool) arrow.Array {
		b := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Float32)
		defer b.Release()
		b.Append(true)
		b.ValueBuilder().(*array.Float32Builder).AppendValues(vals, valid)
		return b.NewArray()
	}
	dec := &arrow.Decimal128Type{Precision: 5, Scale: 2}
	vec3 := arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32)
	nan := float32(math.NaN())
	cases := []struct {
		name     string
		v        *exec.Vec
		dt       arrow.DataType
		fallback arrow.Array
		state    string
		want     string
	}{
		{"numeric fits", num("123.45"), dec, nil, "", "[123.45]"},
		{"numeric overflow", num("1234.5"), dec, nil, "22003", ""},
		{"numeric far overflow", num("1e40"), dec, nil, "22003", ""},
		{"vector", nil, vec3, list([]float32{1, 2, 3}, nil), "", "[[1 2 3]]"},
		{"vector short", nil, vec3, list([]float32{1, 2}, nil), "22000", ""},
		{"vector long", nil, vec3, list([]float32{1, 2, 3, 4}, nil), "22000", ""},
		{"vector null element", nil, vec3, list([]float32{1, 0, 3}, []bool{true, false, true}), "22004", ""},
		{"vector NaN", nil, vec3, list([]float32{1, nan, 3}, nil), "22000", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := storageArray(c.v, c.dt, c.fallback)
			var we *wire.Error
			switch {
			case c.state != "":
				if !errors.As(err, &we) || we.Code != c.state {
					t.Fatalf("err %v, want SQLSTATE %s", err, c.state)
				}
			case err != nil:
				t.Fatal(err)
			case !arrow.TypeEqual(got.DataType(), c.dt) || fmt.Sprint(got) != c.want:
				t.Fatalf("got %v (%s), want %s (%s)", got, got.DataType(), c.want, c.dt)
			default:
				// and back to exec's list form
				if fsl, ok := got.(*array.FixedSizeList); ok {
					rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "v", Type: c.dt}}, nil), []arrow.Array{fsl}, 1)
					back := execRecord(rec).Column(0)
					if fmt.Sprint(back) != c.want || back.DataType().ID() != arrow.LIST {
						t.Fatalf("exec form %v (%s)", back, back.DataType())
					}
				}
			}
		})
	}
}
