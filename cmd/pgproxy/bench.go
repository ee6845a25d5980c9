package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

var benchCmd = &command{
	name:     "bench",
	synopsis: "pgproxy bench [--suite NAMES] [--dir DIR|s3://BUCKET/PREFIX] [--iterations N] [--rounds R] [--size BYTES] [--out FILE]",
	about:    "measure pgproxy against the physical floor (and PostgreSQL where a suite says so), in one run",
}

// benchConfig holds the bench flags shared by every suite.
type benchConfig struct {
	dir, out          string
	iterations, round int
	size              int
	s3                *s3Flags // with --dir s3://bucket/prefix (bench_s3.go)
}

// benchSuite is one family of measurements. Suites register themselves
// in benchSuites from their own files; --suite picks which run.
type benchSuite struct {
	name  string
	about string
	run   func(ctx context.Context, env *runEnv, c benchConfig) error
}

// benchSuites lists every suite in the order `--suite all` runs them.
var benchSuites = []benchSuite{
	{name: "objstore", about: "storage primitives (Put, PutIfAbsent, Delete) vs raw write+fsync", run: runBench},
}

// selectSuites resolves a comma-separated --suite value.
func selectSuites(names string) ([]benchSuite, error) {
	if names == "" || names == "all" {
		return benchSuites, nil
	}
	var out []benchSuite
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, s := range benchSuites {
			if s.name == n {
				out, found = append(out, s), true
			}
		}
		if !found {
			var known []string
			for _, s := range benchSuites {
				known = append(known, s.name)
			}
			return nil, usagef("unknown bench suite %q (known: %s)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// primitive is one measured operation. setup runs untimed before each
// sample (e.g. creating the object a delete removes).
type primitive struct {
	name  string
	about string
	setup func(ctx context.Context, i int) error
	op    func(ctx context.Context, i int) error
}

// sampleStats summarizes one primitive's latencies.
type sampleStats struct {
	Name       string    `json:"name"`
	About      string    `json:"about"`
	Samples    int       `json:"samples"`
	P50ms      float64   `json:"p50_ms"`
	P90ms      float64   `json:"p90_ms"`
	P99ms      float64   `json:"p99_ms"`
	MaxMs      float64   `json:"max_ms"`
	RoundP50ms []float64 `json:"round_p50_ms"`
	// VsFloor is this p50 divided by the raw write+fsync p50 of the
	// same run.
	VsFloor float64 `json:"p50_vs_raw_write_fsync"`
}

type benchReport struct {
	Kind       string        `json:"kind"`
	StartedAt  time.Time     `json:"started_at"`
	Dir        string        `json:"dir"`
	Iterations int           `json:"iterations_per_round"`
	Rounds     int           `json:"rounds"`
	Payload    int           `json:"payload_bytes"`
	Results    []sampleStats `json:"results"`
}

func init() {
	benchCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("bench", flag.ContinueOnError)
		var c benchConfig
		suites := fs.String("suite", "all", "comma-separated bench suites to run, or all")
		fs.StringVar(&c.dir, "dir", ".", "directory on the filesystem, or s3://bucket/prefix, to measure (a scratch subdirectory or prefix is created and removed)")
		fs.StringVar(&c.out, "out", "", "results file (JSON); default bench-results/objstore-<time>.json")
		fs.IntVar(&c.iterations, "iterations", 200, "samples per primitive per round")
		fs.IntVar(&c.round, "rounds", 3, "rounds; primitives are interleaved round by round so drift hits all alike")
		fs.IntVar(&c.size, "size", 512, "payload bytes per object")
		c.s3 = addS3Flags(fs)
		lf := addLogFlags(fs)
		if err := parseCommand(benchCmd, fs, args, env); err != nil {
			return err
		}
		_ = lf.newLogger(env.stderr)
		if c.iterations < 10 || c.round < 1 || c.size < 0 {
			return usagef("need --iterations >= 10, --rounds >= 1, --size >= 0")
		}
		if err := c.s3.checkS3Only(c.dir); err != nil {
			return err
		}
		run, err := selectSuites(*suites)
		if err != nil {
			return err
		}
		if c.out != "" && len(run) > 1 {
			return usagef("--out names one file: use it with a single --suite")
		}
		for _, s := range run {
			fmt.Fprintf(env.stdout, "== bench suite %s: %s\n", s.name, s.about)
			if err := s.run(ctx, env, c); err != nil {
				return fmt.Errorf("suite %s: %w", s.name, err)
			}
		}
		return nil
	}
}

// runBench is the objstore suite.
func runBench(ctx context.Context, env *runEnv, c benchConfig) error {
	if objstore.IsS3URL(c.dir) {
		return runBenchS3(ctx, env, c)
	}
	if err := objstore.CheckDir(c.dir); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp(c.dir, ".pgproxy-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	store, err := objstore.NewLocal(scratch)
	if err != nil {
		return err
	}
	rawDir := filepath.Join(scratch, "raw")
	if err := os.Mkdir(rawDir, 0o755); err != nil {
		return err
	}
	payload := []byte(strings.Repeat("p", c.size))
	round := 0
	key := func(kind string, i int) string { return fmt.Sprintf("%s/r%d/%06d", kind, round, i) }
	raw := func(kind string, i int) string {
		return filepath.Join(rawDir, fmt.Sprintf("%s-r%d-%06d", kind, round, i))
	}

	prims := []primitive{
		{name: "raw write+fsync", about: "floor: create, write, fsync(file), close; no directory fsync",
			op: func(_ context.Context, i int) error { return rawWriteFsync(raw("w", i), payload) }},
		{name: "raw durable publish", about: "floor: tmp + fsync + rename + fsync(dir), by hand",
			op: func(_ context.Context, i int) error { return rawPublish(raw("p", i), payload) }},
		{name: "objstore Put", about: "durable publish through objstore.Local (new key)",
			setup: func(ctx context.Context, i int) error { return nil },
			op:    func(ctx context.Context, i int) error { return store.Put(ctx, key("put", i), payload) }},
		{name: "objstore PutIfAbsent", about: "the CAS: staging + fsync + link + fsync(dir)",
			op: func(ctx context.Context, i int) error { return store.PutIfAbsent(ctx, key("pia", i), payload) }},
		{name: "objstore PutIfAbsent lost", about: "a CAS that loses (key exists)",
			setup: func(ctx context.Context, i int) error {
				if i == 0 {
					return store.Put(ctx, key("lost", 0), payload)
				}
				return nil
			},
			op: func(ctx context.Context, i int) error {
				if err := store.PutIfAbsent(ctx, key("lost", 0), payload); !objstore.IsExists(err) {
					return fmt.Errorf("expected ErrExists, got %v", err)
				}
				return nil
			}},
		{name: "objstore Delete", about: "unlink + fsync(dir)",
			setup: func(ctx context.Context, i int) error { return store.Put(ctx, key("del", i), payload) },
			op:    func(ctx context.Context, i int) error { return store.Delete(ctx, key("del", i)) }},
	}
	// Prime each directory so the first sample does not pay for mkdir.
	for _, k := range []string{"put", "pia", "lost", "del"} {
		for r := range c.round {
			if err := store.Put(ctx, fmt.Sprintf("%s/r%d/.prime", k, r), nil); err != nil {
				return err
			}
		}
	}
	return runPrimitives(ctx, env, c, "objstore-primitives", prims, func(r int) { round = r })
}

func writeBenchTable(w io.Writer, rep benchReport) {
	fmt.Fprintf(w, "objstore primitives: %d-byte objects, %d rounds x %d samples, dir %s\n",
		rep.Payload, rep.Rounds, rep.Iterations, rep.Dir)
	fmt.Fprintf(w, "%-28s %9s %9s %9s %9s  %-22s %s\n", "primitive", "p50 ms", "p90 ms", "p99 ms", "max ms", "p50 per round", "p50/floor")
	for _, r := range rep.Results {
		var rounds []string
		for _, v := range r.RoundP50ms {
			rounds = append(rounds, fmt.Sprintf("%.3f", v))
		}
		fmt.Fprintf(w, "%-28s %9.3f %9.3f %9.3f %9.3f  %-22s %.2fx\n", r.Name, r.P50ms, r.P90ms, r.P99ms, r.MaxMs,
			strings.Join(rounds, " "), r.VsFloor)
	}
}

func writeBenchFile(env *runEnv, out, kind string, startedAt time.Time, rep any) error {
	if out == "" {
		if err := os.MkdirAll("bench-results", 0o755); err != nil {
			return err
		}
		out = filepath.Join("bench-results", kind+"-"+startedAt.Format("20060102-150405")+".json")
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "results written to %s\n", out)
	return nil
}

func rawWriteFsync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func rawPublish(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := rawWriteFsync(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// percentile returns the q-quantile (nearest rank) of ds.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	idx := int(math.Ceil(q*float64(len(s)))) - 1
	if idx < 0 {
		idx = 0
	}
	return s[idx]
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// timePrimitives times each primitive iterations times per round, the
// primitives interleaved within a round so that drift of a shared,
// noisy machine hits them alike; setRound tells the caller's key
// functions which round runs. It returns every sample and each round's
// p50 per primitive.
func timePrimitives(ctx context.Context, progress io.Writer, prims []primitive, rounds, iterations int, setRound func(int)) ([][]time.Duration, [][]float64, error) {
	samples := make([][]time.Duration, len(prims))
	roundP50 := make([][]float64, len(prims))
	total, done := rounds*len(prims), 0
	for r := 0; r < rounds; r++ {
		setRound(r)
		for pi, p := range prims {
			fmt.Fprintf(progress, "\rbench: round %d/%d, %-28s (%d/%d)", r+1, rounds, p.name, done+1, total)
			var rs []time.Duration
			for i := range iterations {
				if err := ctx.Err(); err != nil {
					return nil, nil, err
				}
				if p.setup != nil {
					if err := p.setup(ctx, i); err != nil {
						return nil, nil, fmt.Errorf("%s setup: %w", p.name, err)
					}
				}
				t0 := time.Now()
				if err := p.op(ctx, i); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", p.name, err)
				}
				rs = append(rs, time.Since(t0))
			}
			samples[pi] = append(samples[pi], rs...)
			roundP50[pi] = append(roundP50[pi], ms(percentile(rs, 0.50)))
			done++
		}
	}
	fmt.Fprintln(progress)
	return samples, roundP50, nil
}

// runPrimitives times the primitives (timePrimitives), prints their
// table with each p50 against the first primitive's (the floor) and
// writes the results file.
func runPrimitives(ctx context.Context, env *runEnv, c benchConfig, kind string, prims []primitive, setRound func(int)) error {
	samples, roundP50, err := timePrimitives(ctx, env.stderr, prims, c.round, c.iterations, setRound)
	if err != nil {
		return err
	}
	rep := benchReport{Kind: kind, StartedAt: time.Now().UTC(), Dir: c.dir,
		Iterations: c.iterations, Rounds: c.round, Payload: c.size}
	floor := ms(percentile(samples[0], 0.50))
	for pi, p := range prims {
		s := samples[pi]
		st := sampleStats{Name: p.name, About: p.about, Samples: len(s),
			P50ms: ms(percentile(s, 0.50)), P90ms: ms(percentile(s, 0.90)), P99ms: ms(percentile(s, 0.99)),
			MaxMs: ms(percentile(s, 1)), RoundP50ms: roundP50[pi]}
		if floor > 0 {
			st.VsFloor = round3(st.P50ms / floor)
		}
		rep.Results = append(rep.Results, st)
	}
	writeBenchTable(env.stdout, rep)
	return writeBenchFile(env, c.out, rep.Kind, rep.StartedAt, rep)
}
