package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// pgjdbcJar is Debian's pgjdbc (libpostgresql-jdbc-java).
const pgjdbcJar = "/usr/share/java/postgresql.jar"

const javaInstall = "apt-get install -y openjdk-17-jdk-headless libpostgresql-jdbc-java"

// The Java clients under testdata/clients are compiled once per test
// binary with javac, not by the java launcher's source mode on every
// run: each run of `java X.java` compiled its source again, seconds of
// CPU per client run that made TestJdbcMetadata (two runs) exceed its
// budget on a loaded -race CI machine.
var java struct {
	once sync.Once
	dir  string
	out  []byte
	err  error
}

// javaClassesDir is set by TestMain: where the classes are compiled to
// (removed when the run ends).
var javaClassesDir string

// javaArgv is the command line running the client class (the name of a
// testdata/clients/*.java file without its extension).
func javaArgv(t *testing.T, class string) []string {
	t.Helper()
	java.once.Do(func() {
		srcs, err := filepath.Glob("testdata/clients/*.java")
		if err != nil || len(srcs) == 0 {
			java.err = err
			return
		}
		java.dir = filepath.Join(javaClassesDir, "java")
		if java.err = os.MkdirAll(java.dir, 0o755); java.err != nil {
			return
		}
		args := append([]string{"-cp", pgjdbcJar, "-d", java.dir}, srcs...)
		java.out, java.err = exec.Command("javac", args...).CombinedOutput()
	})
	if java.err != nil {
		t.Fatalf("javac testdata/clients/*.java: %v (install with: %s)\n%s", java.err, javaInstall, java.out)
	}
	return []string{"java", "-cp", java.dir + string(os.PathListSeparator) + pgjdbcJar, class}
}
