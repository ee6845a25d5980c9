package seq

import (
	"context"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// Peek reports the durable position: the start before any claim, past
// every claimed block after nextval (also from another allocator), the
// setval target after setval, and the end of a sequence without CYCLE
// that reached its bound.
func TestPeek(t *testing.T) {
	ctx := context.Background()
	st := objstore.NewMem()
	a := Open(st)
	s := spec("p", opts(5, 1, 1, 1000, false))
	peek := func() Position {
		t.Helper()
		p, err := Open(st).Peek(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := peek(); p != (Position{Next: 5}) {
		t.Fatalf("fresh: %+v", p)
	}
	v, err := a.Next(ctx, s)
	if err != nil || v != 5 {
		t.Fatalf("nextval: %d, %v", v, err)
	}
	if p := peek(); !p.Used || p.End || p.Next <= v {
		t.Fatalf("after nextval %d: %+v", v, p)
	}
	if err := a.SetVal(ctx, s, 700, false); err != nil {
		t.Fatal(err)
	}
	if p := peek(); p != (Position{Used: true, Next: 700}) {
		t.Fatalf("after setval(700, false): %+v", p)
	}
	if err := a.SetVal(ctx, s, 1000, true); err != nil {
		t.Fatal(err)
	}
	if p := peek(); !p.Used || !p.End {
		t.Fatalf("after setval(max, true): %+v", p)
	}
}
