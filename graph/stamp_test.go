package graph

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

func TestParseStamp(t *testing.T) {
	cases := []struct {
		name string
		in   string
		kind RootErrorKind
	}{
		{"ok", `{"format":"pggraph","format_version":1,"graph_id":"G"}`, 0},
		{"not json", `{"format":`, UnknownFormat},
		{"other format", `{"format":"lance","format_version":1,"graph_id":"G"}`, UnknownFormat},
		{"version zero", `{"format":"pggraph","format_version":0,"graph_id":"G"}`, UnknownFormat},
		{"newer", `{"format":"pggraph","format_version":99,"graph_id":"G"}`, NewerFormat},
		{"no id", `{"format":"pggraph","format_version":1}`, UnknownFormat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseStamp([]byte(c.in))
			if got := rootErrKind(err); got != c.kind {
				t.Fatalf("kind = %d (%v), want %d", got, err, c.kind)
			}
		})
	}
}

func TestInitStamp(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	if _, err := ReadStamp(ctx, store); !IsNotInitialized(err) {
		t.Fatalf("empty store: %v", err)
	}
	// Concurrent inits: exactly one creates, all agree on the graph id.
	var wg sync.WaitGroup
	ids := make([]string, 8)
	created := make([]bool, 8)
	for i := range 8 {
		wg.Go(func() {
			s, c, err := InitStamp(ctx, store, fmt.Sprint("t", i))
			if err != nil {
				t.Error(err)
			}
			ids[i], created[i] = s.GraphID, c
		})
	}
	wg.Wait()
	n := 0
	for i := range ids {
		if created[i] {
			n++
		}
		if ids[i] != ids[0] || ids[i] == "" {
			t.Fatalf("graph ids differ: %v", ids)
		}
	}
	if n != 1 {
		t.Fatalf("%d inits created a stamp, want 1", n)
	}
	s, err := ReadStamp(ctx, store)
	if err != nil || s.GraphID != ids[0] {
		t.Fatalf("ReadStamp = %+v, %v", s, err)
	}
}

func TestInitRefusesForeignData(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	_ = store.Put(ctx, "someone/else.txt", []byte("x"))
	_, _, err := InitStamp(ctx, store, "t")
	if !IsUnusableRoot(err) || rootErrKind(err) != ForeignData {
		t.Fatalf("init over foreign data = %v", err)
	}
	if _, err := store.Get(ctx, StampKey); !objstore.IsNotFound(err) {
		t.Fatal("init wrote a stamp over foreign data")
	}
}
