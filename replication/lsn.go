package replication

import (
	"fmt"
	"strconv"
	"strings"
)

// LSN is a position in the stream, printed as PostgreSQL prints
// pg_lsn ("%X/%X").
type LSN uint64

func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint32(l>>32), uint32(l)) }

// ParseLSN reads "%X/%X".
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || hi == "" || lo == "" || len(hi) > 8 || len(lo) > 8 {
		return 0, fmt.Errorf("invalid LSN %q", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid LSN %q", s)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid LSN %q", s)
	}
	return LSN(h<<32 | l), nil
}

// CommitLSN is the first position of the commit at manifest version v.
func CommitLSN(v uint64) LSN { return LSN(v << 32) }

// Version is the manifest version a position belongs to.
func (l LSN) Version() uint64 { return uint64(l) >> 32 }

// StartAfter is where a slot created at head version v starts: the
// first position after every commit up to v.
func StartAfter(v uint64) LSN { return CommitLSN(v + 1) }
