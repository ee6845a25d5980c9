package pgtest

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestStartQueryStop(t *testing.T) {
	SkipShort(t, "PostgreSQL 15")
	ctx := context.Background()
	s, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	conn, err := s.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v, "15.") {
		t.Fatalf("server_version %q, want 15.x", v)
	}
	var tz string
	if err := conn.QueryRow(ctx, "SHOW TimeZone").Scan(&tz); err != nil || tz != "UTC" {
		t.Fatalf("TimeZone %q (%v), want UTC", tz, err)
	}
}

func TestMissingInstallNamesPackages(t *testing.T) {
	old := BinDirs
	BinDirs = []string{t.TempDir()}
	defer func() { BinDirs = old }()
	_, err := Start(context.Background())
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "postgresql-15") {
		t.Fatalf("got %v, want ErrNotInstalled naming the packages", err)
	}
}

// TestOptionsShapeTheCluster checks that Durable turns PostgreSQL's
// durability settings back on, that the zero value keeps them off, and
// that Parent places the cluster.
func TestOptionsShapeTheCluster(t *testing.T) {
	SkipShort(t, "PostgreSQL 15")
	ctx := context.Background()
	parent := t.TempDir()
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		opts    Options
		want    map[string]string
		inParen bool
	}{
		{"test", Options{}, map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "shared_buffers": "64MB", "max_connections": "20"}, false},
		{"durable", Options{Durable: true, Parent: parent, SharedBuffers: "32MB", MaxConnections: 30},
			map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "shared_buffers": "32MB", "max_connections": "30"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := StartWith(ctx, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop()
			if got := strings.HasPrefix(s.Dir, parent); got != c.inParen && traversable(parent) {
				t.Fatalf("cluster dir %s under %s = %v, want %v", s.Dir, parent, got, c.inParen)
			}
			conn, err := s.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			for name, want := range c.want {
				var got string
				if err := conn.QueryRow(ctx, "SHOW "+name).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}
