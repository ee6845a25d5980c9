package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/recovery"
)

var verifyCmd = &command{
	name:     "verify",
	synopsis: "pgproxy verify --data DIR|s3://BUCKET/PREFIX",
	about:    "check a graph root's integrity without changing it: every pin resolves, every recovery sidecar is classified, no uncovered drift",
}

func init() {
	verifyCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("verify", flag.ContinueOnError)
		data := fs.String("data", "", "graph root: a directory, or s3://bucket/prefix")
		reclaimable := fs.Bool("reclaimable", false, "also report the files a cleanup would reclaim (reads every version of every dataset: O(history))")
		grace := fs.Duration("grace", 24*time.Hour, "with --reclaimable: unreferenced files younger than this count as in flight, not reclaimable")
		s3f := addS3Flags(fs)
		lf := addLogFlags(fs)
		if err := parseCommand(verifyCmd, fs, args, env); err != nil {
			return err
		}
		_ = lf.newLogger(env.stderr)
		store, stamp, err := openRoot(ctx, *data, s3f)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "graph root %s: format %s v%d, graph id %s, created %s by %s\n",
			store.Root(), stamp.Format, stamp.FormatVersion, stamp.GraphID, stamp.CreatedAt.Format("2006-01-02 15:04:05Z07:00"), stamp.CreatedBy)
		problems, err := verifyRoot(ctx, store, env.stdout)
		if err != nil {
			return err
		}
		if *reclaimable {
			if err := reportReclaimable(ctx, store, *grace, env.stdout); err != nil {
				return err
			}
		}
		if problems > 0 {
			return fmt.Errorf("%d problem(s) found in %s (see above); pending intents are resolved by `pgproxy recover --data %s`", problems, store.Root(), store.Root())
		}
		fmt.Fprintln(env.stdout, "no pending recovery; stamp ok; every pin resolves; no drift")
		return nil
	}
}

// verifyRoot prints what it checks and returns how many problems it found.
func verifyRoot(ctx context.Context, store objstore.Store, out io.Writer) (int, error) {
	root, err := graph.OpenReadOnly(ctx, store)
	incomplete := errors.Is(err, graph.ErrInitIncomplete)
	if incomplete {
		fmt.Fprintln(out, "manifest: not created yet (init completes on the first read-write open)")
	} else if err != nil {
		return 0, err
	}
	problems := 0
	rec := recovery.New(root, recovery.Options{})
	defer rec.Close()
	ins, err := rec.Inspect(ctx)
	if err != nil {
		return 0, err
	}
	covered := map[string]string{} // table key → op
	for _, in := range ins {
		problems++
		if in.Sidecar == nil {
			fmt.Fprintf(out, "pending recovery %s: unreadable, left untouched: %v\n", in.Key, in.Err)
			continue
		}
		sc := in.Sidecar
		fmt.Fprintf(out, "pending recovery %s: %s on %s, phase %s, %s, tables %s\n",
			sc.OperationID, sc.WriterKind, sc.Branch, sc.Phase, in.Liveness, fmtClasses(in.Classes))
		if in.Err != nil {
			fmt.Fprintf(out, "  cannot classify: %v\n", in.Err)
		}
		for k := range in.Classes {
			covered[k] = sc.OperationID
		}
	}
	if incomplete {
		return problems, nil
	}
	branches, err := root.Branches(ctx)
	if err != nil {
		return problems, err
	}
	for _, b := range branches {
		n, err := verifyBranch(ctx, store, root, b, covered, out)
		if err != nil {
			return problems, err
		}
		problems += n
	}
	return problems, nil
}

// verifyBranch checks every live table pin of a branch head; drift is
// checked on the tables the branch owns (inherited entries pin a parent
// version the parent may have moved past).
func verifyBranch(ctx context.Context, store objstore.Store, root *graph.Root, branch string, covered map[string]string, out io.Writer) (int, error) {
	problems := 0
	sn, err := root.Head(ctx, branch)
	if errors.Is(err, graph.ErrBranchDeleting) {
		problems++
		fmt.Fprintf(out, "branch %s: sealed by a delete that did not finish; deleting it again completes it\n", branch)
		return problems, nil
	}
	if err != nil {
		problems++
		fmt.Fprintf(out, "branch %s: head unreadable: %v\n", branch, err)
		return problems, nil
	}
	own := ""
	if branch != graph.MainBranch {
		own = branch
	}
	fmt.Fprintf(out, "branch %s: manifest version %d, commit %s, %d table(s)\n", branch, sn.Version, sn.Commit.ID, len(sn.State.Tables))
	for _, e := range sn.State.Tables {
		if e.State != graph.Live {
			continue
		}
		pinned, err := lance.Open(ctx, store, e.Location, root.DatasetOptions(e.Location, e.Branch, e.Version))
		if err != nil && e.Txn != "" && lance.IsNotFound(err) {
			// commit path v2: published before its version was written;
			// the first open (or the next serve start) materializes it
			if perr := materializable(ctx, store, root, e); perr != nil {
				problems++
				fmt.Fprintf(out, "  table %s (%s): pinned version %d is not materialized and cannot be: %v\n", e.Name, e.Key(), e.Version, perr)
			} else {
				fmt.Fprintf(out, "  table %s: pinned version %d published, not materialized yet (the next open materializes it)\n", e.Name, e.Version)
			}
			continue
		}
		if err != nil {
			problems++
			fmt.Fprintf(out, "  table %s (%s): pinned version %d does not resolve: %v\n", e.Name, e.Key(), e.Version, err)
			continue
		}
		if pinned.CountRows() != e.RowCount {
			problems++
			fmt.Fprintf(out, "  table %s: manifest says %d rows, version %d has %d\n", e.Name, e.RowCount, e.Version, pinned.CountRows())
		}
		if e.Branch != own {
			continue
		}
		latest, err := pinned.Latest(ctx)
		if err != nil {
			problems++
			fmt.Fprintf(out, "  table %s: cannot read HEAD: %v\n", e.Name, err)
			continue
		}
		if latest.Version() != e.Version {
			if op, ok := covered[e.Key().String()]; ok {
				fmt.Fprintf(out, "  table %s: HEAD %d ahead of pin %d, covered by pending operation %s\n", e.Name, latest.Version(), e.Version, op)
			} else {
				problems++
				fmt.Fprintf(out, "  table %s: uncovered drift: HEAD %d, pinned %d\n", e.Name, latest.Version(), e.Version)
			}
		}
	}
	return problems, nil
}

// materializable checks, without writing, that a pin published before
// its version was written can be materialized: its base version exists
// and the recorded transaction was staged against it.
func materializable(ctx context.Context, store objstore.Store, root *graph.Root, e graph.TableEntry) error {
	var base *lance.Dataset
	if e.Version == 1 {
		base = lance.New(store, e.Location, root.DatasetOptions(e.Location, e.Branch, 0))
	} else {
		var err error
		if base, err = lance.Open(ctx, store, e.Location, root.DatasetOptions(e.Location, e.Branch, e.Version-1)); err != nil {
			return err
		}
	}
	_, err := base.LoadStaged(ctx, e.Txn)
	return err
}

func fmtClasses(m map[string]recovery.Class) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	s := "["
	for i, k := range ks {
		if i > 0 {
			s += " "
		}
		s += k + "=" + string(m[k])
	}
	return s + "]"
}

// reportReclaimable prints what a cleanup would reclaim (a dry run on a
// read-only root: nothing is resolved or written).
func reportReclaimable(ctx context.Context, store objstore.Store, grace time.Duration, out io.Writer) error {
	root, err := graph.OpenReadOnly(ctx, store)
	if errors.Is(err, graph.ErrInitIncomplete) {
		return nil
	}
	if err != nil {
		return err
	}
	rec := recovery.New(root, recovery.Options{})
	defer rec.Close()
	rep, err := adapters.CleanupRoot(ctx, root, rec, adapters.CleanupOptions{DryRun: true, Grace: grace})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "reclaimable: %d file(s), %d bytes, %d unregistered dataset(s) in %d dataset(s); %d unreferenced file(s) younger than %s kept\n",
		len(rep.Deleted), rep.DeletedBytes, len(rep.OrphanDatasets), rep.Datasets, rep.KeptYoung, grace)
	for _, s := range rep.Skipped {
		fmt.Fprintf(out, "  skipped %s\n", s)
	}
	return nil
}
