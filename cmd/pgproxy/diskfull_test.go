package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// mountSmallFS mounts a size-limited file system at dir: a tmpfs, or where
// that is refused, a loop-mounted ext2 image. Mounting needs root (the
// test environment, .ci/run, runs as root).
func mountSmallFS(t *testing.T, dir string, size string) {
	t.Helper()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		img := filepath.Join(t.TempDir(), "small.img")
		steps := [][]string{{"truncate", "-s", size, img}, {"mkfs.ext2", "-q", "-F", img}, {"mount", "-o", "loop", img, dir}}
		for _, s := range steps {
			if o, err2 := exec.Command(s[0], s[1:]...).CombinedOutput(); err2 != nil {
				t.Fatalf("cannot mount a small file system (run as root): tmpfs: %v %s; %s: %v %s", err, out, s[0], err2, o)
			}
		}
	}
	t.Cleanup(func() {
		if o, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, o)
		}
	})
}

// fill writes a file until the file system is full and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := bytes.Repeat([]byte{'x'}, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling: %v", err)
			}
			break
		}
	}
	for _, n := range []int{4096, 512, 1} { // the last bytes too
		for {
			if _, err := f.Write(buf[:n]); err != nil {
				break
			}
		}
	}
	return path
}

// TestDiskFull serves a graph on a real, tiny file system and fills it:
// writes answer 53100 naming the operation (no internal path), reads keep
// being served, writes resume once space is freed, and verify is clean.
func TestDiskFull(t *testing.T) {
	mnt := t.TempDir()
	mountSmallFS(t, mnt, "16m")
	data := filepath.Join(mnt, "root")
	addr, stop, stderr := startServe(t, "--data", data)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	for _, sql := range []string{"CREATE TABLE t (id int8 PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a')"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	var n int
	// (the first read materializes the table version, a write: a version
	// not yet materialized cannot be read while the disk is full)
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("read: %d, %v", n, err)
	}
	filler := fill(t, mnt)
	for _, sql := range []string{
		"INSERT INTO t VALUES (2, repeat('x', 10000))",
		"CREATE TABLE u (id int8 PRIMARY KEY)",
		"CALL graph.create_branch('b')",
	} {
		_, err := conn.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53100" || !strings.HasSuffix(pe.Message, ": No space left on device") ||
			strings.Contains(pe.Message+pe.Detail, mnt) || strings.Contains(pe.Message+pe.Detail, "/") {
			t.Fatalf("%s on a full disk: %v (detail %q)", sql, err, detailOf(err))
		}
		t.Logf("%s: %s %s", sql, pe.Code, pe.Message)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("read on a full disk: %d, %v", n, err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (3, 'c')"); err != nil {
		t.Fatalf("write after space was freed: %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows after space was freed: %d, %v", n, err)
	}
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	var out, errOut syncBuffer
	if code := run(ctx, []string{"verify", "--data", data}, &runEnv{stdout: &out, stderr: &errOut, getenv: func(string) (string, bool) { return "", false }}); code != 0 {
		t.Fatalf("verify exited %d:\n%s%s", code, out.String(), errOut.String())
	}
}

func detailOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Detail
	}
	return ""
}
