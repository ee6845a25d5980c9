package lance

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/pggraph/pggraph/lance/format"
)

// Writer identity recorded in every manifest we write. Lance applies its
// own bug workarounds only when the library is "lance", so we use our name.
const (
	writerLibrary = "pggraph-lance"
	writerVersion = "0.1.0"
	// DataStorageVersion is the data file format of every dataset we create.
	DataStorageVersion = "2.1"
)

// buildManifest returns manifest version `next` = base (the latest
// version, or the empty dataset) + txn, the way Lance builds it.
func buildManifest(ctx context.Context, base *Dataset, txn *format.Transaction, next uint64) (*format.Manifest, error) {
	var prev *format.Manifest
	if base.mf != nil {
		prev = base.mf.Manifest
		if err := format.CheckWritable(prev); err != nil {
			return nil, err
		}
	}
	var m format.Manifest
	if prev != nil {
		m = *prev
		m.Fragments = carryFragments(prev.Fragments)
		m.TransactionSection = nil
	}
	maxID, haveMax := uint64(0), false
	if prev != nil {
		maxID, haveMax = prev.MaxFragmentIDOrComputed()
	}
	assign := func(frs []format.Fragment) []format.Fragment {
		out := cloneFragments(frs)
		for i := range out {
			if haveMax {
				maxID++
			}
			haveMax = true
			out[i].ID = maxID
		}
		return out
	}

	switch op := txn.Op.(type) {
	case *format.Append:
		if prev == nil {
			return nil, wrapf(ErrInvalidArgument, "append to a dataset that does not exist")
		}
		m.Fragments = append(m.Fragments, assign(op.Fragments)...)
	case *format.Delete:
		if prev == nil {
			return nil, wrapf(ErrInvalidArgument, "delete from a dataset that does not exist")
		}
		var err error
		if m.Fragments, err = replaceFragments(m.Fragments, op.UpdatedFragments, op.DeletedFragmentIDs); err != nil {
			return nil, err
		}
	case *format.Update:
		if prev == nil {
			return nil, wrapf(ErrInvalidArgument, "update of a dataset that does not exist")
		}
		var err error
		if m.Fragments, err = replaceFragments(m.Fragments, op.UpdatedFragments, op.RemovedFragmentIDs); err != nil {
			return nil, err
		}
		m.Fragments = append(m.Fragments, assign(op.NewFragments)...)
	case *format.Overwrite:
		m.Fields = op.Schema
		m.SchemaMetadata = op.SchemaMetadata
		m.Fragments = cloneFragments(op.Fragments)
		// Overwrite numbers its fragments from 0.
		maxID, haveMax = 0, false
		for i := range m.Fragments {
			m.Fragments[i].ID = uint64(i)
			maxID, haveMax = uint64(i), true
		}
		if len(op.ConfigUpsert) > 0 {
			cfg := map[string]string{}
			for k, v := range m.Config {
				cfg[k] = v
			}
			for k, v := range op.ConfigUpsert {
				cfg[k] = v
			}
			m.Config = cfg
		}
		if len(op.InitialBases) > 0 {
			m.BasePaths = op.InitialBases
		}
		m.IndexSection = nil
		m.DataFormat = &format.DataStorageFormat{FileFormat: "lance", Version: DataStorageVersion}
	case *format.Restore:
		old, err := base.at(ctx, op.Version)
		if err != nil {
			return nil, err
		}
		if err := format.CheckWritable(old.mf.Manifest); err != nil {
			return nil, err
		}
		m = *old.mf.Manifest
		m.Fragments = carryFragments(m.Fragments)
		m.TransactionSection = nil
		// keep ids monotonic across the restore: never hand out an id again
		if oldMax, ok := m.MaxFragmentIDOrComputed(); ok && (!haveMax || oldMax > maxID) {
			maxID, haveMax = oldMax, true
		}
	case *format.Rewrite:
		if prev == nil {
			return nil, wrapf(ErrInvalidArgument, "rewrite of a dataset that does not exist")
		}
		var err error
		if m.Fragments, err = rewriteFragments(m.Fragments, op, func(f format.Fragment) format.Fragment {
			if f.ID == 0 { // unassigned; Lance also accepts ids reserved earlier
				if haveMax {
					maxID++
				}
				haveMax = true
				f.ID = maxID
			}
			return f
		}); err != nil {
			return nil, err
		}
	case *format.ReserveFragments:
		if prev == nil {
			return nil, wrapf(ErrInvalidArgument, "reserve fragments on a dataset that does not exist")
		}
		for i := uint32(0); i < op.NumFragments; i++ {
			if haveMax {
				maxID++
			}
			haveMax = true
		}
	default:
		return nil, &format.UnsupportedError{Feature: "committing operation " + txn.Op.Kind().String()}
	}

	sort.SliceStable(m.Fragments, func(i, j int) bool { return m.Fragments[i].ID < m.Fragments[j].ID })
	for i := 1; i < len(m.Fragments); i++ {
		if m.Fragments[i].ID == m.Fragments[i-1].ID {
			return nil, wrapf(ErrInvalidArgument, "duplicate fragment id %d", m.Fragments[i].ID)
		}
	}
	m.Version = next
	m.Timestamp = time.Now().UTC()
	m.Tag = txn.Tag
	m.TransactionFile = txn.TxnFileName()
	m.WriterVersion = &format.WriterVersion{Library: writerLibrary, Version: writerVersion}
	if m.DataFormat == nil {
		m.DataFormat = &format.DataStorageFormat{FileFormat: "lance", Version: DataStorageVersion}
	}
	if haveMax {
		if maxID > math.MaxUint32 {
			return nil, wrapf(ErrInvalidArgument, "fragment id %d overflows max_fragment_id", maxID)
		}
		v := uint32(maxID)
		m.MaxFragmentID = &v
	} else {
		m.MaxFragmentID = nil
	}
	if base.branch != "" {
		b := base.branch
		m.Branch = &b
	}
	var prevFlags uint64
	if prev != nil {
		prevFlags = prev.ReaderFeatureFlags
	}
	m.ReaderFeatureFlags, m.WriterFeatureFlags = format.ComputeFlags(&m, prevFlags)
	return &m, nil
}

// buildManifest is buildManifest for the staged transaction on base: an
// inline-only transaction's manifest names no transaction file (its
// inline section is the only copy, StageOptions.InlineOnly).
func (s *Staged) buildManifest(ctx context.Context, base *Dataset, next uint64) (*format.Manifest, error) {
	m, err := buildManifest(ctx, base, s.Txn, next)
	if err != nil {
		return nil, err
	}
	if s.inlineOnly {
		m.TransactionFile = ""
	}
	return m, nil
}

// carryFragments copies the fragment list of a committed manifest into a
// new one without deep-copying each fragment (O(fragments) allocations
// per commit otherwise): the new manifest only ever replaces, drops or
// appends whole fragments (replaceFragments and rewriteFragments put in
// clones), never writes into a carried fragment's files or deletion
// file, so sharing those with the immutable previous manifest is safe.
func carryFragments(frs []format.Fragment) []format.Fragment {
	return append([]format.Fragment(nil), frs...)
}

// cloneFragments deep-copies fragments (for a manifest that edits them
// in place, such as a branch's first manifest).
func cloneFragments(frs []format.Fragment) []format.Fragment {
	out := make([]format.Fragment, len(frs))
	for i := range frs {
		out[i] = frs[i].Clone()
	}
	return out
}

// replaceFragments swaps in updated fragments by id and drops removed ids.
// A fragment to update that no longer exists is an error (the caller's
// conflict check normally catches it first).
func replaceFragments(cur, updated []format.Fragment, removed []uint64) ([]format.Fragment, error) {
	byID := make(map[uint64]int, len(cur))
	for i := range cur {
		byID[cur[i].ID] = i
	}
	for i := range updated {
		j, ok := byID[updated[i].ID]
		if !ok {
			return nil, wrapf(ErrInvalidArgument, "fragment %d to update does not exist", updated[i].ID)
		}
		cur[j] = updated[i].Clone()
	}
	drop := make(map[uint64]bool, len(removed))
	for _, id := range removed {
		drop[id] = true
	}
	out := cur[:0]
	for i := range cur {
		if !drop[cur[i].ID] {
			out = append(out, cur[i])
		}
	}
	return out, nil
}

// rewriteFragments applies a Rewrite: every group's old fragments (which
// must all still exist) are removed and its new fragments added, with ids
// from assign. The caller sorts by id afterwards, as Lance does.
func rewriteFragments(cur []format.Fragment, op *format.Rewrite, assign func(format.Fragment) format.Fragment) ([]format.Fragment, error) {
	byID := make(map[uint64]bool, len(cur))
	for i := range cur {
		byID[cur[i].ID] = true
	}
	groups := op.Groups
	if len(op.OldFragments) > 0 || len(op.NewFragments) > 0 {
		groups = append([]format.RewriteGroup{{OldFragments: op.OldFragments, NewFragments: op.NewFragments}}, groups...)
	}
	drop := map[uint64]bool{}
	var added []format.Fragment
	for _, g := range groups {
		for i := range g.OldFragments {
			id := g.OldFragments[i].ID
			if !byID[id] || drop[id] {
				return nil, wrapf(ErrInvalidArgument, "fragment %d to rewrite does not exist", id)
			}
			drop[id] = true
		}
		for i := range g.NewFragments {
			added = append(added, assign(g.NewFragments[i].Clone()))
		}
	}
	out := cur[:0]
	for i := range cur {
		if !drop[cur[i].ID] {
			out = append(out, cur[i])
		}
	}
	return append(out, added...), nil
}
