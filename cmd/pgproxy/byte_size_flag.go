package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/exec"
)

// byteSize is a flag holding a number of bytes. A bare number is bytes
// (as the flags always took); a number with one of PostgreSQL's memory
// units (B, kB, MB, GB, TB) is read as PostgreSQL reads work_mem, so
// `--query-memory 16MB` means what docs/operations.md writes.
type byteSize struct{ n *int64 }

func (b byteSize) String() string {
	if b.n == nil {
		return "0"
	}
	return strconv.FormatInt(*b.n, 10)
}

func (b byteSize) Set(s string) error {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*b.n = n
		return nil
	}
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) == 0 {
		return fmt.Errorf("%q is not a size (bytes, or a number with kB, MB, GB or TB)", s)
	}
	n, ok := exec.ParseMemorySetting(s)
	if !ok {
		return fmt.Errorf("%q is not a size (bytes, or a number with kB, MB, GB or TB)", s)
	}
	*b.n = n
	return nil
}
