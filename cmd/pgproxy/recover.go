package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

var recoverCmd = &command{
	name:     "recover",
	synopsis: "pgproxy recover --data DIR|s3://BUCKET/PREFIX",
	about:    "resolve interrupted graph writes (recovery sidecars) in DIR and print each decision",
}

func init() {
	recoverCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("recover", flag.ContinueOnError)
		data := fs.String("data", "", "graph root: a directory, or s3://bucket/prefix")
		s3f := addS3Flags(fs)
		lf := addLogFlags(fs)
		if err := parseCommand(recoverCmd, fs, args, env); err != nil {
			return err
		}
		log := lf.newLogger(env.stderr)
		store, _, err := openRoot(ctx, *data, s3f)
		if err != nil {
			return err
		}
		g, err := adapters.Open(ctx, store, adapters.Options{Actor: actor()})
		if err != nil {
			return err
		}
		defer g.Close()
		reps, err := g.Recovery.Recover(ctx)
		if len(reps) == 0 && err == nil {
			fmt.Fprintln(env.stdout, "nothing to recover: no sidecars under __recovery/")
			return nil
		}
		for _, r := range reps {
			fmt.Fprintf(env.stdout, "operation %s (%s): %s", r.OperationID, r.WriterKind, r.Decision)
			if len(r.Classes) > 0 {
				fmt.Fprintf(env.stdout, " tables %s", fmtClasses(r.Classes))
			}
			if r.Fenced {
				fmt.Fprint(env.stdout, " (fenced the expired owner first)")
			}
			if r.Detail != "" {
				fmt.Fprintf(env.stdout, ": %s", r.Detail)
			}
			fmt.Fprintln(env.stdout)
			log.WithField("operation_id", r.OperationID).WithField("decision", string(r.Decision)).Info("recovery decision")
			if r.Decision == recovery.SkippedLive {
				err = firstErr(err, fmt.Errorf("operation %s belongs to a writer that may still be running; left untouched", r.OperationID))
			}
		}
		if err != nil {
			return fmt.Errorf("%v; unresolved intents are left untouched (SQLSTATE %s)", err, protocol.SQLState(err))
		}
		return nil
	}
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
