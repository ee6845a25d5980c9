package lance

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// Tag is a named pointer to a version, stored at the dataset root as
// _refs/tags/{name}.json with the camelCase keys Lance uses.
type Tag struct {
	Name         string            `json:"-"`
	Branch       *string           `json:"branch"` // nil = main
	Version      uint64            `json:"version"`
	CreatedAt    time.Time         `json:"createdAt"`
	UpdatedAt    time.Time         `json:"updatedAt"`
	ManifestSize int64             `json:"manifestSize"`
	Metadata     map[string]string `json:"metadata"`
}

// BranchName returns the tag's branch ("" for main).
func (t *Tag) BranchName() string {
	if t.Branch == nil {
		return ""
	}
	return normBranch(*t.Branch)
}

func tagKey(root, name string) string { return join(root, tagsDir, name+".json") }

// CreateTag points a new tag at version v of d's branch (v = 0: d's
// version). The tag file is created with PutIfAbsent: an existing tag
// is ErrTagExists.
func (d *Dataset) CreateTag(ctx context.Context, name string, v uint64) (*Tag, error) {
	if err := ValidateTagName(name); err != nil {
		return nil, err
	}
	if v == 0 {
		v = d.version
	}
	target := d
	if v != d.version || d.mf == nil {
		var err error
		if target, err = d.at(ctx, v); err != nil {
			return nil, err
		}
	}
	now := time.Now().UTC()
	t := &Tag{Name: name, Version: v, CreatedAt: now, UpdatedAt: now, ManifestSize: target.ManifestSize(), Metadata: map[string]string{}}
	if d.branch != "" {
		b := d.branch
		t.Branch = &b
	}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	err = d.store.PutIfAbsent(ctx, tagKey(d.root, name), b)
	if objstore.IsExists(err) {
		return nil, wrapf(ErrTagExists, "%q", name)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// GetTag reads one tag of the dataset at root.
func GetTag(ctx context.Context, store objstore.Store, root, name string) (*Tag, error) {
	if err := ValidateTagName(name); err != nil {
		return nil, err
	}
	b, err := store.Get(ctx, tagKey(strings.Trim(root, "/"), name))
	if objstore.IsNotFound(err) {
		return nil, wrapf(ErrTagNotFound, "%q", name)
	}
	if err != nil {
		return nil, err
	}
	return parseTag(name, b)
}

func parseTag(name string, b []byte) (*Tag, error) {
	var t Tag
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, wrapf(ErrCorrupt, "tag %q: %v", name, err)
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) == nil {
		if _, ok := probe["version"]; !ok {
			return nil, wrapf(ErrCorrupt, "tag %q has no version", name)
		}
	}
	t.Name = name
	return &t, nil
}

// Tag reads one tag of d's dataset.
func (d *Dataset) Tag(ctx context.Context, name string) (*Tag, error) {
	return GetTag(ctx, d.store, d.root, name)
}

// ListTags returns every tag of the dataset, sorted by name.
func (d *Dataset) ListTags(ctx context.Context) ([]*Tag, error) {
	prefix := join(d.root, tagsDir) + "/"
	infos, err := d.store.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	var out []*Tag
	for _, info := range infos {
		name := strings.TrimPrefix(info.Key, prefix)
		if strings.Contains(name, "/") || !strings.HasSuffix(name, ".json") {
			continue
		}
		name = strings.TrimSuffix(name, ".json")
		b, err := d.store.Get(ctx, info.Key)
		if objstore.IsNotFound(err) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		t, err := parseTag(name, b)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// DeleteTag removes a tag; a missing tag is ErrTagNotFound.
func (d *Dataset) DeleteTag(ctx context.Context, name string) error {
	if err := ValidateTagName(name); err != nil {
		return err
	}
	err := d.store.Delete(ctx, tagKey(d.root, name))
	if objstore.IsNotFound(err) {
		return wrapf(ErrTagNotFound, "%q", name)
	}
	return err
}

// BranchRef is the content of _refs/branches/{name}.json (keys as Lance
// 8 writes them; identifier and metadata are kept raw).
type BranchRef struct {
	Name          string          `json:"-"`
	ParentBranch  *string         `json:"parentBranch"`
	ParentVersion uint64          `json:"parentVersion"`
	CreateAt      int64           `json:"createAt"`
	ManifestSize  int64           `json:"manifestSize"`
	Identifier    json.RawMessage `json:"identifier,omitempty"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
}

func readBranchRef(ctx context.Context, store objstore.Store, root, name string) (*BranchRef, error) {
	b, err := store.Get(ctx, join(root, branchesDir, branchRefFile(name)))
	if objstore.IsNotFound(err) {
		return nil, wrapf(ErrBranchNotFound, "%q", name)
	}
	if err != nil {
		return nil, err
	}
	rememberRef(b)
	return parseBranchRef(name, b)
}

func parseBranchRef(name string, b []byte) (*BranchRef, error) {
	var r BranchRef
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, wrapf(ErrCorrupt, "branch ref %q: %v", name, err)
	}
	r.Name = name
	return &r, nil
}

// ListBranchNames returns the names of the dataset's branches, sorted,
// from one listing: callers that need only names (existence, nesting)
// must not pay a read per branch, which on object storage is a request
// each.
func (d *Dataset) ListBranchNames(ctx context.Context) ([]string, error) {
	names, _, err := d.listBranchRefs(ctx)
	return names, err
}

// listBranchRefs lists the refs: their names, sorted, and each one's
// entity tag ("" where the store has none).
func (d *Dataset) listBranchRefs(ctx context.Context) ([]string, map[string]string, error) {
	prefix := join(d.root, branchesDir) + "/"
	infos, err := d.store.List(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	var out []string
	etags := map[string]string{}
	for _, info := range infos {
		file := strings.TrimPrefix(info.Key, prefix)
		if strings.Contains(file, "/") || !strings.HasSuffix(file, ".json") {
			continue
		}
		name := strings.ReplaceAll(strings.TrimSuffix(file, ".json"), "%2F", "/")
		out = append(out, name)
		etags[name] = info.ETag
	}
	sort.Strings(out)
	return out, etags, nil
}

// ListBranches returns the branch refs of the dataset, sorted by name:
// one listing, and a read of each ref whose listed entity tag names no
// body this process has seen (branch_refcache.go).
func (d *Dataset) ListBranches(ctx context.Context) ([]*BranchRef, error) {
	names, etags, err := d.listBranchRefs(ctx)
	if err != nil {
		return nil, err
	}
	var out []*BranchRef
	for _, name := range names {
		if body, ok := cachedRef(etags[name]); ok {
			r, err := parseBranchRef(name, body)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
			continue
		}
		r, err := readBranchRef(ctx, d.store, d.root, name)
		if errors.Is(err, ErrBranchNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
