package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// envPrefix starts the environment variable of every flag.
const envPrefix = "PGGRAPH_"

// envName returns the environment variable that sets flag name.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// usageError is a command-line mistake: printed with the command's usage
// and exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// isUsageError reports whether err is a command-line mistake.
func isUsageError(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// parseFlags parses args into fs, then fills every flag not given on the
// command line from its PGGRAPH_* variable in env.
func parseFlags(fs *flag.FlagSet, args []string, env func(string) (string, bool)) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		if v, ok := env(envName(f.Name)); ok {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = usagef("environment variable %s=%q: %v", envName(f.Name), v, serr)
			}
		}
	})
	return err
}

// writeUsage prints a command's synopsis and every flag with its
// environment variable and default.
func writeUsage(w io.Writer, synopsis, about string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nflags (each also read from the environment variable shown):\n", synopsis, about)
	var lines []string
	fs.VisitAll(func(f *flag.Flag) {
		def := ""
		if f.DefValue != "" {
			def = fmt.Sprintf(" (default %q)", f.DefValue)
		}
		lines = append(lines, fmt.Sprintf("  --%-16s %-25s %s%s", f.Name, "$"+envName(f.Name), f.Usage, def))
	})
	sort.Strings(lines)
	fmt.Fprintln(w, strings.Join(lines, "\n"))
}

// choiceValue is a string flag restricted to a fixed set of values.
type choiceValue struct {
	value   string
	choices []string
}

func (c *choiceValue) String() string { return c.value }

func (c *choiceValue) Set(s string) error {
	for _, ch := range c.choices {
		if s == ch {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(c.choices, ", "))
}

func newChoice(fs *flag.FlagSet, name, def, usage string, choices ...string) *choiceValue {
	c := &choiceValue{value: def, choices: choices}
	fs.Var(c, name, usage+" ("+strings.Join(choices, "|")+")")
	return c
}

// osEnv looks a variable up in the process environment.
func osEnv(name string) (string, bool) { return os.LookupEnv(name) }
