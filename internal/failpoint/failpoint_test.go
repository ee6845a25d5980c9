package failpoint

import (
	"errors"
	"testing"
)

func TestInject(t *testing.T) {
	defer Reset()
	if err := Inject(ServeBeforeListen); err != nil {
		t.Fatalf("a point nobody enabled fired: %v", err)
	}
	boom := errors.New("boom")
	err := Enable(ServeBeforeListen, Error(boom))
	if !Compiled {
		if !errors.Is(err, ErrDisabled) {
			t.Fatalf("Enable without the tag = %v, want ErrDisabled", err)
		}
		if Inject(ServeBeforeListen) != nil {
			t.Fatal("Inject fired without the failpoints tag")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := Inject(ServeBeforeListen); !errors.Is(got, boom) {
		t.Fatalf("Inject = %v, want boom", got)
	}
	if got := Inject(InitAfterStamp); got != nil {
		t.Fatalf("another point fired: %v", got)
	}
	Disable(ServeBeforeListen)
	if got := Inject(ServeBeforeListen); got != nil {
		t.Fatalf("disabled point fired: %v", got)
	}
}

func TestPointsUnique(t *testing.T) {
	seen := map[Point]bool{}
	for _, p := range All {
		if p == "" || seen[p] {
			t.Fatalf("point %q is empty or declared twice", p)
		}
		seen[p] = true
	}
}
