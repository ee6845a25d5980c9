package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand of pgproxy.
type command struct {
	name     string
	synopsis string
	about    string
	run      func(ctx context.Context, env *runEnv, args []string) error
}

// runEnv is what a command may touch: its output streams and environment.
type runEnv struct {
	stdout, stderr io.Writer
	getenv         func(string) (string, bool)
}

var commands = []*command{serveCmd, initCmd, verifyCmd, recoverCmd, cleanupCmd, benchCmd}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], &runEnv{stdout: os.Stdout, stderr: os.Stderr, getenv: osEnv}))
}

// run executes one command line and returns the exit status: 0 success,
// 1 failure, 2 command-line mistake.
func run(ctx context.Context, args []string, env *runEnv) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			if c := findCommand(args[1]); c != nil {
				return run(ctx, []string{c.name, "--help"}, env)
			}
		}
		topUsage(env.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c := findCommand(args[0])
	if c == nil {
		fmt.Fprintf(env.stderr, "pgproxy: unknown command %q\n\n", args[0])
		topUsage(env.stderr)
		return 2
	}
	err := c.run(ctx, env, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case isUsageError(err):
		fmt.Fprintf(env.stderr, "pgproxy %s: %v\nrun `pgproxy %s --help` for usage\n", c.name, err, c.name)
		return 2
	default:
		fmt.Fprintf(env.stderr, "pgproxy %s: %v\n", c.name, err)
		return 1
	}
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func topUsage(w io.Writer) {
	fmt.Fprint(w, `pgproxy — a PostgreSQL-protocol server for a versioned property graph stored as Lance tables

usage: pgproxy <command> [flags]

commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.about)
	}
	fmt.Fprint(w, "\nrun `pgproxy <command> --help` for a command's flags; every flag is also read from\nan environment variable PGGRAPH_<FLAG> (e.g. --tls-cert is PGGRAPH_TLS_CERT).\n")
}

// parseCommand parses a command's flags; --help prints the usage.
func parseCommand(c *command, fs *flag.FlagSet, args []string, env *runEnv) error {
	err := parseFlags(fs, args, env.getenv)
	if errors.Is(err, flag.ErrHelp) {
		writeUsage(env.stdout, c.synopsis, c.about, fs)
	}
	return err
}
