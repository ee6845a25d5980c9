package pgtest

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestStartQueryStop(t *testing.T) {
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
