package adapters

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// Cleanup is a control operation (docs/write-protocol.md §1.2: physical-only, no graph
// commit): it reclaims files that nothing can reach.
//
// What is reachable, and therefore never deleted:
//   - every file any Lance version of any branch of a dataset references
//     (data files, deletion files, transaction files) — Lance versions of
//     tables are never deleted, so time travel, recovery's classification
//     (it reads transactions after a pin) and Restore keep working;
//   - everything outside a dataset's data/, _deletions/ and _transactions/
//     directories (manifests, refs, hints, indexes), and the trees of
//     branches that no longer exist (branch create reclaims those);
//   - every dataset named by a pending recovery intent that the barrier
//     could not resolve (a live owner, or a refused intent): it is skipped
//     whole;
//   - every file younger than Grace: a writer stages data files before it
//     arms its sidecar, so a young unreferenced file may be about to be
//     committed. Grace must exceed the longest staging time of a write.
//
// What is reclaimed: unreferenced files in those directories (staged
// files of attempts that restarted, lost their CAS or crashed; the
// __manifest data files of lost publishes), whole table datasets that no
// __manifest version of any branch registers (a rolled-back CREATE
// TABLE; ids are never reused, so nothing can register them later), and,
// when the store can sweep them (objstore.Local), staging files of
// crashed puts. __manifest versions are all kept unless
// KeepManifestVersions asks for retention (cleanup_manifest.go): every
// manifest version is a graph commit time travel can reach.
//
// The recovery barrier runs first (Recover): intents of gone owners are
// resolved, so their staged files become ordinary garbage; the others
// protect their datasets as above.

// CleanupOptions tune one Cleanup.
type CleanupOptions struct {
	// Grace: unreferenced files younger than this are kept (default 24h).
	Grace time.Duration
	// DryRun reports what would be deleted without deleting (and without
	// running recovery).
	DryRun bool
	// Progress, when set, is called after each dataset.
	Progress func(CleanupProgress)
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// KeepManifestVersions > 0 deletes __manifest versions older than
	// the newest KeepManifestVersions of each branch that nothing needs
	// (cleanup_manifest.go); 0 keeps every graph commit (the default).
	KeepManifestVersions int
}

// CleanupProgress reports one step.
type CleanupProgress struct {
	Dataset     string
	Done, Total int // datasets
	Deleted     int // files deleted (or, dry run, deletable) so far
}

// CleanupReport is what Cleanup did.
type CleanupReport struct {
	Datasets       int      // datasets examined
	FilesScanned   int      // candidate files examined
	Deleted        []string // keys deleted (or deletable in a dry run), sorted
	DeletedBytes   int64
	KeptYoung      int      // unreferenced but younger than Grace
	OrphanDatasets []string // whole datasets reclaimed
	StagingSwept   int      // crashed-put staging files removed
	// ManifestVersionsDeleted counts __manifest versions removed by
	// KeepManifestVersions (their keys are in Deleted too).
	ManifestVersionsDeleted int
	Skipped                 []string // datasets skipped, with the reason
	Recovery                []recovery.Report
}

// stagingSweeper is implemented by stores that keep their own staging
// files (objstore.Local): remove those older than before.
type stagingSweeper interface {
	SweepStaging(ctx context.Context, before time.Time) (removed int, err error)
}

// Cleanup reclaims unreachable files (see above).
func (g *Graph) Cleanup(ctx context.Context, o CleanupOptions) (CleanupReport, error) {
	start := time.Now()
	// graph.progress shows a running cleanup with the datasets done
	p := observe.StartProgress(&observe.Progress{Command: "CLEANUP", Started: start})
	defer p.Done()
	p.SetPhase("reclaiming")
	if o.DryRun {
		p.SetPhase("listing (dry run)")
	}
	report := o.Progress
	o.Progress = func(cp CleanupProgress) {
		p.SetUnits(int64(cp.Done), int64(cp.Total))
		if report != nil {
			report(cp)
		}
	}
	rep, err := CleanupRoot(ctx, g.Root, g.Recovery, o)
	observe.CleanupDone(o.DryRun, len(rep.Deleted), rep.DeletedBytes, time.Since(start), err)
	return rep, err
}

// CleanupRoot is Cleanup on an open root and its recovery manager. A dry
// run resolves no intent and writes nothing (every pending intent
// protects its datasets), so it also runs on a read-only root (pgproxy
// verify --reclaimable).
func CleanupRoot(ctx context.Context, root *graph.Root, rec *recovery.Manager, o CleanupOptions) (CleanupReport, error) {
	g := &Graph{Root: root, Recovery: rec}
	if o.Grace <= 0 {
		o.Grace = 24 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cutoff := o.Now().Add(-o.Grace)
	var rep CleanupReport
	store := g.Root.Store()
	// barrier: resolve what can be; what remains protects its datasets
	if !o.DryRun {
		reps, _ := g.Recovery.Recover(ctx)
		rep.Recovery = reps
	}
	// A pin published before its version was written (commit path v2)
	// references its staged files only through its commit record:
	// materialize it first; a dry run cannot, so it skips that dataset.
	unmaterialized, err := pendingPins(ctx, g.Root, o.DryRun)
	if err != nil {
		return rep, err
	}
	// The history is read before the pending intents are listed: an
	// intent armed after the listing published its commit after the
	// history was read, so the retention below cannot prune it, and one
	// armed before is in the listing and protects what is above its base.
	registered, hist, err := g.registeredLocations(ctx)
	if err != nil {
		return rep, err
	}
	protected := map[string]string{}
	pend, bad, err := g.Recovery.Pending(ctx)
	if err != nil {
		return rep, protocol.Errorf(protocol.KindRecoveryRequired, err, "cannot list pending recovery intents")
	}
	if len(bad) > 0 {
		// an unreadable intent could name any dataset
		var keys []string
		for k := range bad {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return rep, protocol.Errorf(protocol.KindRecoveryRequired, nil, "cleanup refused: unreadable recovery intent(s) %s must be resolved first", strings.Join(keys, ", "))
	}
	for _, sc := range pend {
		for _, e := range sc.Write.Effects {
			protected[strings.TrimSuffix(e.Location, "/")] = sc.OperationID
		}
	}
	for loc := range unmaterialized {
		protected[loc] = "(a published version not materialized yet)"
	}
	if o.KeepManifestVersions > 0 {
		// before the datasets: the files of deleted versions are then
		// reclaimed by this same run
		if err := g.pruneManifest(ctx, hist, o.KeepManifestVersions, pend, o.DryRun, &rep); err != nil {
			return rep, err
		}
	}
	roots, err := datasetRoots(ctx, store)
	if err != nil {
		return rep, err
	}
	for i, root := range roots {
		rep.Datasets++
		switch {
		case protected[root] != "":
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: named by pending recovery intent %s", root, protected[root]))
		case strings.HasPrefix(root, graph.TablesDir) && !registered[root]:
			if err := g.reclaimDataset(ctx, root, cutoff, o.DryRun, &rep); err != nil {
				return rep, err
			}
		default:
			if err := g.reclaimFiles(ctx, root, cutoff, o.DryRun, &rep); err != nil {
				return rep, fmt.Errorf("cleanup of %s: %w", root, err)
			}
		}
		if o.Progress != nil {
			o.Progress(CleanupProgress{Dataset: root, Done: i + 1, Total: len(roots), Deleted: len(rep.Deleted)})
		}
	}
	if sw, ok := store.(stagingSweeper); ok && !o.DryRun {
		n, err := sw.SweepStaging(ctx, cutoff)
		if err != nil {
			return rep, err
		}
		rep.StagingSwept = n
	}
	sort.Strings(rep.Deleted)
	return rep, nil
}

// datasetRoots lists __manifest, __audit and every table dataset.
func datasetRoots(ctx context.Context, store objstore.Store) ([]string, error) {
	objs, err := store.List(ctx, graph.TablesDir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	roots := []string{graph.ManifestRoot, graph.AuditRoot}
	for _, o := range objs {
		segs := strings.SplitN(o.Key, "/", 3)
		if len(segs) < 3 || !strings.HasSuffix(segs[1], ".lance") {
			continue
		}
		r := segs[0] + "/" + segs[1]
		if !seen[r] {
			seen[r] = true
			roots = append(roots, r)
		}
	}
	sort.Strings(roots[2:])
	return roots, nil
}

// registeredLocations is every table location any __manifest version of
// any graph branch registers (O(history): cleanup is maintenance).
func (g *Graph) registeredLocations(ctx context.Context) (map[string]bool, *manifestHistory, error) {
	out := map[string]bool{}
	h := &manifestHistory{versions: map[string][]uint64{}, commits: map[string]map[uint64]string{},
		merged: map[string]bool{}, mergeAt: map[string]map[uint64]bool{}}
	branches, err := g.Root.Branches(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range branches {
		vs, err := g.manifestVersions(ctx, b)
		if err != nil {
			return nil, nil, err
		}
		for _, v := range vs {
			sn, err := g.Root.SnapshotAt(ctx, b, v)
			if err != nil {
				if lance.IsNotFound(err) {
					continue
				}
				return nil, nil, err
			}
			h.add(b, v, sn.Commit)
			for _, e := range sn.State.Tables {
				out[strings.TrimSuffix(e.Location, "/")] = true
			}
		}
	}
	return out, h, nil
}

// manifestVersions lists the __manifest versions of a graph branch
// (including a sealed one: its versions still register tables).
func (g *Graph) manifestVersions(ctx context.Context, branch string) ([]uint64, error) {
	return g.Root.ManifestVersions(ctx, branch)
}

// candidateDirs are the directories of a dataset branch tree whose
// unreferenced files are garbage.
var candidateDirs = []string{"data", "_deletions", "_transactions"}

// reclaimFiles deletes the unreferenced, old files of one dataset.
func (g *Graph) reclaimFiles(ctx context.Context, root string, cutoff time.Time, dry bool, rep *CleanupReport) error {
	store := g.Root.Store()
	ds, err := lance.Open(ctx, store, root, g.Root.DatasetOptions(root, "", 0))
	if err != nil {
		if lance.IsNotFound(err) {
			return nil // no committed version (yet): leave it alone
		}
		return err
	}
	refs, err := ds.ListBranches(ctx)
	if err != nil {
		return err
	}
	bases := []string{root}
	heads := []*lance.Dataset{ds}
	for _, r := range refs {
		bds, err := lance.Open(ctx, store, root, g.Root.DatasetOptions(root, r.Name, 0))
		if err != nil {
			if lance.IsNotFound(err) {
				continue // deleted meanwhile: its tree is not a candidate
			}
			return err
		}
		bases = append(bases, root+"/tree/"+r.Name)
		heads = append(heads, bds)
	}
	// the candidate files are listed before the versions are read: a
	// version committed in between references files already listed only
	// if an older version (read below) references them too, or files
	// staged after the listing started (younger than the grace)
	var cands []objstore.ObjectInfo
	for _, b := range bases {
		for _, d := range candidateDirs {
			objs, err := store.List(ctx, b+"/"+d+"/")
			if err != nil {
				return err
			}
			for _, o := range objs {
				if path.Dir(o.Key) == b+"/"+d {
					cands = append(cands, o)
				}
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	referenced := map[string]bool{}
	for _, h := range heads {
		vs, err := h.ListVersions(ctx)
		if err != nil {
			return err
		}
		for _, v := range vs {
			vd, err := h.Checkout(ctx, v.Version)
			if err != nil {
				return err
			}
			m := vd.Manifest()
			if m == nil {
				continue
			}
			if m.TransactionFile != "" {
				referenced[path.Base(m.TransactionFile)] = true
			}
			for i := range m.Fragments {
				f := &m.Fragments[i]
				for _, df := range f.Files {
					referenced[path.Base(df.Path)] = true
				}
				if f.DeletionFile != nil {
					referenced[f.DeletionFile.FileName(f.ID)] = true
				}
			}
		}
	}
	for _, c := range cands {
		rep.FilesScanned++
		if referenced[path.Base(c.Key)] {
			continue
		}
		if !c.ModTime.Before(cutoff) {
			rep.KeptYoung++
			continue
		}
		if !dry {
			if err := store.Delete(ctx, c.Key); err != nil && !objstore.IsNotFound(err) {
				return err
			}
		}
		rep.Deleted = append(rep.Deleted, c.Key)
		rep.DeletedBytes += c.Size
	}
	return nil
}

// reclaimDataset deletes a table dataset no manifest version registers,
// when every file of it is older than the cutoff (a young one may belong
// to a CREATE TABLE in flight).
func (g *Graph) reclaimDataset(ctx context.Context, root string, cutoff time.Time, dry bool, rep *CleanupReport) error {
	store := g.Root.Store()
	objs, err := store.List(ctx, root+"/")
	if err != nil {
		return err
	}
	for _, o := range objs {
		if !o.ModTime.Before(cutoff) {
			rep.KeptYoung += len(objs)
			rep.Skipped = append(rep.Skipped, root+": unregistered but has files younger than the grace period")
			return nil
		}
	}
	// manifests first, so a half-deleted dataset no longer looks like one
	sort.SliceStable(objs, func(i, j int) bool {
		return strings.Contains(objs[i].Key, "/_versions/") && !strings.Contains(objs[j].Key, "/_versions/")
	})
	for _, o := range objs {
		rep.FilesScanned++
		if !dry {
			if err := store.Delete(ctx, o.Key); err != nil && !objstore.IsNotFound(err) {
				return err
			}
		}
		rep.Deleted = append(rep.Deleted, o.Key)
		rep.DeletedBytes += o.Size
	}
	rep.OrphanDatasets = append(rep.OrphanDatasets, root)
	return nil
}
