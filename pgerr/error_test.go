package pgerr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

type foreign struct{ code string }

func (f foreign) Error() string    { return "foreign " + f.code }
func (f foreign) SQLState() string { return f.code }

func TestCode(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", errors.New("x"), ""},
		{"direct", Errorf(UniqueViolation, "dup"), "23505"},
		{"wrapped", fmt.Errorf("insert: %w", Errorf(CheckViolation, "c")), "23514"},
		{"foreign SQLState", fmt.Errorf("driver: %w", foreign{"40001"}), "40001"},
		{"internal", Internal(errors.New("boom")), "XX000"},
	} {
		if got := Code(c.err); got != c.want {
			t.Errorf("%s: Code = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestInternalKeepsCauseAndStackForTheLogOnly(t *testing.T) {
	cause := errors.New("index out of range")
	e := Internal(cause)
	if !errors.Is(e, cause) || e.Message != "internal error" || strings.Contains(e.Error(), "index out of range") {
		t.Fatalf("internal error %q (cause kept: %v)", e.Error(), errors.Is(e, cause))
	}
	if !strings.Contains(string(e.Stack), "TestInternalKeepsCauseAndStackForTheLogOnly") {
		t.Fatalf("stack does not name the wrapping caller:\n%s", e.Stack)
	}
}

func TestConditions(t *testing.T) {
	for _, c := range []struct {
		name string
		want string
	}{
		{"unique_violation", "23505"},
		{"division_by_zero", "22012"},
		{"string_data_right_truncation", "01004,22001"},
		{"raise_exception", "P0001"},
		{"no_such_condition", ""},
	} {
		if got := strings.Join(ConditionCodes(c.name), ","); got != c.want {
			t.Errorf("ConditionCodes(%s) = %s, want %s", c.name, got, c.want)
		}
	}
	if ConditionName("23503") != "foreign_key_violation" || ConditionName("ZZZZZ") != "" {
		t.Fatalf("ConditionName: %q %q", ConditionName("23503"), ConditionName("ZZZZZ"))
	}
	if Class(UniqueViolation) != "23" || Class("") != "" {
		t.Fatal("Class")
	}
}

func TestWithersCopy(t *testing.T) {
	base := Errorf(NotNullViolation, "null value")
	c := base.WithColumn("public", "t", "a").WithDetail("d").WithHint("h").WithPosition(7)
	if base.Column != "" || base.Detail != "" || base.Position != 0 {
		t.Fatalf("withers modified the original: %+v", base)
	}
	if c.Table != "t" || c.Column != "a" || c.Detail != "d" || c.Hint != "h" || c.Position != 7 {
		t.Fatalf("copy %+v", c)
	}
	if k := base.WithConstraint("public", "t", "t_pkey"); k.Constraint != "t_pkey" || !(&Error{Severity: SeverityFatal}).Fatal() || base.Fatal() {
		t.Fatal("constraint / fatal")
	}
}
