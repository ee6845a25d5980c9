// Command s3testserver builds (once, cached) the S3-compatible server
// the tests start and prints its path. CI runs it while installing
// dependencies so the build is a step of its own, not hidden in the
// first test that needs the server (which would build it just the same).
package main

import (
	"fmt"
	"os"

	"github.com/pggraph/pggraph/internal/s3test"
)

func main() {
	bin, err := s3test.Binary()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s@%s: %s\n", s3test.Module, s3test.Version, bin)
}
