// Command share measures how much of PostgreSQL's own regression SQL
// gives identical psql output on pgproxy and on PostgreSQL 15 (see
// internal/regress and docs/sql.md, "PostgreSQL's regression SQL").
//
//	go run ./internal/regress/share -dir DIR -pgproxy bin/pgproxy [-run REGEXP] [-diffs OUTDIR]
//
// DIR holds the regression scripts (libpg_query's test/sql/postgres_regress
// on its 15-latest branch). Every script runs in a fresh PostgreSQL
// database and against a fresh pgproxy data directory, after the setup
// script (test_setup.sql, whose own statements are not counted). It
// prints one line per script and the total; -diffs writes each script's
// differing statements with both outputs.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
	"github.com/pggraph/pggraph/internal/regress"
)

func main() {
	dir := flag.String("dir", "", "directory of the regression scripts (*.sql)")
	proxy := flag.String("pgproxy", "bin/pgproxy", "pgproxy binary")
	run := flag.String("run", "", "only the scripts whose base name matches this regular expression")
	skip := flag.String("skip", "", "leave out the scripts whose base name matches this regular expression")
	diffs := flag.String("diffs", "", "write each script's differing statements to OUTDIR/NAME.diff")
	setup := flag.String("setup", "test_setup.sql", "script run before each script (not counted); empty for none")
	timeout := flag.Duration("timeout", 3*time.Minute, "longest run of one script on one server")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "share: -dir is required")
		os.Exit(2)
	}
	// an interrupt ends the running psql and pgproxy and stops PostgreSQL
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := measure(ctx, *dir, *proxy, *run, *skip, *diffs, *setup, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "share:", err)
		os.Exit(1)
	}
}

func measure(ctx context.Context, dir, proxy, run, skip, diffDir, setupName string, timeout time.Duration) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no *.sql in %s", dir)
	}
	sort.Strings(files)
	only, err := regexp.Compile(run)
	if err != nil {
		return err
	}
	var leave *regexp.Regexp
	if skip != "" {
		if leave, err = regexp.Compile(skip); err != nil {
			return err
		}
	}
	var setup []regress.Unit
	if setupName != "" {
		b, err := os.ReadFile(filepath.Join(dir, setupName))
		if err != nil {
			return err
		}
		setup = regress.Split(string(b))
	}
	if proxy, err = filepath.Abs(proxy); err != nil {
		return err
	}
	if diffDir != "" {
		if err := os.MkdirAll(diffDir, 0o755); err != nil {
			return err
		}
	}
	pg, err := pgtest.Start(ctx)
	if err != nil {
		return err
	}
	defer pg.Stop()
	var total, same int
	for i, f := range files {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		if filepath.Base(f) == setupName || !only.MatchString(name) || leave != nil && leave.MatchString(name) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		units := append(append([]regress.Unit(nil), setup...), regress.Split(string(b))...)
		db := fmt.Sprintf("regress_%d", i)
		pgOut, err := runPostgres(ctx, pg, db, units, timeout)
		if err != nil {
			return fmt.Errorf("%s on PostgreSQL: %w", name, err)
		}
		proxyOut, err := runProxy(ctx, proxy, units, timeout)
		if err != nil {
			return fmt.Errorf("%s on pgproxy: %w", name, err)
		}
		if ctx.Err() != nil {
			return ctx.Err() // interrupted: this script's runs are incomplete
		}
		r := regress.Compare(name, units, len(setup), pgOut, proxyOut)
		total += r.Statements
		same += r.Same
		note := ""
		if r.Stopped {
			note = " (pgproxy's run stopped early)"
		}
		fmt.Printf("%-28s %5d/%-5d %6.1f%%%s\n", name, r.Same, r.Statements, r.Share(), note)
		if diffDir != "" {
			if err := os.WriteFile(filepath.Join(diffDir, name+".diff"), []byte(regress.Report(r)), 0o644); err != nil {
				return err
			}
		}
	}
	share := 100.0
	if total > 0 {
		share = 100 * float64(same) / float64(total)
	}
	fmt.Printf("%-28s %5d/%-5d %6.1f%%\n", "TOTAL", same, total, share)
	return nil
}

// psqlEnv is the client environment of both runs: no user settings,
// UTF-8, messages in English.
func psqlEnv(port int, db string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "LC_") && !strings.HasPrefix(kv, "LANG") {
			env = append(env, kv)
		}
	}
	return append(env, "PGHOST=127.0.0.1", fmt.Sprintf("PGPORT=%d", port), "PGUSER=postgres",
		"PGDATABASE="+db, "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10", "LC_ALL=C.UTF-8", "PAGER=")
}

// psql runs the units through psql as pg_regress does (input on stdin,
// -q, both streams into one output) and returns what it printed.
func psql(ctx context.Context, port int, db string, units []regress.Unit, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	bin := pgtest.PsqlBin
	if _, err := os.Stat(bin); err != nil {
		bin = "psql"
	}
	cmd := exec.CommandContext(ctx, bin, "-X", "-q", "-v", "HIDE_TABLEAM=on", "-v", "HIDE_TOAST_COMPRESSION=on")
	cmd.Env = psqlEnv(port, db)
	cmd.Stdin = strings.NewReader(regress.Script(units))
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), nil // a stopped run: its missing markers count as differences
	}
	if _, ok := err.(*exec.ExitError); ok {
		err = nil // psql's exit code reflects the scripts' errors, compared through the output
	}
	return string(out), err
}

func runPostgres(ctx context.Context, pg *pgtest.Server, db string, units []regress.Unit, timeout time.Duration) (string, error) {
	admin, err := pg.Connect(ctx)
	if err != nil {
		return "", err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()); err != nil {
		return "", err
	}
	// pgproxy's branch is "main"; the scripts never name their database
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()+" TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'"); err != nil {
		return "", err
	}
	out, err := psql(ctx, pg.Port, db, units, timeout)
	ctx = context.Background() // the database is dropped even after an interrupt
	if _, derr := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); derr != nil && err == nil {
		err = derr
	}
	return out, err
}

// runProxy serves a fresh data directory and runs the units against it.
func runProxy(ctx context.Context, bin string, units []regress.Unit, timeout time.Duration) (string, error) {
	data, err := os.MkdirTemp("", "regress-pgproxy-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(data)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := exec.Command(bin, "serve", "--data", filepath.Join(data, "graph"), "--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--statement-timeout", "20s", "--log-level", "error")
	log, err := os.Create(filepath.Join(data, "serve.log"))
	if err != nil {
		return "", err
	}
	defer log.Close()
	srv.Stdout, srv.Stderr = log, log
	if err := srv.Start(); err != nil {
		return "", err
	}
	defer func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(data, "serve.log"))
			return "", fmt.Errorf("pgproxy did not listen: %s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return psql(ctx, port, "main", units, timeout)
}
