package recovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
)

// SidecarVersion is the sidecar format this build writes and reads. Any
// other version is refused, never upgraded by guessing.
const SidecarVersion = 1

// maxSidecarSize bounds what we parse.
const maxSidecarSize = 16 << 20

// Phase is the sidecar's effect phase.
type Phase string

// Phases.
const (
	// Armed: the plan is durable; effects may be partial.
	Armed Phase = "armed"
	// EffectsConfirmed: every effect landed with the recorded exact
	// post-state; the delta may be rolled forward.
	EffectsConfirmed Phase = "effects_confirmed"
)

// Owner identifies the process that armed a sidecar and how long its
// lease runs.
type Owner struct {
	Host        string    `json:"host"`
	PID         int       `json:"pid"`
	BootID      string    `json:"boot_id"`
	Instance    string    `json:"instance"` // one per recovery Manager
	LeaseExpiry time.Time `json:"lease_expiry"`
}

// Sidecar is the content of __recovery/<operation id>.json.
type Sidecar struct {
	FormatVersion int                     `json:"format_version"`
	OperationID   string                  `json:"operation_id"`
	WriterKind    protocol.WriterKind     `json:"writer_kind"`
	Branch        string                  `json:"branch"`
	Owner         Owner                   `json:"owner"`
	Phase         Phase                   `json:"phase"`
	CreatedAt     time.Time               `json:"created_at"`
	Write         *protocol.PreparedWrite `json:"write"`
}

// Key is the sidecar's object key.
func Key(op string) string { return graph.RecoveryDir + op + ".json" }

// Encode serializes a sidecar.
func (s *Sidecar) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Decode parses and validates sidecar bytes. Corrupt bytes and unknown
// versions are typed errors (IsCorruptSidecar, IsUnknownVersion).
func Decode(b []byte) (*Sidecar, error) {
	if len(b) > maxSidecarSize {
		return nil, &SidecarError{Kind: SidecarCorrupt, Detail: fmt.Sprintf("%d bytes, larger than any sidecar", len(b))}
	}
	var probe struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, &SidecarError{Kind: SidecarCorrupt, Detail: "not JSON", Err: err}
	}
	if probe.FormatVersion == nil {
		return nil, &SidecarError{Kind: SidecarCorrupt, Detail: "no format_version"}
	}
	if *probe.FormatVersion != SidecarVersion {
		return nil, &SidecarError{Kind: SidecarUnknownVersion, Detail: fmt.Sprintf("format_version %d; this build reads %d", *probe.FormatVersion, SidecarVersion)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Sidecar
	if err := dec.Decode(&s); err != nil {
		return nil, &SidecarError{Kind: SidecarCorrupt, Detail: "malformed", Err: err}
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

func (s *Sidecar) validate() error {
	bad := func(f string, a ...any) error {
		return &SidecarError{Kind: SidecarCorrupt, Op: s.OperationID, Detail: fmt.Sprintf(f, a...)}
	}
	w := s.Write
	switch {
	case s.OperationID == "" || strings.ContainsAny(s.OperationID, "/\\."):
		return bad("bad operation id %q", s.OperationID)
	case s.Phase != Armed && s.Phase != EffectsConfirmed:
		return bad("unknown phase %q", s.Phase)
	case w == nil:
		return bad("no write")
	case w.OperationID != s.OperationID:
		return bad("write names operation %q", w.OperationID)
	case w.Lineage == nil || w.Lineage.CommitID == "" || w.Lineage.RollbackCommitID == "":
		return bad("no pre-minted lineage")
	case w.Recovery.Strategy != protocol.RollBackArmedForwardConfirmed:
		return bad("unknown recovery strategy %q", w.Recovery.Strategy)
	}
	for i, e := range w.Effects {
		if e.TxnUUID == "" || e.Location == "" {
			return bad("effect %d lacks identity", i)
		}
		switch e.Kind {
		case protocol.EffectStaged, protocol.EffectCreate, protocol.EffectFirstTouch:
		default:
			return bad("effect %d has unknown kind %q", i, e.Kind)
		}
		if s.Phase == EffectsConfirmed && e.Confirmed == nil {
			return bad("confirmed sidecar without post-state for effect %d", i)
		}
	}
	return nil
}
