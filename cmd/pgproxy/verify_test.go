package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitVerifyRecover(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g")
	code, out, errOut := runCmd(t, nil, "init", "--data", dir)
	if code != 0 || !strings.Contains(out, "initialized graph root") {
		t.Fatalf("init: %d %q %q", code, out, errOut)
	}
	code, out, _ = runCmd(t, map[string]string{"PGGRAPH_DATA": dir}, "init")
	if code != 0 || !strings.Contains(out, "already initialized") {
		t.Fatalf("second init via env: %d %q", code, out)
	}
	code, out, _ = runCmd(t, nil, "verify", "--data", dir)
	if code != 0 || !strings.Contains(out, "stamp ok") {
		t.Fatalf("verify: %d %q", code, out)
	}
	code, out, _ = runCmd(t, nil, "recover", "--data", dir)
	if code != 0 || !strings.Contains(out, "nothing to recover") {
		t.Fatalf("recover: %d %q", code, out)
	}
	// A sidecar makes verify fail and recover refuse, untouched.
	side := filepath.Join(dir, "__recovery", "01J.json")
	_ = os.MkdirAll(filepath.Dir(side), 0o755)
	_ = os.WriteFile(side, []byte("{}"), 0o644)
	if code, _, e := runCmd(t, nil, "verify", "--data", dir); code != 1 || !strings.Contains(e, "pending recovery") {
		t.Fatalf("verify with sidecar: %d %q", code, e)
	}
	if code, _, e := runCmd(t, nil, "recover", "--data", dir); code != 1 || !strings.Contains(e, "left untouched") {
		t.Fatalf("recover with sidecar: %d %q", code, e)
	}
	if _, err := os.Stat(side); err != nil {
		t.Fatal("recover removed a sidecar it could not resolve")
	}
}
