package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/s3test"
	"github.com/pggraph/pggraph/objstore"
)

// s3Root is a bucket on a versitygw server started for the test, with
// the standard AWS environment set for this process and its children.
type s3Root struct {
	srv *s3test.Server
	url string // s3://bucket/prefix
	// bucket is the whole bucket, for checks from outside pgproxy
	bucket *objstore.S3
}

func (r *s3Root) flags() []string {
	return []string{"--data", r.url, "--s3-endpoint", r.srv.Endpoint, "--s3-path-style"}
}

func newS3Root(t *testing.T, prefix string) *s3Root {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs the versitygw S3 server (built from the Go module proxy)")
	}
	srv, err := s3test.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	s, err := objstore.NewS3(context.Background(), objstore.S3Options{
		Bucket: "graphs", Endpoint: srv.Endpoint, PathStyle: true, Region: s3test.Region,
		Credentials: credentials.NewStaticCredentialsProvider(s3test.AccessKey, s3test.SecretKey, ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &s3Root{srv: srv, url: "s3://graphs/" + prefix, bucket: s}
}

// startS3Serve runs `pgproxy serve` on the S3 root in a child process.
func startS3Serve(t *testing.T, r *s3Root) *serveProcess {
	t.Helper()
	args := append([]string{"serve"}, r.flags()...)
	cmd := exec.Command(os.Args[0], append(args, "--listen", "127.0.0.1:0", "--log-level", "warn")...)
	cmd.Env = append(os.Environ(), "PGGRAPH_TEST_AS_PGPROXY=1")
	p := &serveProcess{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { p.done <- cmd.Wait(); close(exited) }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on ") {
		_ = cmd.Process.Kill()
		<-p.done
		t.Fatalf("serve on S3 did not start (%q, %v): %s", line, err, p.stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	p.addr = strings.TrimSuffix(strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0], ";")
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // fails harmlessly once it has exited
		<-exited
	})
	return p
}

// TestServeOnS3: init, serve, SQL writes and reads over the wire, a
// restart, the data still there, and verify clean — all on a graph root
// in a bucket of a real S3-compatible server.
func TestServeOnS3(t *testing.T) {
	ctx := context.Background()
	r := newS3Root(t, "team/g1")
	code, out, errOut := runCmd(t, nil, append([]string{"init"}, r.flags()...)...)
	if code != 0 || !strings.Contains(out, "initialized graph root s3://graphs/team/g1") {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := r.bucket.Stat(ctx, "team/g1/_graph.json"); err != nil {
		t.Fatalf("init wrote no format stamp into the bucket: %v", err)
	}
	srv := startS3Serve(t, r)
	conn, err := srv.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE person (id int8 PRIMARY KEY, name text)",
		"INSERT INTO person VALUES (1, 'ada'), (2, 'grace')",
		"INSERT INTO person VALUES (3, 'barbara')",
		"UPDATE person SET name = 'Ada' WHERE id = 1",
		"DELETE FROM person WHERE id = 2",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v\n%s", q, err, srv.stderr.String())
		}
	}
	want := "1=Ada 3=barbara"
	if got := personRows(ctx, t, conn); got != want {
		t.Fatalf("before restart: %s, want %s", got, want)
	}
	conn.Close(ctx)
	if err := srv.stop(t); err != nil {
		t.Fatalf("clean shutdown: %v\n%s", err, srv.stderr.String())
	}
	objs, err := r.bucket.List(ctx, "team/g1/")
	if err != nil || len(objs) < 10 {
		t.Fatalf("the graph's objects are not in the bucket: %d objects, %v", len(objs), err)
	}
	// init and serve each probed the server's conditional writes and
	// removed the probe object
	if left, err := r.bucket.List(ctx, "team/g1/__recovery/"); err != nil || len(left) != 0 {
		t.Fatalf("objects left under __recovery/: %v, %v", left, err)
	}

	srv = startS3Serve(t, r)
	conn, err = srv.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := personRows(ctx, t, conn); got != want {
		t.Fatalf("after restart: %s, want %s", got, want)
	}
	conn.Close(ctx)
	if err := srv.stop(t); err != nil {
		t.Fatalf("clean shutdown: %v", err)
	}
	code, out, errOut = runCmd(t, nil, append([]string{"verify"}, r.flags()...)...)
	if code != 0 || !strings.Contains(out, "no pending recovery") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
	// the UPDATE and DELETE left files no version needs once history is
	// not counted; cleanup examines the bucket's datasets (all young)
	code, out, errOut = runCmd(t, nil, append([]string{"cleanup", "--grace", "1h"}, r.flags()...)...)
	if code != 0 || !strings.Contains(out, "cleanup: ") || !strings.Contains(out, "files examined") {
		t.Fatalf("cleanup: exit %d\n%s%s", code, out, errOut)
	}
	// bench measures the store's primitives under a scratch prefix it
	// removes afterwards
	code, out, errOut = runCmd(t, nil, "bench", "--suite", "objstore", "--dir", "s3://graphs/scratch", "--s3-endpoint", r.srv.Endpoint,
		"--s3-path-style", "--iterations", "10", "--rounds", "1", "--out", filepath.Join(t.TempDir(), "bench.json"))
	if code != 0 || !strings.Contains(out, "s3 PutIfAbsent lost") {
		t.Fatalf("bench on S3: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("bench on versitygw:\n%s", out)
	if left, err := r.bucket.List(ctx, "scratch/"); err != nil || len(left) != 0 {
		t.Fatalf("bench left %d objects behind (%v)", len(left), err)
	}
	// a local directory is still a local directory, and S3 flags without
	// an S3 location are refused rather than ignored
	code, _, errOut = runCmd(t, nil, "verify", "--data", t.TempDir(), "--s3-path-style")
	if code != 2 || !strings.Contains(errOut, "need --data s3://bucket/prefix") {
		t.Fatalf("verify of a local dir with --s3-path-style: exit %d: %s", code, errOut)
	}
	// a prefix holding someone else's objects is refused, unchanged
	if err := r.bucket.Put(ctx, "other/readme.txt", []byte("not a graph")); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd(t, nil, "init", "--data", "s3://graphs/other", "--s3-endpoint", r.srv.Endpoint, "--s3-path-style")
	if objs, _ := r.bucket.List(ctx, "other/"); code != 1 || len(objs) != 1 {
		t.Fatalf("init on a foreign prefix: exit %d, %d objects now: %s", code, len(objs), errOut)
	}
	t.Logf("init on a foreign prefix: %s", strings.TrimSpace(errOut))
	// a missing bucket is named
	code, _, errOut = runCmd(t, nil, "verify", "--data", "s3://nosuchbucket/x", "--s3-endpoint", r.srv.Endpoint, "--s3-path-style")
	if code != 1 || !strings.Contains(errOut, `bucket "nosuchbucket" does not exist`) {
		t.Fatalf("verify of a missing bucket: exit %d: %s", code, errOut)
	}
}

// personRows renders person's rows in id order as "id=name …".
func personRows(ctx context.Context, t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	rows, err := conn.Query(ctx, "SELECT id, name FROM person ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, fmt.Sprintf("%d=%s", id, name))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(parts, " ")
}
