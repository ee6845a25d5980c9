package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/protocol"
)

// cleanup is the control operation that reclaims storage no graph
// version can reach: it is not a graph commit and publishes nothing, so
// it can run next to a serving pgproxy (the grace period protects files
// that in-flight writers staged but have not published yet).
var cleanupCmd = &command{
	name:     "cleanup",
	synopsis: "pgproxy cleanup --data DIR|s3://BUCKET/PREFIX [--grace 24h] [--dry-run]",
	about:    "reclaim files no graph version or pending recovery intent references (older than --grace)",
}

func init() {
	cleanupCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("cleanup", flag.ContinueOnError)
		data := fs.String("data", "", "graph root: a directory, or s3://bucket/prefix")
		grace := fs.Duration("grace", 24*time.Hour, "keep unreferenced files younger than this (in-flight writers' staged files)")
		dry := fs.Bool("dry-run", false, "list what would be reclaimed without deleting anything (and without running recovery)")
		s3f := addS3Flags(fs)
		lf := addLogFlags(fs)
		if err := parseCommand(cleanupCmd, fs, args, env); err != nil {
			return err
		}
		log := lf.newLogger(env.stderr)
		if *grace <= 0 {
			return fmt.Errorf("--grace must be positive (got %s): a zero grace could reclaim files a running writer has staged but not yet published", *grace)
		}
		store, _, err := openRoot(ctx, *data, s3f)
		if err != nil {
			return err
		}
		g, err := adapters.Open(ctx, store, adapters.Options{Actor: actor()})
		if err != nil {
			return err
		}
		defer g.Close()
		rep, err := g.Cleanup(ctx, adapters.CleanupOptions{Grace: *grace, DryRun: *dry, Progress: func(p adapters.CleanupProgress) {
			// one progress line, rewritten in place, on stderr
			fmt.Fprintf(env.stderr, "\rcleanup: dataset %d/%d, %d files reclaimable so far", p.Done, p.Total, p.Deleted)
		}})
		if rep.Datasets > 0 {
			fmt.Fprintln(env.stderr)
		}
		for _, r := range rep.Recovery {
			fmt.Fprintf(env.stdout, "recovered operation %s (%s): %s\n", r.OperationID, r.WriterKind, r.Decision)
		}
		verb := "reclaimed"
		if *dry {
			verb = "would reclaim"
		}
		for _, k := range rep.Deleted {
			fmt.Fprintf(env.stdout, "%s %s\n", verb, k)
		}
		for _, s := range rep.Skipped {
			fmt.Fprintf(env.stdout, "skipped %s\n", s)
		}
		fmt.Fprintf(env.stdout, "cleanup: %d datasets, %d files examined, %s %d files (%d bytes), %d whole datasets, %d staging files; %d unreferenced files kept (younger than %s)\n",
			rep.Datasets, rep.FilesScanned, verb, len(rep.Deleted), rep.DeletedBytes, len(rep.OrphanDatasets), rep.StagingSwept, rep.KeptYoung, *grace)
		log.WithField("deleted", len(rep.Deleted)).WithField("dry_run", *dry).Info("cleanup finished")
		if err != nil {
			return fmt.Errorf("cleanup stopped: %v (SQLSTATE %s); nothing reachable was deleted", err, protocol.SQLState(err))
		}
		return nil
	}
}
