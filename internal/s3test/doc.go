// Package s3test runs a real S3-compatible server for tests: versitygw
// (the Versity S3 gateway) on its posix backend, serving a temporary
// directory on a free loopback port.
//
// The server is built from the Go module proxy with `go install
// <module>@<Version>` the first time a test needs it and cached under
// os.TempDir() keyed by version, so one CI run builds it once whatever
// the number of test binaries (a file lock serializes the build) and
// later runs on the same machine reuse it. Tests never skip for want of
// it: a failed build is a test failure naming the command. CI builds it
// up front (cmd/s3testserver, run by .ci/run) so the build is a visible
// step of its own.
//
// Version v1.8.0 is pinned because its posix backend checks and
// publishes a conditional PUT under a per-object lock held with flock,
// so conditional writes are atomic across goroutines and across two
// server processes on one directory; earlier releases checked, then
// published separately (racing If-None-Match PUTs could all succeed).
// The objstore tests verify this rather than trust it.
//
// Invariants: Stop kills only the process Start launched; every server
// has its own static root credentials (Server.AccessKey/SecretKey) and
// nothing outside its directory and the build cache is touched.
package s3test
