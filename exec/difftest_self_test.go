package exec

import (
	"context"
	"testing"
)

// TestDiffResultsDetectsMismatches proves the harness comparison can fail:
// every kind of difference is reported, and an identical answer is not.
func TestDiffResultsDetectsMismatches(t *testing.T) {
	eng := &Engine{}
	got, err := eng.Query(context.Background(), nil, "SELECT 1 AS a, 'x'::text AS b UNION ALL SELECT 2, NULL")
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	same := pgResult{cols: []Column{{Name: "a", TypeOID: OIDInt4, TypeMod: -1}, {Name: "b", TypeOID: OIDText, TypeMod: -1}},
		rows: [][]*string{{s("2"), nil}, {s("1"), s("x")}}}
	if d := diffResults(same, got, nil); len(d) != 0 {
		t.Fatalf("identical unordered answer reported as different: %v", d)
	}
	cases := map[string]pgResult{
		"order":     {cols: same.cols, rows: same.rows, order: true},
		"value":     {cols: same.cols, rows: [][]*string{{s("1"), s("y")}, {s("2"), nil}}},
		"null":      {cols: same.cols, rows: [][]*string{{s("1"), s("x")}, {s("2"), s("")}}},
		"row count": {cols: same.cols, rows: [][]*string{{s("1"), s("x")}}},
		"name":      {cols: []Column{{Name: "A", TypeOID: OIDInt4, TypeMod: -1}, same.cols[1]}, rows: same.rows},
		"type":      {cols: []Column{{Name: "a", TypeOID: OIDInt8, TypeMod: -1}, same.cols[1]}, rows: same.rows},
		"typmod":    {cols: []Column{same.cols[0], {Name: "b", TypeOID: OIDText, TypeMod: 8}}, rows: same.rows},
		"error":     {code: CodeDivisionByZero},
	}
	for name, want := range cases {
		if d := diffResults(want, got, nil); len(d) == 0 {
			t.Errorf("%s difference not detected", name)
		}
	}
	if d := diffResults(pgResult{code: CodeDivisionByZero}, nil, errf(CodeNumericOutOfRange, "x")); len(d) == 0 {
		t.Error("different SQLSTATE not detected")
	}
	if d := diffResults(same, nil, errf(CodeFeatureNotSupported, "x")); len(d) == 0 {
		t.Error("engine error on a PostgreSQL success not detected")
	}
}
