package seq

import (
	"fmt"
	"math"
)

// Spec is what the allocator needs to know about one sequence: its
// durable Key (unique for the sequence's lifetime, e.g. ddl.Sequence.Key),
// its SQL Name (for messages) and its current options.
type Spec struct {
	Key  string
	Name string
	Options
}

// Options are the sequence parameters (CREATE/ALTER SEQUENCE).
type Options struct {
	Start     int64
	Increment int64
	Min       int64
	Max       int64
	Cache     int64
	Cycle     bool
}

// DefaultOptions is a bigint sequence counting up from 1.
func DefaultOptions() Options {
	return Options{Start: 1, Increment: 1, Min: 1, Max: math.MaxInt64, Cache: 1}
}

// validate rejects options the allocator cannot work with.
func (s Spec) validate() error {
	if !validKey(s.Key) {
		return fmt.Errorf("%w: %q", ErrInvalidKey, s.Key)
	}
	if s.Increment == 0 || s.Min >= s.Max || s.Start < s.Min || s.Start > s.Max {
		return fmt.Errorf("%w: sequence %q: increment %d, range %d..%d, start %d", ErrInvalidOptions, s.Name, s.Increment, s.Min, s.Max, s.Start)
	}
	return nil
}

// validKey accepts keys safe as one object-key segment.
func validKey(k string) bool {
	if k == "" || len(k) > 128 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// step returns v+inc and whether it exists (no int64 overflow) and stays
// within [min, max].
func step(v, inc, min, max int64) (int64, bool) {
	if (inc > 0 && v > math.MaxInt64-inc) || (inc < 0 && v < math.MinInt64-inc) {
		return 0, false
	}
	n := v + inc
	return n, n >= min && n <= max
}

// fits reports how many values v, v+inc, … (at most want ≥ 1) stay
// within [min, max]; 0 when v itself is outside.
func fits(v, inc, min, max, want int64) int64 {
	if v < min || v > max {
		return 0
	}
	// Differences as uint64: exact for any v within [min, max].
	var room uint64
	if inc > 0 {
		room = (uint64(max) - uint64(v)) / uint64(inc)
	} else {
		room = (uint64(v) - uint64(min)) / (uint64(-(inc + 1)) + 1)
	}
	if room >= uint64(want-1) {
		return want
	}
	return int64(room) + 1
}
