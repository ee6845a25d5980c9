package recovery

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
)

func validSidecar() *Sidecar {
	pw := &protocol.PreparedWrite{OperationID: "01OP", WriterKind: "mutation",
		Lineage:  &protocol.LineageIntent{CommitID: "C", RollbackCommitID: "R"},
		Recovery: protocol.RecoveryPlan{Strategy: protocol.RollBackArmedForwardConfirmed},
		Effects: []protocol.Effect{{Table: graph.TableKey{ID: 1, Incarnation: 2}, Location: "tables/x.lance",
			Kind: protocol.EffectStaged, ExpectedVersion: 3, TxnUUID: "u"}}}
	return &Sidecar{FormatVersion: SidecarVersion, OperationID: "01OP", WriterKind: "mutation", Branch: "main", Phase: Armed, Write: pw}
}

func TestSidecarDecode(t *testing.T) {
	good, err := validSidecar().Encode()
	if err != nil {
		t.Fatal(err)
	}
	confirmedNoPost := validSidecar()
	confirmedNoPost.Phase = EffectsConfirmed
	cnp, _ := confirmedNoPost.Encode()
	mut := func(f func(s *Sidecar)) []byte {
		s := validSidecar()
		f(s)
		b, _ := s.Encode()
		return b
	}
	cases := []struct {
		name  string
		in    []byte
		check func(error) bool
	}{
		{"valid", good, func(err error) bool { return err == nil }},
		{"newer version refused", []byte(strings.Replace(string(good), `"format_version": 1`, `"format_version": 2`, 1)), IsUnknownVersion},
		{"older version refused", []byte(strings.Replace(string(good), `"format_version": 1`, `"format_version": 0`, 1)), IsUnknownVersion},
		{"no version", []byte(`{"operation_id":"x"}`), IsCorruptSidecar},
		{"not json", []byte("{"), IsCorruptSidecar},
		{"unknown field", []byte(strings.Replace(string(good), `"phase"`, `"surprise": 1, "phase"`, 1)), IsCorruptSidecar},
		{"bad phase", mut(func(s *Sidecar) { s.Phase = "half" }), IsCorruptSidecar},
		{"op mismatch", mut(func(s *Sidecar) { s.Write.OperationID = "other" }), IsCorruptSidecar},
		{"path in op id", mut(func(s *Sidecar) { s.OperationID = "../x"; s.Write.OperationID = "../x" }), IsCorruptSidecar},
		{"no lineage", mut(func(s *Sidecar) { s.Write.Lineage = nil }), IsCorruptSidecar},
		{"unknown strategy", mut(func(s *Sidecar) { s.Write.Recovery.Strategy = "guess" }), IsCorruptSidecar},
		{"effect without identity", mut(func(s *Sidecar) { s.Write.Effects[0].TxnUUID = "" }), IsCorruptSidecar},
		{"unknown effect kind", mut(func(s *Sidecar) { s.Write.Effects[0].Kind = "teleport" }), IsCorruptSidecar},
		{"confirmed without post-state", cnp, IsCorruptSidecar},
		{"huge", make([]byte, maxSidecarSize+1), IsCorruptSidecar},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := Decode(c.in)
			if !c.check(err) {
				t.Fatalf("Decode: %v", err)
			}
			if err == nil && (sc.OperationID != "01OP" || sc.Write.Effects[0].ExpectedVersion != 3) {
				t.Fatalf("round trip lost data: %+v", sc)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := validSidecar().Encode()
	f.Add(good)
	f.Add([]byte(`{"format_version":1}`))
	f.Add([]byte(`{"format_version":1,"write":{"effects":[{}]}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := Decode(b)
		if err == nil {
			if sc.Write == nil || sc.Write.Lineage == nil {
				t.Fatalf("accepted an incomplete sidecar")
			}
			if _, err := sc.Encode(); err != nil {
				t.Fatal(err)
			}
		} else if !IsCorruptSidecar(err) && !IsUnknownVersion(err) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

var update = flag.Bool("update", false, "rewrite golden files")

// TestSidecarGolden pins format version 1 byte for byte: a change to the
// sidecar layout must bump SidecarVersion (old files are then refused,
// never misread).
func TestSidecarGolden(t *testing.T) {
	sc := validSidecar()
	sc.Owner = Owner{Host: "h", PID: 7, BootID: "b", Instance: "i", LeaseExpiry: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	sc.CreatedAt = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	sc.Write.ReadSet = protocol.ReadSet{Branch: "main", Incarnation: "main", Schema: "3:abc",
		Tables: []protocol.TableMember{{Table: graph.TableKey{ID: 1, Incarnation: 2}, Present: true, State: graph.Live, Version: 3, Written: true}}}
	sc.Write.Delta = protocol.ManifestDelta{Updates: []protocol.TableUpdate{{Table: graph.TableKey{ID: 1, Incarnation: 2}}}}
	got, err := sc.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "sidecar_v1.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("sidecar v1 encoding changed (bump SidecarVersion):\n%s", got)
	}
	back, err := Decode(want)
	if err != nil || back.Owner.PID != 7 || back.Write.ReadSet.Tables[0].Version != 3 {
		t.Fatalf("golden does not decode: %v", err)
	}
}
