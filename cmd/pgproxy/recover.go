package main

import (
	"context"
	"flag"
	"fmt"
)

var recoverCmd = &command{
	name:     "recover",
	synopsis: "pgproxy recover --data DIR",
	about:    "resolve interrupted graph writes (recovery sidecars) in DIR",
}

func init() {
	recoverCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("recover", flag.ContinueOnError)
		data := fs.String("data", "", "graph root directory")
		lf := addLogFlags(fs)
		if err := parseCommand(recoverCmd, fs, args, env); err != nil {
			return err
		}
		_ = lf.newLogger(env.stderr)
		store, _, err := openRoot(ctx, *data)
		if err != nil {
			return err
		}
		sidecars, err := store.List(ctx, "__recovery/")
		if err != nil {
			return err
		}
		if len(sidecars) == 0 {
			fmt.Fprintln(env.stdout, "nothing to recover: no sidecars under __recovery/")
			return nil
		}
		// The graph write path (and with it the sidecar format) is not in
		// this build; refusing is the only safe answer to a sidecar.
		return fmt.Errorf("%d recovery sidecar(s) found, but this build has no graph write path to recover them with; left untouched", len(sidecars))
	}
}
