package oracle

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// InstallCommand is what CI and developers run to install the oracle.
const InstallCommand = "npm ci --prefix internal/oracle"

// Dir is the directory holding oracle.js and node_modules.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// modulesDir is where the pinned packages must be installed (a variable so
// the test of the "not installed" path can point it elsewhere).
var modulesDir = filepath.Join(Dir(), "node_modules")

// Ready reports whether node and the pinned packages are installed.
func Ready() error {
	if _, err := exec.LookPath("node"); err != nil {
		return err
	}
	_, err := os.Stat(filepath.Join(modulesDir, "@lancedb", "lancedb", "package.json"))
	return err
}

// Run executes `node oracle.js args...` and returns its stdout. Any failure
// (oracle not installed, non-zero exit) fails the test; in -short mode
// (make test-short, which runs no Node) the test skips instead.
func Run(t testing.TB, args ...string) []byte {
	t.Helper()
	SkipShort(t)
	if err := Ready(); err != nil {
		t.Fatalf("the Lance oracle is not installed (%v): run `%s` from the repository root", err, InstallCommand)
	}
	cmd := exec.Command("node", append([]string{filepath.Join(Dir(), "oracle.js")}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("oracle %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

// short reports -short mode (a variable so the test of the "not
// installed" path runs in either mode).
var short = testing.Short

// SkipShort skips a test that needs the oracle in -short mode.
func SkipShort(t testing.TB) {
	t.Helper()
	if short() {
		t.Skip("-short: needs node and the Lance oracle")
	}
}

// Column describes one column for Create: Type is a Lance logical type
// string, or "list:<inner>".
type Column struct {
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Nullable bool              `json:"nullable"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Row is one row in the oracle's JSON convention.
type Row map[string]any

// Create makes dataset root/table.lance from rows with the official Lance.
// Extra arguments are passed through (e.g. "--storage-version", "2.1").
func Create(t testing.TB, root, table string, cols []Column, rows []Row, extra ...string) {
	t.Helper()
	dir := t.TempDir()
	sp := writeJSON(t, dir, "schema.json", cols)
	rp := writeJSON(t, dir, "rows.json", rows)
	Run(t, append([]string{"create", root, table, sp, rp}, extra...)...)
}

// Append adds rows to root/table.lance with the official Lance.
func Append(t testing.TB, root, table string, rows []Row) {
	t.Helper()
	rp := writeJSON(t, t.TempDir(), "rows.json", rows)
	Run(t, "append", root, table, rp)
}

// Delete deletes the rows matching a SQL predicate.
func Delete(t testing.TB, root, table, predicate string) {
	t.Helper()
	Run(t, "delete", root, table, predicate)
}

// Dump is what Read returns.
type Dump struct {
	Schema []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Nullable bool   `json:"nullable"`
	} `json:"schema"`
	Rows    []Row `json:"rows"`
	Version int   `json:"version"`
}

// ReadOption selects what Read checks out.
type ReadOption []string

// AtVersion reads an older version.
func AtVersion(v int) ReadOption { return ReadOption{"--version", strconv.Itoa(v)} }

// AtTag reads the version a tag names.
func AtTag(tag string) ReadOption { return ReadOption{"--tag", tag} }

// OnBranch reads a branch.
func OnBranch(b string) ReadOption { return ReadOption{"--branch", b} }

// Read scans root/table.lance with the official Lance.
func Read(t testing.TB, root, table string, opts ...ReadOption) Dump {
	t.Helper()
	args := []string{"read", root, table}
	for _, o := range opts {
		args = append(args, o...)
	}
	var d Dump
	if err := json.Unmarshal(Run(t, args...), &d); err != nil {
		t.Fatalf("oracle read output: %v", err)
	}
	return d
}

// Version is one entry of Versions.
type Version struct {
	Version   int    `json:"version"`
	Timestamp string `json:"timestamp"`
}

// Versions lists the dataset's versions.
func Versions(t testing.TB, root, table string) []Version {
	t.Helper()
	var vs []Version
	if err := json.Unmarshal(Run(t, "versions", root, table), &vs); err != nil {
		t.Fatalf("oracle versions output: %v", err)
	}
	return vs
}

// CreateTag tags a version.
func CreateTag(t testing.TB, root, table, tag string, version int) {
	t.Helper()
	Run(t, "tag-create", root, table, tag, strconv.Itoa(version))
}

// Tag is one entry of Tags.
type Tag struct {
	Version      int `json:"version"`
	ManifestSize int `json:"manifestSize"`
}

// Tags lists the dataset's tags.
func Tags(t testing.TB, root, table string) map[string]Tag {
	t.Helper()
	var m map[string]Tag
	if err := json.Unmarshal(Run(t, "tags", root, table), &m); err != nil {
		t.Fatalf("oracle tags output: %v", err)
	}
	return m
}

func writeJSON(t testing.TB, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
