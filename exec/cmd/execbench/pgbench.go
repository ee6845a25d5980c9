package main

import (
	"bufio"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// The point lookup again, through pgbench: PostgreSQL's own C client
// costs a few microseconds per query, where pgx adds tens, so the ratio
// here is closer to the servers' own. One connection, -M prepared (the
// extended protocol, as pgx) and -M simple (literal SQL, as psql and
// psycopg2 send it); each round runs pgproxy and postgres one after the
// other, alternating which goes first. Latencies come from pgbench's
// per-transaction log; server CPU per lookup from /proc (pgproxy's
// process, and the postmaster's reaped children for postgres's backends).

// pgbenchTarget is one server pgbench connects to.
type pgbenchTarget struct {
	name    string
	conn    string // pgx connection string
	cpu     func() time.Duration
	p50s    []time.Duration
	p99s    []time.Duration
	cpuPerQ []time.Duration
}

func findPgbench() (string, bool) {
	for _, d := range pgtest.BinDirs {
		p := filepath.Join(d, "pgbench")
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	p, err := osexec.LookPath("pgbench")
	return p, err == nil
}

// runPgbench times n lookups per round for rounds rounds in each mode.
func runPgbench(rows, rounds, n int, proxy, postgres *pgbenchTarget, rep *report) error {
	bin, ok := findPgbench()
	if !ok {
		fmt.Println("\n(pgbench not found: the pgbench point-lookup rounds are skipped)")
		return nil
	}
	dir, err := os.MkdirTemp("", "execbench-pgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "lookup.sql")
	body := fmt.Sprintf("\\set aid random(1, %d)\nSELECT v FROM big WHERE id = :aid;\n", rows)
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		return err
	}
	for _, mode := range []string{"prepared", "simple"} {
		targets := []*pgbenchTarget{proxy, postgres}
		for _, t := range targets {
			t.p50s, t.p99s, t.cpuPerQ = nil, nil, nil
			if _, err := pgbenchRun(bin, dir, script, mode, 200, t); err != nil { // warm-up
				return err
			}
		}
		for r := 0; r < rounds; r++ {
			order := targets
			if r%2 == 1 {
				order = []*pgbenchTarget{postgres, proxy}
			}
			for _, t := range order {
				c0 := t.cpu()
				lat, err := pgbenchRun(bin, dir, script, mode, n, t)
				if err != nil {
					return err
				}
				time.Sleep(50 * time.Millisecond) // the postmaster reaps the backend
				if c := t.cpu() - c0; c > 0 {
					t.cpuPerQ = append(t.cpuPerQ, c/time.Duration(n))
				}
				t.p50s = append(t.p50s, percentile(lat, 0.5))
				t.p99s = append(t.p99s, percentile(lat, 0.99))
			}
		}
		name := "point lookup, pgbench " + mode
		res := newResult(name, "p50 latency per round of lookups (pgbench log)", proxy.p50s, postgres.p50s, "", "pgbench checks nothing; the pgx rounds compare every answer")
		if mode == "prepared" {
			res.Target = "p50 <= 2x postgres"
			res.Pass = res.EngineMs <= 2*res.PostgresMs
		}
		res.OursP99Ms, res.PgP99Ms = msOf(statsOf(proxy.p99s).median), msOf(statsOf(postgres.p99s).median)
		res.Note = fmt.Sprintf("pgbench -M %s, one connection, %d lookups per round and side, random ids", mode, n)
		if len(proxy.cpuPerQ) == rounds && len(postgres.cpuPerQ) == rounds {
			res.EngineCPUMs, res.PgCPUMs = msOf(statsOf(proxy.cpuPerQ).median), msOf(statsOf(postgres.cpuPerQ).median)
			if res.EngineCPUMs > 0 {
				res.CPURatio = float64(int(100*res.PgCPUMs/res.EngineCPUMs+0.5)) / 100
			}
		}
		rep.Results = append(rep.Results, res)
		printResult(res)
		fmt.Printf("%-24s pgproxy p50 / postgres p50 = %.2f; p99 %.3g / %.3g ms", "", res.EngineMs/res.PostgresMs, res.OursP99Ms, res.PgP99Ms)
		if res.PgCPUMs > 0 {
			fmt.Printf("; server CPU per lookup %.1f / %.1f us", 1000*res.EngineCPUMs, 1000*res.PgCPUMs)
		}
		fmt.Println()
	}
	return nil
}

// pgbenchRun runs n transactions of script against t and returns their
// latencies from pgbench's log.
func pgbenchRun(bin, dir, script, mode string, n int, t *pgbenchTarget) ([]time.Duration, error) {
	cfg, err := pgx.ParseConfig(t.conn)
	if err != nil {
		return nil, err
	}
	prefix := filepath.Join(dir, t.name+"-"+mode)
	old, _ := filepath.Glob(prefix + "*")
	for _, f := range old {
		os.Remove(f)
	}
	cmd := osexec.Command(bin, "-n", "-M", mode, "-f", script, "-t", strconv.Itoa(n), "-c", "1",
		"-l", "--log-prefix", prefix, "-h", cfg.Host, "-p", strconv.Itoa(int(cfg.Port)), "-U", cfg.User, cfg.Database)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgbench against %s: %v: %s", t.name, err, out)
	}
	logs, _ := filepath.Glob(prefix + ".*")
	if len(logs) != 1 {
		return nil, fmt.Errorf("pgbench against %s: %d log files", t.name, len(logs))
	}
	f, err := os.Open(logs[0])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lat []time.Duration
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// client_id transaction_no time script_no time_epoch time_us
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 {
			continue
		}
		us, err := strconv.ParseInt(fs[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("pgbench log line %q", sc.Text())
		}
		lat = append(lat, time.Duration(us)*time.Microsecond)
	}
	if len(lat) != n {
		return nil, fmt.Errorf("pgbench against %s logged %d of %d transactions", t.name, len(lat), n)
	}
	slices.Sort(lat)
	return lat, sc.Err()
}
