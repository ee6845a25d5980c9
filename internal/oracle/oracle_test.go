package oracle

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRoundTrip proves the harness itself: create, append, delete, read at
// versions, tags.
func TestRoundTrip(t *testing.T) {
	root := t.TempDir()
	cols := []Column{{Name: "id", Type: "int64"}, {Name: "s", Type: "string", Nullable: true}}
	Create(t, root, "t", cols, []Row{{"id": "1", "s": "a"}, {"id": "2", "s": nil}})
	Append(t, root, "t", []Row{{"id": "3", "s": "c"}})
	Delete(t, root, "t", "id = 1")
	d := Read(t, root, "t")
	if d.Version != 3 || len(d.Rows) != 2 || d.Rows[0]["id"] != "2" || d.Rows[0]["s"] != nil || d.Rows[1]["s"] != "c" {
		t.Fatalf("latest: %+v", d)
	}
	if v1 := Read(t, root, "t", AtVersion(1)); len(v1.Rows) != 2 {
		t.Fatalf("v1: %+v", v1)
	}
	CreateTag(t, root, "t", "two", 2)
	if tags := Tags(t, root, "t"); tags["two"].Version != 2 || tags["two"].ManifestSize == 0 {
		t.Fatalf("tags: %+v", tags)
	}
	if d2 := Read(t, root, "t", AtTag("two")); len(d2.Rows) != 3 {
		t.Fatalf("tag: %+v", d2)
	}
	if vs := Versions(t, root, "t"); len(vs) != 3 {
		t.Fatalf("versions: %+v", vs)
	}
	if m, _ := filepath.Glob(filepath.Join(root, "t.lance", "data", "*.lance")); len(m) != 2 {
		t.Fatalf("data files: %v", m)
	}
}

// fatalRecorder is a testing.TB whose Fatalf records the message and stops
// the calling goroutine, as the real one does.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestMissingInstallFails: without node_modules the oracle fails the test
// and names the install command; it never skips.
func TestMissingInstallFails(t *testing.T) {
	saved, savedShort := modulesDir, short
	modulesDir, short = t.TempDir(), func() bool { return false }
	defer func() { modulesDir, short = saved, savedShort }()
	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(rec, "versions", t.TempDir(), "t")
	}()
	<-done
	if !strings.Contains(rec.msg, InstallCommand) {
		t.Fatalf("message %q does not name %q", rec.msg, InstallCommand)
	}
}
