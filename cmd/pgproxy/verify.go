package main

import (
	"context"
	"flag"
	"fmt"
)

var verifyCmd = &command{
	name:     "verify",
	synopsis: "pgproxy verify --data DIR",
	about:    "check a graph root's integrity without changing it",
}

func init() {
	verifyCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("verify", flag.ContinueOnError)
		data := fs.String("data", "", "graph root directory")
		lf := addLogFlags(fs)
		if err := parseCommand(verifyCmd, fs, args, env); err != nil {
			return err
		}
		_ = lf.newLogger(env.stderr)
		store, stamp, err := openRoot(ctx, *data)
		if err != nil {
			return err
		}
		sidecars, err := store.List(ctx, "__recovery/")
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "graph root %s: format %s v%d, graph id %s, created %s by %s\n",
			store.Root(), stamp.Format, stamp.FormatVersion, stamp.GraphID, stamp.CreatedAt.Format("2006-01-02 15:04:05Z07:00"), stamp.CreatedBy)
		if len(sidecars) > 0 {
			return fmt.Errorf("%d pending recovery sidecar(s) under __recovery/ (first: %s); run `pgproxy recover --data %s`",
				len(sidecars), sidecars[0].Key, store.Root())
		}
		fmt.Fprintln(env.stdout, "no pending recovery; stamp ok")
		return nil
	}
}
