package lance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/pggraph/pggraph/objstore"
)

// BranchVersionID is one entry of a branch identifier's version mapping:
// the version a branch was forked at and the random id minted for that
// fork. A branch's mapping is its parent's mapping plus its own entry, so
// a deleted and re-created branch (same name, same fork version) has a
// different last id than the original.
type BranchVersionID struct {
	Version uint64
	ID      string // 32 lower-case hex digits
}

// MarshalJSON writes the pair as Lance does: [version, "id"].
func (e BranchVersionID) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{e.Version, e.ID})
}

// UnmarshalJSON reads [version, "id"].
func (e *BranchVersionID) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	if len(pair) != 2 {
		return fmt.Errorf("version mapping entry has %d elements, want 2", len(pair))
	}
	if err := json.Unmarshal(pair[0], &e.Version); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &e.ID)
}

type branchIdentifier struct {
	VersionMapping []BranchVersionID `json:"version_mapping"`
}

// branchRefFileJSON fixes the key order Lance 8 writes.
type branchRefFileJSON struct {
	ParentBranch  *string           `json:"parentBranch"`
	Identifier    branchIdentifier  `json:"identifier"`
	ParentVersion uint64            `json:"parentVersion"`
	CreateAt      int64             `json:"createAt"`
	ManifestSize  int64             `json:"manifestSize"`
	Metadata      map[string]string `json:"metadata"`
}

// VersionMapping decodes the ref's identifier (nil when the ref has
// none, as refs written before Lance 8 do).
func (r *BranchRef) VersionMapping() ([]BranchVersionID, error) {
	raw := bytes.TrimSpace(r.Identifier)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var id branchIdentifier
	if err := json.Unmarshal(raw, &id); err != nil {
		return nil, wrapf(ErrCorrupt, "branch ref %q identifier: %v", r.Name, err)
	}
	return id.VersionMapping, nil
}

// ID returns the id of this incarnation of the branch: the last entry of
// its version mapping ("" when the ref has no identifier). It tells a
// deleted-and-recreated branch from the original.
func (r *BranchRef) ID() string {
	m, err := r.VersionMapping()
	if err != nil || len(m) == 0 {
		return ""
	}
	return m[len(m)-1].ID
}

// ParentBranchName returns the branch this one was forked from ("" = main).
func (r *BranchRef) ParentBranchName() string {
	if r.ParentBranch == nil {
		return ""
	}
	return normBranch(*r.ParentBranch)
}

func branchRefKey(root, name string) string { return join(root, branchesDir, branchRefFile(name)) }

// encodeBranchRef renders a ref the way Lance 8 does (two-space indent,
// keys in Lance's order, no trailing newline).
func encodeBranchRef(parent *string, mapping []BranchVersionID, parentVersion uint64, createAt, manifestSize int64) ([]byte, error) {
	return json.MarshalIndent(branchRefFileJSON{
		ParentBranch:  parent,
		Identifier:    branchIdentifier{VersionMapping: mapping},
		ParentVersion: parentVersion,
		CreateAt:      createAt,
		ManifestSize:  manifestSize,
		Metadata:      map[string]string{},
	}, "", "  ")
}

// GetBranch reads one branch ref of the dataset at root.
func GetBranch(ctx context.Context, store objstore.Store, root, name string) (*BranchRef, error) {
	name = normBranch(name)
	if err := ValidateBranchName(name); err != nil {
		return nil, err
	}
	return readBranchRef(ctx, store, join(root), name)
}

// BranchRef reads one branch ref of d's dataset.
func (d *Dataset) BranchRef(ctx context.Context, name string) (*BranchRef, error) {
	return GetBranch(ctx, d.store, d.root, name)
}
