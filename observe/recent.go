package observe

import (
	"sync"
	"time"
)

// The web console shows what an operator would otherwise grep the log
// for: the latest slow statements and the last cleanup. They are kept
// here, in memory and bounded, with the same content the log lines carry
// (no statement text or values, per this package's rule).

// SlowStatement is one statement that ran at least
// log_min_duration_statement.
type SlowStatement struct {
	Time        time.Time
	PID         int
	User        string
	Database    string
	Application string
	Kind        string // StatementKind
	Duration    time.Duration
	SQLState    string // "" when it succeeded
}

// CleanupRun is one cleanup run (graph.cleanup(), pgproxy cleanup).
type CleanupRun struct {
	Time         time.Time // when it ended
	Mode         string    // reclaim or dry_run
	Outcome      string    // ok or error
	DeletedFiles int
	DeletedBytes int64
	Duration     time.Duration
}

// recentSlowLimit bounds the slow-statement ring: enough for a page,
// small enough that a flood of slow statements costs nothing.
const recentSlowLimit = 100

var recent struct {
	mu          sync.Mutex
	slow        [recentSlowLimit]SlowStatement
	next, count int
	lastCleanup *CleanupRun
}

// NoteSlowStatement remembers s among the most recent slow statements.
func NoteSlowStatement(s SlowStatement) {
	recent.mu.Lock()
	defer recent.mu.Unlock()
	recent.slow[recent.next] = s
	recent.next = (recent.next + 1) % recentSlowLimit
	recent.count = min(recent.count+1, recentSlowLimit)
}

// RecentSlowStatements returns the remembered slow statements, newest
// first (at most 100).
func RecentSlowStatements() []SlowStatement {
	recent.mu.Lock()
	defer recent.mu.Unlock()
	out := make([]SlowStatement, 0, recent.count)
	for i := 1; i <= recent.count; i++ {
		out = append(out, recent.slow[(recent.next-i+recentSlowLimit)%recentSlowLimit])
	}
	return out
}

// LastCleanup returns the most recent cleanup run of this process (nil
// before the first).
func LastCleanup() *CleanupRun {
	recent.mu.Lock()
	defer recent.mu.Unlock()
	if recent.lastCleanup == nil {
		return nil
	}
	c := *recent.lastCleanup
	return &c
}

func noteCleanup(c CleanupRun) {
	recent.mu.Lock()
	defer recent.mu.Unlock()
	recent.lastCleanup = &c
}
