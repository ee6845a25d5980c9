package replication

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

func TestLSN(t *testing.T) {
	for _, tc := range []struct {
		text string
		lsn  LSN
		ok   bool
	}{{"0/0", 0, true}, {"7/0", CommitLSN(7), true}, {"1A/FF00", 0x1A<<32 | 0xFF00, true}, {"7/FFFFFFFF", CommitLSN(8) - 1, true},
		{"7", 0, false}, {"/1", 0, false}, {"1/G", 0, false}, {"123456789/0", 0, false}} {
		got, err := ParseLSN(tc.text)
		if (err == nil) != tc.ok || tc.ok && (got != tc.lsn || got.String() != tc.text) {
			t.Errorf("ParseLSN(%q) = %v, %v", tc.text, got, err)
		}
	}
	if StartAfter(6) != CommitLSN(7) || CommitLSN(7).Version() != 7 || (CommitLSN(8)-1).Version() != 7 {
		t.Error("positions of versions")
	}
}

// TestSlotStore: create is put-if-absent, confirm only moves forward and
// survives reopening, an acquired slot cannot be dropped.
func TestSlotStore(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	s := Open(mem)
	sl := Slot{Name: "s_1", Plugin: "pgoutput", Database: "main", ConfirmedFlush: StartAfter(3), Created: time.Now()}
	if err := s.CreateSlot(ctx, sl); err != nil {
		t.Fatal(err)
	}
	if err := Open(mem).CreateSlot(ctx, sl); !errors.Is(err, ErrExists) {
		t.Fatalf("second create: %v", err)
	}
	if err := s.CreateSlot(ctx, Slot{Name: "Bad-Name"}); err == nil {
		t.Fatal("invalid name accepted")
	}
	for _, c := range []struct{ to, want LSN }{{CommitLSN(9), CommitLSN(9)}, {CommitLSN(5), CommitLSN(9)}} {
		got, err := s.Confirm(ctx, "s_1", c.to)
		if err != nil || got.ConfirmedFlush != c.want {
			t.Fatalf("confirm %v: %v %v, want %v", c.to, got.ConfirmedFlush, err, c.want)
		}
	}
	if got, _ := Open(mem).Slot(ctx, "s_1"); got.ConfirmedFlush != CommitLSN(9) {
		t.Fatalf("reopened: %v", got.ConfirmedFlush)
	}
	floors, err := ManifestFloors(ctx, mem)
	if err != nil || floors["main"] != 8 {
		t.Fatalf("floors %v %v, want main from 8", floors, err)
	}
	release, _, ok := s.Acquire("s_1", 42)
	if !ok {
		t.Fatal("acquire")
	}
	if _, holder, ok := s.Acquire("s_1", 43); ok || holder != 42 {
		t.Fatal("acquired twice")
	}
	if err := s.DropSlot(ctx, "s_1"); !errors.Is(err, ErrActive) {
		t.Fatalf("drop active: %v", err)
	}
	release()
	if err := s.DropSlot(ctx, "s_1"); err != nil {
		t.Fatal(err)
	}
	if err := s.DropSlot(ctx, "s_1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("drop twice: %v", err)
	}
}

// TestPgoutputMessages: byte layouts of PostgreSQL's logical replication
// message formats (protocol version 1).
func TestPgoutputMessages(t *testing.T) {
	at := time.Date(2000, 1, 1, 0, 0, 1, 0, time.UTC) // 1,000,000 µs after PostgreSQL's epoch
	for _, tc := range []struct {
		name string
		got  []byte
		want []byte
	}{
		{"begin", BeginMessage(CommitLSN(7)+3, at, 7), []byte{'B', 0, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0x0f, 0x42, 0x40, 0, 0, 0, 7}},
		{"commit", CommitMessage(5, 6, at), []byte{'C', 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0x0f, 0x42, 0x40}},
		{"relation", RelationMessage(Relation{OID: 16385, Namespace: "public", Name: "t", ReplicaIdentity: 'd',
			Columns: []RelColumn{{Name: "k", TypeOID: 23, TypeMod: -1, Key: true}}}),
			append(append([]byte{'R', 0, 0, 0x40, 0x01}, "public\x00t\x00d\x00\x01\x01k\x00"...), 0, 0, 0, 23, 0xff, 0xff, 0xff, 0xff)},
		{"insert", InsertMessage(16385, Tuple{{Text: "12"}, {Null: true}}), []byte{'I', 0, 0, 0x40, 0x01, 'N', 0, 2, 't', 0, 0, 0, 2, '1', '2', 'n'}},
		{"update", UpdateMessage(16385, 'O', Tuple{{Text: "a"}}, Tuple{{Text: "b"}}), []byte{'U', 0, 0, 0x40, 0x01, 'O', 0, 1, 't', 0, 0, 0, 1, 'a', 'N', 0, 1, 't', 0, 0, 0, 1, 'b'}},
		{"delete", DeleteMessage(16385, 'K', Tuple{{Text: "a"}}), []byte{'D', 0, 0, 0x40, 0x01, 'K', 0, 1, 't', 0, 0, 0, 1, 'a'}},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, tc.got, tc.want)
		}
	}
}
