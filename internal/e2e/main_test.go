package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pggraph/pggraph/internal/failpoint"
	"github.com/pggraph/pggraph/internal/pgtest"
)

// repoRoot is the repository root, relative to this package's directory
// (go test runs each package in its own source directory).
const repoRoot = "../.."

// pgproxyBin is the server binary built for this run by TestMain.
var pgproxyBin string

// TestMain builds cmd/pgproxy once, with this test binary's own race and
// failpoints settings, so every test talks to a real server process.
// Every test here drives a pgproxy process with PostgreSQL, psql or a
// Python, Node or Java client, so -short (make test-short) runs none of
// them and builds nothing; the full suite (make test) runs them all.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: -short skips the end-to-end tests (they need PostgreSQL 15, psql, Node, Java, Python)")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "pggraph-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		pgproxyBin = filepath.Join(dir, "pgproxy")
		javaClassesDir = dir
		args := []string{"build", "-o", pgproxyBin}
		if raceEnabled {
			args = append(args, "-race")
		}
		if failpoint.Compiled {
			args = append(args, "-tags", "failpoints")
		}
		args = append(args, "./cmd/pgproxy")
		build := exec.Command(goTool(), args...)
		build.Dir = repoRoot
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: building pgproxy (go %v): %v\n%s", args, err, out)
			return 1
		}
		defer pgtest.StopShared()
		return m.Run()
	}()
	os.Exit(code)
}

// goTool finds the go command: the one on PATH (make and .ci/run put
// the toolchain there), else $GOROOT's.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if p := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
