package planner

import (
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pggraph/pggraph/exec"
)

// batches is a job yielding n batches whose N are 1..n.
func batches(n int, seen *[]int) func(yield func(*exec.Batch) bool) {
	return func(yield func(*exec.Batch) bool) {
		for i := 1; i <= n; i++ {
			*seen = append(*seen, i)
			if !yield(&exec.Batch{N: i}) {
				return
			}
		}
	}
}

// drain resumes q to its end marker and returns the batch sizes.
func drain(t *testing.T, q *queryRunner) []int {
	t.Helper()
	var got []int
	for {
		b, ok := q.resume()
		if !ok {
			t.Fatal("runner ended instead of marking the query's end")
		}
		if b == nil {
			return got
		}
		got = append(got, b.N)
	}
}

func TestQueryRunner(t *testing.T) {
	t.Run("reused across queries", func(t *testing.T) {
		s := &session{}
		var seen []int
		q := s.takeRunner()
		q.job = batches(3, &seen)
		if got := fmt.Sprint(drain(t, q)); got != "[1 2 3]" {
			t.Fatalf("first query: %s", got)
		}
		s.returnRunner(q)
		if q2 := s.takeRunner(); q2 != q {
			t.Fatal("the idle runner was not reused")
		}
		q.job = batches(2, &seen)
		if got := fmt.Sprint(drain(t, q)); got != "[1 2]" {
			t.Fatalf("second query: %s", got)
		}
		s.returnRunner(q)
		s.Close()
		if s.runner != nil {
			t.Fatal("Close kept the idle runner")
		}
		if _, ok := q.next(); ok {
			t.Fatal("the closed session's runner still runs")
		}
	})
	t.Run("concurrent results get their own runner", func(t *testing.T) {
		s := &session{}
		var seen []int
		a, b := s.takeRunner(), s.takeRunner()
		if a == b {
			t.Fatal("two open results share a runner")
		}
		a.job, b.job = batches(2, &seen), batches(2, &seen)
		if x, _ := a.resume(); x.N != 1 {
			t.Fatal(x.N)
		}
		if x, _ := b.resume(); x.N != 1 {
			t.Fatal(x.N)
		}
		drain(t, a)
		drain(t, b)
		s.returnRunner(a)
		s.returnRunner(b) // one idle runner is kept; b is stopped
		if s.runner != a {
			t.Fatal("the first returned runner is not the idle one")
		}
		if _, ok := b.next(); ok {
			t.Fatal("the surplus runner was not stopped")
		}
		s.Close()
	})
	t.Run("a panicking query is not reused", func(t *testing.T) {
		s := &session{}
		q := s.takeRunner()
		q.job = func(func(*exec.Batch) bool) { panic("boom") }
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Fatalf("recovered %v", r)
				}
			}()
			q.resume()
		}()
		if q.usable() {
			t.Fatal("a runner that panicked is usable")
		}
		s.returnRunner(q)
		if s.runner != nil {
			t.Fatal("a runner that panicked was kept")
		}
	})
}

// TestInterleavedPortals: two portals of one transaction suspended at once
// run in two coroutines; closing one mid-stream leaves the other intact,
// and a connection's end leaves no coroutine behind.
func TestInterleavedPortals(t *testing.T) {
	ts := startServer(t, nil)
	before := runtime.NumGoroutine()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	send := func(msgs ...pgproto3.FrontendMessage) {
		for _, m := range msgs {
			fe.Send(m)
		}
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	// read summarizes the messages up to ReadyForQuery: runs of rows as
	// first..last (count), other messages by name.
	read := func() string {
		var out []string
		first, last, n := "", "", 0
		endRows := func() {
			if n > 0 {
				out = append(out, fmt.Sprintf("%s..%s(%d)", first, last, n))
				n = 0
			}
		}
		for {
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch m := msg.(type) {
			case *pgproto3.DataRow:
				if n == 0 {
					first = string(m.Values[0])
				}
				last = string(m.Values[0])
				n++
				continue
			case *pgproto3.ReadyForQuery:
				endRows()
				return strings.Join(out, " ")
			case *pgproto3.PortalSuspended:
				endRows()
				out = append(out, "suspended")
			case *pgproto3.CommandComplete:
				endRows()
				out = append(out, "complete("+string(m.CommandTag)+")")
			case *pgproto3.CloseComplete:
				out = append(out, "closed")
			case *pgproto3.ErrorResponse:
				endRows()
				out = append(out, "error("+m.Code+" "+m.Message+")")
			}
		}
	}
	send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "app", "database": "main"}})
	read()
	send(&pgproto3.Query{String: "begin"})
	read()
	send(&pgproto3.Parse{Name: "a", Query: "select g from generate_series(1, 5000) g"},
		&pgproto3.Parse{Name: "b", Query: "select g * 10 from generate_series(1, 5000) g"},
		&pgproto3.Bind{DestinationPortal: "pa", PreparedStatement: "a"},
		&pgproto3.Bind{DestinationPortal: "pb", PreparedStatement: "b"},
		&pgproto3.Execute{Portal: "pa", MaxRows: 2},
		&pgproto3.Execute{Portal: "pb", MaxRows: 3},
		&pgproto3.Execute{Portal: "pa", MaxRows: 2},
		&pgproto3.Close{ObjectType: 'P', Name: "pa"},
		&pgproto3.Execute{Portal: "pb", MaxRows: 0},
		&pgproto3.Sync{})
	want := "1..2(2) suspended 10..30(3) suspended 3..4(2) suspended closed 40..50000(4997) complete(SELECT 4997)"
	if got := read(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for i := 0; i < 50; i++ { // statements after them reuse one runner
		send(&pgproto3.Query{String: fmt.Sprintf("select %d", i)})
		if got, want := read(), fmt.Sprintf("%d..%d(1) complete(SELECT 1)", i, i); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
	send(&pgproto3.Query{String: "commit"})
	read()
	send(&pgproto3.Terminate{})
	nc.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after the connection ended, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
