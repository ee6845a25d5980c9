package main

import (
	"bytes"
	"os"
	"testing"
)

// codes.go is what the generator makes of errcodes.txt today: an edit of
// either without the other fails here.
func TestCodesFileIsCurrent(t *testing.T) {
	src, err := os.ReadFile("../../errcodes.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../codes.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("pgerr/codes.go is not what errcodes.txt generates: run go generate ./pgerr")
	}
}

func TestGenerateRejectsMalformedLines(t *testing.T) {
	for _, bad := range []string{
		"2200 E ERRCODE_X x\n",
		"22000 E NOT_A_MACRO x\n",
		"22000 E ERRCODE_A\n22001 E ERRCODE_A\n",
	} {
		if _, err := generate([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"SQL_STATEMENT_NOT_YET_COMPLETE": "SQLStatementNotYetComplete",
		"UNIQUE_VIOLATION":               "UniqueViolation",
		"INVALID_JSON_TEXT":              "InvalidJSONText",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%s) = %s, want %s", in, got, want)
		}
	}
}
