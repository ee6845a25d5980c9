package lance

import (
	"context"
	"math/rand/v2"
	"sort"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// deletionPlan is the outcome of deleting row addresses from d.
type deletionPlan struct {
	updated []format.Fragment // fragments with a new deletion file
	removed []uint64          // fragments whose every row is now deleted
	// files are the new deletion files, not yet stored (see store)
	files []deletionFile
}

// deletionFile is one encoded deletion file and its fresh, unique key.
type deletionFile struct {
	key  string
	data []byte
}

// store writes the plan's deletion files durably, in parallel (each has
// a fresh random name and nothing references it before a commit, so
// their order does not matter, and each is created under its final
// name: objstore.PutNew, one durable round; docs/write-protocol.md §7.2).
func (p *deletionPlan) store(ctx context.Context, d *Dataset) error {
	return objstore.Parallel(ctx, len(p.files), 16, func(ctx context.Context, i int) error {
		return objstore.PutNew(ctx, d.store, p.files[i].key, p.files[i].data)
	})
}

// storeWhile is store while pending (the data files of the same
// transaction) is being stored: one durable round instead of two.
// pending is always waited for, even when a deletion file failed.
func (p *deletionPlan) storeWhile(ctx context.Context, d *Dataset, pending func(context.Context) error) error {
	var waited atomic.Bool
	err := objstore.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			waited.Store(true)
			return pending(ctx)
		}
		return p.store(ctx, d)
	})
	if !waited.Load() {
		if perr := pending(ctx); err == nil {
			err = perr
		}
	}
	return err
}

// planDeletionFiles groups addresses by fragment, merges them with each
// fragment's existing deletion vector and encodes one new .bin deletion
// file per touched fragment (under this branch's _deletions/), not yet
// stored (deletionPlan.store). Addresses already deleted are ignored;
// unknown fragments or offsets past a fragment's physical rows are
// ErrInvalidArgument.
func (d *Dataset) planDeletionFiles(ctx context.Context, addrs []uint64) (*deletionPlan, error) {
	byFrag := map[uint64][]uint32{}
	for _, a := range addrs {
		f, off := SplitRowAddress(a)
		byFrag[f] = append(byFrag[f], off)
	}
	ids := make([]uint64, 0, len(byFrag))
	for id := range byFrag {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	frags := map[uint64]*format.Fragment{}
	for i := range d.Fragments() {
		frags[d.Fragments()[i].ID] = &d.Fragments()[i]
	}
	plan := &deletionPlan{}
	for _, id := range ids {
		fr, ok := frags[id]
		if !ok {
			return nil, wrapf(ErrInvalidArgument, "row address in fragment %d, which version %d does not have", id, d.version)
		}
		dv, err := d.deletionVector(ctx, fr)
		if err != nil {
			return nil, err
		}
		before := dv.GetCardinality()
		for _, off := range byFrag[id] {
			if uint64(off) >= fr.PhysicalRows {
				return nil, wrapf(ErrInvalidArgument, "row offset %d past fragment %d's %d rows", off, id, fr.PhysicalRows)
			}
			dv.Add(off)
		}
		card := dv.GetCardinality()
		if card == before {
			continue // nothing new in this fragment
		}
		if card >= fr.PhysicalRows {
			plan.removed = append(plan.removed, id)
			continue
		}
		del, file, err := d.encodeDeletionFile(id, dv)
		if err != nil {
			return nil, err
		}
		plan.files = append(plan.files, file)
		nf := fr.Clone()
		nf.DeletionFile = del
		plan.updated = append(plan.updated, nf)
	}
	return plan, nil
}

// writeDeletionFile writes dv as a new deletion file of fragmentID,
// durably (the rebase path, one file at a time).
func (d *Dataset) writeDeletionFile(ctx context.Context, fragmentID uint64, dv *roaring.Bitmap) (*format.DeletionFile, error) {
	del, f, err := d.encodeDeletionFile(fragmentID, dv)
	if err != nil {
		return nil, err
	}
	// a fresh name nothing references before the commit that names it
	if err := objstore.PutNew(ctx, d.store, f.key, f.data); err != nil {
		return nil, err
	}
	return del, nil
}

// encodeDeletionFile encodes dv as a Roaring .bin deletion file of
// fragmentID under a fresh name.
func (d *Dataset) encodeDeletionFile(fragmentID uint64, dv *roaring.Bitmap) (*format.DeletionFile, deletionFile, error) {
	dv.RunOptimize()
	data, err := encodeDeletionBitmap(dv)
	if err != nil {
		return nil, deletionFile{}, err
	}
	del := &format.DeletionFile{
		FileType:       format.DeletionBitmap,
		ReadVersion:    d.version,
		ID:             rand.Uint64(),
		NumDeletedRows: dv.GetCardinality(),
	}
	return del, deletionFile{key: join(d.base(), deletionsDir, del.FileName(fragmentID)), data: data}, nil
}

// StageDelete stages a Delete of the given row addresses
// ((fragment_id << 32) | offset) against d's version.
func (d *Dataset) StageDelete(ctx context.Context, addrs []uint64, opts StageOptions) (*Staged, error) {
	if err := d.checkWritable(); err != nil {
		return nil, err
	}
	plan, err := d.planDeletionFiles(ctx, addrs)
	if err != nil {
		return nil, err
	}
	// the deletion files and the transaction file in one round
	return d.stageOperationWhile(ctx, &format.Delete{UpdatedFragments: plan.updated, DeletedFragmentIDs: plan.removed}, opts,
		func(ctx context.Context) error { return plan.store(ctx, d) })
}

func (d *Dataset) checkWritable() error {
	if d.mf == nil {
		return wrapf(ErrInvalidArgument, "dataset has no version yet")
	}
	return format.CheckWritable(d.mf.Manifest)
}
