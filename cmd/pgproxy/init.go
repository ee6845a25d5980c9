package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/pggraph/pggraph/access"
)

var initCmd = &command{
	name:     "init",
	synopsis: "pgproxy init --data DIR|s3://BUCKET/PREFIX [--users FILE]",
	about:    "create a new, empty graph root in DIR (created if missing; must be empty)",
}

func init() {
	initCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("init", flag.ContinueOnError)
		data := fs.String("data", "", "graph root: a directory, or s3://bucket/prefix")
		users := fs.String("users", "", "users file whose users become the first superuser roles (when the root has no roles yet)")
		s3f := addS3Flags(fs)
		lf := addLogFlags(fs)
		if err := parseCommand(initCmd, fs, args, env); err != nil {
			return err
		}
		log := lf.newLogger(env.stderr)
		root, created, err := openOrInitRoot(ctx, *data, s3f, actor())
		if err != nil {
			return err
		}
		if err := seedRoles(ctx, access.Open(root.Store()), *users, log); err != nil {
			return err
		}
		stamp := root.Stamp()
		if created {
			log.WithField("graph_id", stamp.GraphID).WithField("data", *data).Info("initialized a new graph root")
			fmt.Fprintf(env.stdout, "initialized graph root %s (graph id %s)\n", *data, stamp.GraphID)
		} else {
			fmt.Fprintf(env.stdout, "graph root %s already initialized (graph id %s); nothing changed\n", *data, stamp.GraphID)
		}
		return nil
	}
}

// actor names this process in stamps and logs.
func actor() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("pgproxy@%s/%d", host, os.Getpid())
}
