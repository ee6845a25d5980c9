package exec

import "sync/atomic"

// Memory accounting. Every statement has a memBudget: the bytes its
// operators hold in buffers, hash tables, aggregate states and built
// values, checked against the statement's hard cap (Engine.MemoryLimit,
// 53200 past it). Operators that can spill (sort, hash aggregate, hash
// join build) also watch their own bytes against work_mem and move rows
// to disk instead of growing past it.
//
// The server-wide budget (SetServerMemoryBudget) adds every running
// statement's bytes into one process-wide account. A reservation that
// would take it past its limit fails the statement with 53200 (the
// process is never the one to run out); once it is three quarters full,
// spilling operators spill at once whatever their work_mem, so many
// sessions sorting at the same time go to disk before anyone fails.

// SharedBudget is a process-wide account of statement memory.
type SharedBudget struct {
	limit atomic.Int64
	used  atomic.Int64
	peak  atomic.Int64
}

// serverBudget is the process's account (limit 0: none).
var serverBudget SharedBudget

// SetServerMemoryBudget sets the bytes all running statements together
// may hold (0 = no server-wide limit).
func SetServerMemoryBudget(limit int64) { serverBudget.limit.Store(limit) }

// ServerMemoryUsed reports the bytes running statements hold now and the
// most they held at once since the process started.
func ServerMemoryUsed() (used, peak int64) {
	return serverBudget.used.Load(), serverBudget.peak.Load()
}

// memBudget accounts buffered bytes of one query.
type memBudget struct {
	limit int64 // <= 0: no per-statement cap
	used  atomic.Int64
	// shared is the server-wide account this statement also charges
	// (nil: none); charged counts what it charged there, released when
	// the statement ends.
	shared  *SharedBudget
	charged atomic.Int64
}

func (m *memBudget) reserve(n int64) error {
	if m == nil {
		return nil
	}
	used := m.used.Add(n)
	if m.limit > 0 && used > m.limit {
		return &Error{Code: CodeOutOfMemory, Message: "out of memory",
			Detail: "query exceeded its memory budget of " + itoa(m.limit) + " bytes",
			Hint:   "Reduce the amount of data the query sorts, groups, joins or materializes, or raise the memory budget."}
	}
	if s := m.shared; s != nil && n > 0 {
		lim := s.limit.Load()
		total := s.used.Add(n)
		m.charged.Add(n)
		if total > s.peak.Load() {
			s.peak.Store(total) // a racy maximum is good enough for a report
		}
		if lim > 0 && total > lim {
			return &Error{Code: CodeOutOfMemory, Message: "out of memory",
				Detail: "the server's memory budget for running queries (" + itoa(lim) + " bytes) is exhausted",
				Hint:   "Retry when fewer large queries run at once, or raise the server's memory budget."}
		}
	}
	return nil
}

func (m *memBudget) release(n int64) {
	if m == nil {
		return
	}
	m.used.Add(-n)
	if s := m.shared; s != nil && n > 0 {
		// never give back more than was charged (a release after the
		// statement's final settle)
		for {
			c := m.charged.Load()
			k := min(n, c)
			if k <= 0 {
				return
			}
			if m.charged.CompareAndSwap(c, c-k) {
				s.used.Add(-k)
				return
			}
		}
	}
}

// settle returns everything the statement still holds in the
// server-wide account (the statement ended).
func (m *memBudget) settle() {
	if m == nil || m.shared == nil {
		return
	}
	if c := m.charged.Swap(0); c > 0 {
		m.shared.used.Add(-c)
	}
}

// underPressure reports that the server-wide account is three quarters
// full: spilling operators should spill now.
func (m *memBudget) underPressure() bool {
	if m == nil || m.shared == nil {
		return false
	}
	lim := m.shared.limit.Load()
	return lim > 0 && m.shared.used.Load() > lim/4*3
}

// SpillBytesWritten reports the bytes ever written to spill files by this
// process (tests and the soak report read it).
func SpillBytesWritten() int64 { return spillBytesTotal.Load() }

// BatchBytes estimates the memory a batch's columns hold (the measure
// the budgets use).
func BatchBytes(b *Batch) int64 { return batchBytes(b) }
