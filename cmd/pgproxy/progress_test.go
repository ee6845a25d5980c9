package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// slowCopy yields COPY text rows in chunks with a pause between them, so
// a COPY stays running long enough to be watched.
type slowCopy struct {
	chunk, left int
	next        int
	pause       time.Duration
	buf         []byte
	gate        <-chan struct{} // the last chunk waits for it
}

func (s *slowCopy) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.left == 0 {
			return 0, io.EOF
		}
		if s.left == 1 && s.gate != nil {
			<-s.gate
		} else {
			time.Sleep(s.pause)
		}
		var b strings.Builder
		for i := 0; i < s.chunk; i++ {
			s.next++
			fmt.Fprintf(&b, "%d\tname %d\n", s.next, s.next)
		}
		s.buf = []byte(b.String())
		s.left--
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// progressServer serves a fresh root and returns a connection that
// collects the NOTICEs it receives (taken by notices) and a second one to
// watch the progress views with; both close, and the server stops, at
// the test's end.
func progressServer(t *testing.T) (worker, watcher *pgx.Conn, notices func() []string) {
	t.Helper()
	addr, stop, stderr := startServe(t, "--data", filepath.Join(t.TempDir(), "root"))
	t.Cleanup(func() {
		if code := stop(); code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	})
	ctx := context.Background()
	var mu sync.Mutex
	var got []string
	cfg, err := pgx.ParseConfig("postgres://root@" + addr + "/main?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		got = append(got, n.Message)
		mu.Unlock()
	}
	worker, err = pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	watcher, err = pgx.Connect(ctx, "postgres://root@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { worker.Close(ctx); watcher.Close(ctx) })
	return worker, watcher, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
}

// A running COPY FROM shows in pg_stat_progress_copy and graph.progress
// with the rows and bytes received so far, and a session that set
// graph.progress_interval gets progress NOTICEs while it copies.
func TestCopyProgress(t *testing.T) {
	ctx := context.Background()
	copier, watcher, notices := progressServer(t)
	for _, s := range []string{"CREATE TABLE items (id int PRIMARY KEY, name text)", "SET graph.progress_interval = '50ms'"} {
		if _, err := copier.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	gate := make(chan struct{})
	src := &slowCopy{chunk: 2000, left: 6, pause: 60 * time.Millisecond, gate: gate}
	done := make(chan error, 1)
	var tag pgconn.CommandTag
	go func() {
		var err error
		tag, err = copier.PgConn().CopyFrom(ctx, src, "COPY items FROM STDIN")
		done <- err
	}()
	// watch until the progress shows at least the first chunks; the last
	// chunk waits for the gate, so the COPY is still running
	var relid, expected uint32
	var command, typ string
	var bytes, tuples int64
	deadline := time.Now().Add(time.Minute)
	for {
		rows, err := watcher.Query(ctx, "SELECT relid, command, type, bytes_processed, tuples_processed FROM pg_stat_progress_copy")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
			if err := rows.Scan(&relid, &command, &typ, &bytes, &tuples); err != nil {
				t.Fatal(err)
			}
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		if n > 1 {
			t.Fatalf("%d COPYs in progress, want one", n)
		}
		if n == 1 && tuples >= 4096 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no COPY progress seen (last: %d rows)", tuples)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := watcher.QueryRow(ctx, "SELECT 'items'::regclass::oid").Scan(&expected); err != nil {
		t.Fatal(err)
	}
	if relid != expected || command != "COPY FROM" || typ != "PIPE" || bytes < tuples*8 || tuples > 10000 {
		t.Errorf("pg_stat_progress_copy: relid %d (want %d) command %q type %q bytes %d tuples %d", relid, expected, command, typ, bytes, tuples)
	}
	var gcmd, grel string
	var grows int64
	if err := watcher.QueryRow(ctx, "SELECT command, relation, rows_done FROM graph.progress WHERE command = 'COPY FROM'").Scan(&gcmd, &grel, &grows); err != nil {
		t.Fatalf("graph.progress: %v", err)
	}
	if grel != "items" || grows < tuples {
		t.Errorf("graph.progress: %s %s %d rows", gcmd, grel, grows)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() != 12000 {
		t.Fatalf("COPY %d rows", tag.RowsAffected())
	}
	var left int
	if err := watcher.QueryRow(ctx, "SELECT count(*) FROM pg_stat_progress_copy").Scan(&left); err != nil || left != 0 {
		t.Fatalf("finished COPY still listed: %d, %v", left, err)
	}
	if got := notices(); len(got) == 0 || !strings.HasPrefix(got[0], "COPY FROM items: ") || !strings.Contains(got[0], " rows") {
		t.Fatalf("progress notices: %q", got)
	}
}

// A long INSERT … SELECT or DELETE shows in graph.progress with the rows
// its query has produced so far, and a session that set
// graph.progress_interval gets progress NOTICEs while it runs.
func TestWriteProgress(t *testing.T) {
	ctx := context.Background()
	writer, watcher, notices := progressServer(t)
	for _, s := range []string{"CREATE TABLE items (id int PRIMARY KEY, name text)", "SET graph.progress_interval = '20ms'"} {
		if _, err := writer.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	// every 5,000th row sleeps 0.1 s: the statement runs ≥ 0.8 s
	slow := "CASE WHEN %s %% 5000 = 0 THEN pg_sleep(0.1) IS NOT NULL ELSE true END"
	for _, tc := range []struct {
		command, sql string
		rows         int64
	}{
		{"INSERT", "INSERT INTO items SELECT g, 'n' FROM generate_series(1, 40000) g WHERE " + fmt.Sprintf(slow, "g"), 40000},
		{"DELETE", "DELETE FROM items WHERE " + fmt.Sprintf(slow, "id"), 40000},
	} {
		t.Run(tc.command, func(t *testing.T) {
			notices() // the earlier statements'
			done := make(chan error, 1)
			var tag pgconn.CommandTag
			go func() {
				var err error
				tag, err = writer.Exec(ctx, tc.sql)
				done <- err
			}()
			seen := int64(-1)
			for finished := false; !finished; {
				var rel string
				var rows int64
				err := watcher.QueryRow(ctx, "SELECT relation, rows_done FROM graph.progress WHERE command = $1", tc.command).Scan(&rel, &rows)
				switch {
				case err == nil:
					if rel != "items" || rows < 0 || rows > tc.rows {
						t.Fatalf("graph.progress: %s %s, %d rows", tc.command, rel, rows)
					}
					seen = max(seen, rows)
				case !errors.Is(err, pgx.ErrNoRows):
					t.Fatal(err)
				}
				select {
				case err := <-done:
					if err != nil {
						t.Fatal(err)
					}
					finished = true
				case <-time.After(20 * time.Millisecond):
				}
			}
			if tag.RowsAffected() != tc.rows {
				t.Fatalf("%s affected %d rows, want %d", tc.command, tag.RowsAffected(), tc.rows)
			}
			if seen < 0 {
				t.Fatalf("%s never showed in graph.progress", tc.command)
			}
			var left int
			if err := watcher.QueryRow(ctx, "SELECT count(*) FROM graph.progress WHERE command = $1", tc.command).Scan(&left); err != nil || left != 0 {
				t.Fatalf("finished %s still listed: %d, %v", tc.command, left, err)
			}
			if got := notices(); len(got) == 0 || !strings.HasPrefix(got[0], tc.command+" items: ") || !strings.Contains(got[0], " rows") {
				t.Fatalf("progress notices: %q", got)
			}
		})
	}
}
