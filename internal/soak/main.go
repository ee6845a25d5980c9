// Command soak runs pgproxy under mixed hostile load for a bounded time
// and reports the server's resource use: clients writing (autocommit and
// transactions), big queries (spilling sorts, aggregates and joins, and
// values past the memory budgets), bad input (garbage bytes, oversized
// and half-sent messages, statements nested too deep) and clients that
// vanish mid-statement, while the server's RSS, goroutines and open file
// descriptors are sampled. After the load stops it waits for the server
// to settle and checks that goroutines and descriptors are back at their
// baseline and RSS near it, and that every reply was one the load
// expects (PostgreSQL's SQLSTATEs; never XX000, never a dead server).
//
// Usage: go run ./internal/soak -pgproxy bin/pgproxy [-duration 150s]
// Results: bench-results/soak-<time>.json (and a table on stdout).
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/pgerr"
)

func main() {
	bin := flag.String("pgproxy", "bin/pgproxy", "pgproxy binary")
	dur := flag.Duration("duration", 150*time.Second, "how long the load runs")
	out := flag.String("out", "bench-results", "directory for the JSON report")
	flag.Parse()
	rep, err := run(*bin, *dur)
	if rep != nil {
		rep.print(os.Stdout)
		if werr := rep.write(*out); werr != nil {
			fmt.Fprintln(os.Stderr, "soak:", werr)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// sample is one reading of the server's resources.
type sample struct {
	At         float64 `json:"t_s"`
	RSSMB      float64 `json:"rss_mb"`
	FDs        int     `json:"fds"`      // descriptors other than cached data-file handles
	DataFDs    int     `json:"data_fds"` // open Lance data files (read handles: an LRU of at most objstore.DefaultReadHandles, plus those in flight)
	Goroutines int     `json:"goroutines"`
	QueryMemMB float64 `json:"query_memory_mb"`
}

type report struct {
	Time          string            `json:"time"`
	Duration      string            `json:"duration"`
	Flags         []string          `json:"server_flags"`
	Baseline      sample            `json:"baseline"`
	Max           sample            `json:"max"`
	AfterSettle   sample            `json:"after_settle"`
	SettleSeconds float64           `json:"settle_seconds"`
	Returned      map[string]bool   `json:"returned_to_baseline"`
	Outcomes      map[string]int64  `json:"outcomes"` // worker/outcome -> count
	Unexpected    []string          `json:"unexpected,omitempty"`
	SpillMB       float64           `json:"spill_mb"`
	QueryMemPeak  float64           `json:"query_memory_peak_mb"`
	PeakRSSMB     float64           `json:"peak_rss_mb"` // the kernel's VmHWM: the true maximum between samples too
	ServerAlive   bool              `json:"server_alive"`
	Samples       []sample          `json:"samples"`
	Notes         map[string]string `json:"notes"`
}

type server struct {
	cmd      *exec.Cmd
	addr     string
	debug    string
	pid      int
	done     chan error
	stderr   *strings.Builder
	stderrMu sync.Mutex
}

func run(bin string, dur time.Duration) (*report, error) {
	data, err := os.MkdirTemp("", "pggraph-soak-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(data)
	flags := []string{"--query-memory", "268435456", "--server-query-memory", "402653184", "--work-mem", "4MB",
		"--max-message-size", "8388608", "--message-timeout", "5s", "--max-connections", "64"}
	srv, err := startServer(bin, data, flags)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	rep := &report{Time: time.Now().UTC().Format(time.RFC3339), Duration: dur.String(), Flags: flags,
		Outcomes: map[string]int64{}, Returned: map[string]bool{}, Notes: map[string]string{
			"rss": "RSS returns to within 64 MB of the baseline or below half the way from the baseline to the maximum (Go returns freed heap to the OS gradually)",
		}}
	start := time.Now()
	read := func() sample { return srv.sample(time.Since(start)) }

	// warm up: one session, so the baseline includes what the first
	// connection initializes once
	ctx := context.Background()
	if c, err := connect(ctx, srv.addr); err == nil {
		_, _ = c.Exec(ctx, "SELECT 1")
		c.Close(ctx)
	} else {
		return rep, fmt.Errorf("first connection: %w", err)
	}
	time.Sleep(time.Second)
	rep.Baseline = read()

	var mu sync.Mutex
	count := func(k string) {
		mu.Lock()
		rep.Outcomes[k]++
		mu.Unlock()
	}
	unexpected := func(k string, err error) {
		mu.Lock()
		rep.Outcomes[k+"/unexpected"]++
		if len(rep.Unexpected) < 50 {
			rep.Unexpected = append(rep.Unexpected, k+": "+err.Error())
		}
		mu.Unlock()
	}

	// sampler
	stopSampling := make(chan struct{})
	var samplerDone sync.WaitGroup
	samplerDone.Add(1)
	go func() {
		defer samplerDone.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			s := read()
			mu.Lock()
			rep.Samples = append(rep.Samples, s)
			mu.Unlock()
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	}()

	lctx, stopLoad := context.WithTimeout(ctx, dur)
	defer stopLoad()
	var wg sync.WaitGroup
	workers := []struct {
		name string
		n    int
		fn   func(ctx context.Context, id int, count func(string), unexpected func(string, error))
	}{
		{"writer", 3, func(ctx context.Context, id int, c func(string), u func(string, error)) {
			writer(ctx, srv.addr, id, c, u)
		}},
		{"bigquery", 2, func(ctx context.Context, id int, c func(string), u func(string, error)) {
			bigQueries(ctx, srv.addr, id, c, u)
		}},
		{"badinput", 2, func(ctx context.Context, id int, c func(string), u func(string, error)) {
			badInput(ctx, srv.addr, id, c, u)
		}},
		{"disconnect", 2, func(ctx context.Context, id int, c func(string), u func(string, error)) {
			disconnects(ctx, srv.addr, id, c, u)
		}},
	}
	for _, w := range workers {
		for i := 0; i < w.n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.fn(lctx, i, count, unexpected)
			}()
		}
	}
	wg.Wait()
	loadEnd := time.Now()

	// settle: goroutines and descriptors back at the baseline
	var last sample
	for {
		last = read()
		back := last.Goroutines <= rep.Baseline.Goroutines+2 && last.FDs <= rep.Baseline.FDs+2 &&
			(last.RSSMB <= rep.Baseline.RSSMB+64)
		if back && time.Since(loadEnd) > 5*time.Second || time.Since(loadEnd) > 60*time.Second {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	close(stopSampling)
	samplerDone.Wait()
	rep.AfterSettle = last
	rep.SettleSeconds = time.Since(loadEnd).Seconds()
	for _, s := range rep.Samples {
		rep.Max.RSSMB = max(rep.Max.RSSMB, s.RSSMB)
		rep.Max.FDs = max(rep.Max.FDs, s.FDs)
		rep.Max.DataFDs = max(rep.Max.DataFDs, s.DataFDs)
		rep.Max.Goroutines = max(rep.Max.Goroutines, s.Goroutines)
		rep.Max.QueryMemMB = max(rep.Max.QueryMemMB, s.QueryMemMB)
	}
	rep.Returned["goroutines"] = last.Goroutines <= rep.Baseline.Goroutines+2
	rep.Returned["fds"] = last.FDs <= rep.Baseline.FDs+2
	// the LRU keeps at most DefaultReadHandles; an evicted handle stays
	// open until the reads using it end, and writes open their files
	// briefly, so the maximum may pass it by what is in flight
	rep.Returned["data_fds_bounded"] = last.DataFDs <= objstore.DefaultReadHandles && rep.Max.DataFDs <= objstore.DefaultReadHandles+16
	rep.PeakRSSMB = s2mb(srv.hwm())
	rep.Returned["rss"] = last.RSSMB <= rep.Baseline.RSSMB+64 || last.RSSMB <= rep.Baseline.RSSMB+(rep.Max.RSSMB-rep.Baseline.RSSMB)/2
	rep.Returned["query_memory"] = last.QueryMemMB == 0
	if st, err := srv.stats(); err == nil {
		rep.SpillMB = float64(st.SpillBytes) / (1 << 20)
		rep.QueryMemPeak = float64(st.QueryMemoryPeak) / (1 << 20)
	}
	// the server still answers
	if c, err := connect(ctx, srv.addr); err == nil {
		var one int
		rep.ServerAlive = c.QueryRow(ctx, "SELECT 1").Scan(&one) == nil && one == 1
		c.Close(ctx)
	}
	var fail []string
	if !rep.ServerAlive {
		fail = append(fail, "the server stopped answering")
	}
	for k, ok := range rep.Returned {
		if !ok {
			fail = append(fail, k+" did not return to the baseline")
		}
	}
	if len(rep.Unexpected) > 0 {
		fail = append(fail, fmt.Sprintf("%d unexpected replies", len(rep.Unexpected)))
	}
	if len(fail) > 0 {
		return rep, errors.New(strings.Join(fail, "; "))
	}
	return rep, nil
}

func startServer(bin, data string, flags []string) (*server, error) {
	args := append([]string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--debug-listen", "127.0.0.1:0",
		"--temp-dir", data, "--log-level", "error"}, flags...)
	cmd := exec.Command(bin, args...)
	s := &server{cmd: cmd, done: make(chan error, 1), stderr: &strings.Builder{}}
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		s.stderrMu.Lock()
		defer s.stderrMu.Unlock()
		if s.stderr.Len() < 1<<16 {
			s.stderr.Write(p)
		}
		return len(p), nil
	})
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.done <- cmd.Wait() }()
	s.pid = cmd.Process.Pid
	r := bufio.NewReader(out)
	for s.addr == "" || s.debug == "" {
		line, err := r.ReadString('\n')
		if err != nil {
			s.stop()
			return nil, fmt.Errorf("pgproxy did not start: %v: %s", err, s.stderr.String())
		}
		if _, rest, ok := strings.Cut(line, "listening on "); ok {
			s.addr = strings.TrimSuffix(strings.Fields(rest)[0], ";")
		}
		if _, rest, ok := strings.Cut(line, "debug endpoint on http://"); ok {
			s.debug = strings.TrimSuffix(strings.TrimSpace(rest), "/debug/stats")
		}
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	return s, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

type debugStats struct {
	Goroutines      int   `json:"goroutines"`
	QueryMemoryUsed int64 `json:"query_memory_used"`
	QueryMemoryPeak int64 `json:"query_memory_peak"`
	SpillBytes      int64 `json:"spill_bytes"`
}

func (s *server) stats() (debugStats, error) {
	var st debugStats
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + s.debug + "/debug/stats")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

func (s *server) sample(at time.Duration) sample {
	sm := sample{At: at.Seconds()}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid) + "/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseFloat(f[1], 64)
				sm.RSSMB = kb / 1024
			}
		}
	}
	dir := "/proc/" + strconv.Itoa(s.pid) + "/fd"
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasSuffix(target, ".lance") {
				sm.DataFDs++
			} else {
				sm.FDs++
			}
		}
	}
	if st, err := s.stats(); err == nil {
		sm.Goroutines = st.Goroutines
		sm.QueryMemMB = float64(st.QueryMemoryUsed) / (1 << 20)
	}
	return sm
}

// hwm is the server's peak resident set (VmHWM) in kB.
func (s *server) hwm() float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb
		}
	}
	return 0
}

func s2mb(kb float64) float64 { return kb / 1024 }

func connect(ctx context.Context, addr string) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return pgx.Connect(cctx, "postgres://soak@"+addr+"/main?sslmode=disable")
}

// sqlstate is the error's SQLSTATE ("" = none, "conn" = not a server
// error).
func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err == nil {
		return ""
	}
	return "conn"
}

// writer inserts, updates and deletes its own rows, in autocommit and in
// small transactions.
func writer(ctx context.Context, addr string, id int, count func(string), unexpected func(string, error)) {
	c, err := connect(ctx, addr)
	if err != nil {
		unexpected("writer/connect", err)
		return
	}
	defer c.Close(context.Background())
	tbl := "soak_w" + strconv.Itoa(id)
	if _, err := c.Exec(ctx, "CREATE TABLE "+tbl+" (id int8 PRIMARY KEY, v text, n int4)"); err != nil {
		unexpected("writer/create", err)
		return
	}
	for i := int64(0); ctx.Err() == nil; i++ {
		var err error
		switch {
		case i%25 == 24:
			err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
				for k := int64(0); k < 50; k++ {
					if _, err := tx.Exec(ctx, "INSERT INTO "+tbl+" VALUES ($1, $2, $3)", 1_000_000*(i+1)+k, strings.Repeat("t", int(k)), k); err != nil {
						return err
					}
				}
				return nil
			})
		case i%10 == 9:
			_, err = c.Exec(ctx, "UPDATE "+tbl+" SET n = n + 1 WHERE id = $1", i-5)
		case i%15 == 14:
			_, err = c.Exec(ctx, "DELETE FROM "+tbl+" WHERE id = $1", i-7)
		default:
			_, err = c.Exec(ctx, "INSERT INTO "+tbl+" VALUES ($1, $2, $3)", i, "row "+strconv.FormatInt(i, 10), int32(i%1000))
		}
		if ctx.Err() != nil {
			return
		}
		switch code := sqlstate(err); code {
		case "":
			count("writer/ok")
		case pgerr.SerializationFailure:
			count("writer/40001")
		default:
			unexpected("writer", err)
			return
		}
	}
}

// bigQueries are statements that sort, group and join more than work_mem
// (they spill) or build more than the statement budget (53200) or a
// value past 1 GB (54000).
var bigQueryList = []struct {
	sql  string
	want map[string]bool
}{
	{"SELECT count(*), max(s) FROM (SELECT md5(g::text) AS s FROM generate_series(1, 300000) g ORDER BY 1 DESC) t", map[string]bool{"": true}},
	{"SELECT count(*) FROM (SELECT g % 100000 AS k, count(*), string_agg(g::text, ',') FROM generate_series(1, 300000) g GROUP BY 1) t", map[string]bool{"": true}},
	{"SELECT count(*) FROM generate_series(1, 200000) a(g) JOIN generate_series(1, 400000) b(h) ON h = g * 2", map[string]bool{"": true}},
	{"SELECT length(string_agg(repeat('x', 100000), '')) FROM generate_series(1, 20000)", map[string]bool{pgerr.OutOfMemory: true, pgerr.ProgramLimitExceeded: true}},
	{"SELECT repeat('x', 600000000) || repeat('y', 600000000)", map[string]bool{pgerr.OutOfMemory: true, pgerr.ProgramLimitExceeded: true}},
	{"SELECT array_agg(g) FROM generate_series(1, 40000000) g", map[string]bool{pgerr.OutOfMemory: true, pgerr.ProgramLimitExceeded: true, pgerr.QueryCanceled: true}},
}

func bigQueries(ctx context.Context, addr string, id int, count func(string), unexpected func(string, error)) {
	c, err := connect(ctx, addr)
	if err != nil {
		unexpected("bigquery/connect", err)
		return
	}
	defer c.Close(context.Background())
	for i := id; ctx.Err() == nil; i++ {
		q := bigQueryList[i%len(bigQueryList)]
		qctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		_, err := c.Exec(qctx, q.sql)
		cancel()
		if ctx.Err() != nil {
			return
		}
		code := sqlstate(err)
		if q.want[code] || code == pgerr.OutOfMemory {
			// 53200 is also the server-wide budget's answer when the
			// other sessions hold it
			count("bigquery/" + orOK(code))
			continue
		}
		unexpected("bigquery", fmt.Errorf("%s: %w", q.sql[:min(60, len(q.sql))], err))
		if code == "conn" {
			if c, err = connect(ctx, addr); err != nil {
				return
			}
		}
	}
}

func orOK(code string) string {
	if code == "" {
		return "ok"
	}
	return code
}

// badInput sends what a broken or hostile client sends.
func badInput(ctx context.Context, addr string, id int, count func(string), unexpected func(string, error)) {
	rng := rand.New(rand.NewSource(int64(id) + 1))
	deep := "SELECT " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000)
	chain := "SELECT 1" + strings.Repeat(" + 1", 50000)
	for i := id; ctx.Err() == nil; i++ {
		switch i % 5 {
		case 0: // garbage instead of a startup packet
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				unexpected("badinput/dial", err)
				continue
			}
			junk := make([]byte, 1+rng.Intn(4096))
			rng.Read(junk)
			_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
			_, _ = conn.Write(junk)
			_, _ = io.Copy(io.Discard, conn)
			conn.Close()
			count("badinput/garbage")
		case 1: // a message announcing 200 MB that sends 1,000 bytes and stops
			conn, err := rawStartup(addr)
			if err != nil {
				unexpected("badinput/startup", err)
				continue
			}
			msg := []byte{'Q', 0, 0, 0, 0}
			binary.BigEndian.PutUint32(msg[1:], 200<<20)
			msg = append(msg, make([]byte, 1000)...)
			_, _ = conn.Write(msg)
			time.Sleep(time.Duration(rng.Intn(300)) * time.Millisecond)
			conn.Close()
			count("badinput/halfsent")
		case 2: // an oversized message sent whole: 54000, the session goes on
			conn, err := rawStartup(addr)
			if err != nil {
				unexpected("badinput/startup", err)
				continue
			}
			q := "SELECT '" + strings.Repeat("z", 9<<20) + "'"
			code, err := rawQuery(conn, q)
			conn.Close()
			if err != nil && !errors.Is(err, io.EOF) {
				unexpected("badinput/oversized", err)
				continue
			}
			if code == pgerr.ProgramLimitExceeded || code == pgerr.OutOfMemory || errors.Is(err, io.EOF) {
				count("badinput/oversized_" + orOK(code))
			} else {
				unexpected("badinput/oversized", fmt.Errorf("answered %q", code))
			}
		case 3, 4: // statements too deep for the parser: 54001
			c, err := connect(ctx, addr)
			if err != nil {
				unexpected("badinput/connect", err)
				continue
			}
			q := deep
			if i%5 == 4 {
				q = chain
			}
			_, err = c.Exec(ctx, q)
			c.Close(context.Background())
			if code := sqlstate(err); code == pgerr.StatementTooComplex {
				count("badinput/54001")
			} else if ctx.Err() == nil {
				unexpected("badinput/deep", fmt.Errorf("answered %q: %v", code, err))
			}
		}
	}
}

// rawStartup opens a session speaking the protocol by hand.
func rawStartup(addr string) (net.Conn, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	body := binary.BigEndian.AppendUint32(nil, 3<<16)
	for _, kv := range []string{"user", "soak", "database", "main"} {
		body = append(append(body, kv...), 0)
	}
	body = append(body, 0)
	pkt := binary.BigEndian.AppendUint32(nil, uint32(len(body)+4))
	if _, err := conn.Write(append(pkt, body...)); err != nil {
		conn.Close()
		return nil, err
	}
	for {
		t, _, err := readMsg(conn)
		if err != nil {
			conn.Close()
			return nil, err
		}
		if t == 'Z' {
			return conn, nil
		}
		if t == 'E' {
			conn.Close()
			return nil, errors.New("startup refused")
		}
	}
}

// rawQuery sends a simple query and returns the SQLSTATE of its error
// ("" when it succeeded).
func rawQuery(conn net.Conn, q string) (string, error) {
	msg := []byte{'Q', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(msg[1:], uint32(len(q)+5))
	msg = append(append(msg, q...), 0)
	if _, err := conn.Write(msg); err != nil {
		return "", err
	}
	code := ""
	for {
		t, body, err := readMsg(conn)
		if err != nil {
			return code, err
		}
		switch t {
		case 'E':
			for _, f := range strings.Split(string(body), "\x00") {
				if strings.HasPrefix(f, "C") {
					code = f[1:]
				}
			}
		case 'Z':
			return code, nil
		}
	}
}

func readMsg(conn net.Conn) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n < 4 || n > 1<<24 {
		return 0, nil, fmt.Errorf("bad message length %d", n)
	}
	body := make([]byte, n-4)
	_, err := io.ReadFull(conn, body)
	return hdr[0], body, err
}

// disconnects start expensive statements and drop the connection under
// them, in autocommit and inside a transaction with pending writes.
func disconnects(ctx context.Context, addr string, id int, count func(string), unexpected func(string, error)) {
	rng := rand.New(rand.NewSource(int64(id) + 100))
	for i := 0; ctx.Err() == nil; i++ {
		conn, err := rawStartup(addr)
		if err != nil {
			unexpected("disconnect/startup", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		q := "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b"
		if i%2 == 1 {
			q = "BEGIN; CREATE TABLE IF NOT EXISTS soak_d" + strconv.Itoa(id) + " (id int8); INSERT INTO soak_d" + strconv.Itoa(id) +
				" SELECT g FROM generate_series(1, 200000) g; SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b"
		}
		msg := []byte{'Q', 0, 0, 0, 0}
		binary.BigEndian.PutUint32(msg[1:], uint32(len(q)+5))
		_, _ = conn.Write(append(append(msg, q...), 0))
		time.Sleep(time.Duration(50+rng.Intn(400)) * time.Millisecond)
		conn.Close()
		count("disconnect/dropped")
	}
}

func (r *report) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	name := filepath.Join(dir, "soak-"+time.Now().UTC().Format("20060102T150405Z")+".json")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		return err
	}
	fmt.Println("written to", name)
	return nil
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "soak: %s of mixed load, server flags %s\n", r.Duration, strings.Join(r.Flags, " "))
	fmt.Fprintf(w, "%-14s %10s %10s %10s %10s %12s\n", "", "RSS MB", "fds", "data fds", "goroutines", "query mem MB")
	for _, x := range []struct {
		name string
		s    sample
	}{{"baseline", r.Baseline}, {"max", r.Max}, {"after settle", r.AfterSettle}} {
		fmt.Fprintf(w, "%-14s %10.1f %10d %10d %10d %12.1f\n", x.name, x.s.RSSMB, x.s.FDs, x.s.DataFDs, x.s.Goroutines, x.s.QueryMemMB)
	}
	fmt.Fprintf(w, "peak RSS (VmHWM) %.0f MB; settled after %.1fs; returned to baseline: %v; server alive: %v; spilled %.0f MB; statement memory peak %.0f MB\n",
		r.PeakRSSMB, r.SettleSeconds, r.Returned, r.ServerAlive, r.SpillMB, r.QueryMemPeak)
	keys := make([]string, 0, len(r.Outcomes))
	for k := range r.Outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-32s %d\n", k, r.Outcomes[k])
	}
	for _, u := range r.Unexpected {
		fmt.Fprintln(w, "  unexpected:", u)
	}
}
