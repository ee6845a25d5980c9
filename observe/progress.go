package observe

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Progress is one long operation running in this process (COPY, a large
// write, a merge, cleanup, optimize) as pg_stat_progress_copy and
// graph.progress show it. The operation's own goroutine updates the
// counters; readers take snapshots (Running) at any time.
type Progress struct {
	id       uint64
	PID      int32  // session process id (0: not a session's)
	Database string // branch
	Command  string // "COPY FROM", "COPY TO", "MERGE", "CLEANUP", "OPTIMIZE", ...
	Relation string // table name ("" when the operation spans tables)
	Type     string // COPY's source or target: "PIPE" (the client) or "FILE"
	Started  time.Time

	phase                 atomic.Pointer[string]
	rows, bytes, excluded atomic.Int64
	totalRows, totalBytes atomic.Int64
	unitsDone, unitsTotal atomic.Int64
	lastNotice            atomic.Int64 // unix nanos of the last progress NOTICE
}

// ProgressSnapshot is a Progress read at one moment.
type ProgressSnapshot struct {
	PID                               int32
	Database, Command, Relation, Type string
	Phase                             string
	Started                           time.Time
	Rows, Bytes, Excluded             int64
	TotalRows, TotalBytes             int64 // 0: unknown
	UnitsDone, UnitsTotal             int64 // datasets, tables or files, by command
}

var progress struct {
	mu      sync.Mutex
	next    uint64
	running map[uint64]*Progress
}

// StartProgress registers p as running; call Done when it ends.
func StartProgress(p *Progress) *Progress {
	if p.Started.IsZero() {
		p.Started = time.Now()
	}
	progress.mu.Lock()
	defer progress.mu.Unlock()
	if progress.running == nil {
		progress.running = map[uint64]*Progress{}
	}
	progress.next++
	p.id = progress.next
	progress.running[p.id] = p
	return p
}

// Done removes p from the running operations.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	progress.mu.Lock()
	defer progress.mu.Unlock()
	delete(progress.running, p.id)
}

// SetPhase names what the operation is doing now.
func (p *Progress) SetPhase(phase string) {
	if p != nil {
		p.phase.Store(&phase)
	}
}

// AddRows counts rows processed (and excluded by a WHERE clause).
func (p *Progress) AddRows(n, excluded int64) {
	if p != nil {
		p.rows.Add(n)
		p.excluded.Add(excluded)
	}
}

// AddBytes counts bytes processed.
func (p *Progress) AddBytes(n int64) {
	if p != nil {
		p.bytes.Add(n)
	}
}

// SetTotals records the known totals (0: unknown).
func (p *Progress) SetTotals(rows, bytes int64) {
	if p != nil {
		p.totalRows.Store(rows)
		p.totalBytes.Store(bytes)
	}
}

// SetUnits records how many of the operation's units (datasets, tables)
// are done.
func (p *Progress) SetUnits(done, total int64) {
	if p != nil {
		p.unitsDone.Store(done)
		p.unitsTotal.Store(total)
	}
}

// NoticeDue reports whether a progress NOTICE is due at now given the
// session's interval (0: never), and if so marks it sent.
func (p *Progress) NoticeDue(now time.Time, interval time.Duration) bool {
	if p == nil || interval <= 0 {
		return false
	}
	stored := p.lastNotice.Load()
	last := stored
	if last == 0 {
		last = p.Started.UnixNano()
	}
	if now.UnixNano()-last < int64(interval) {
		return false
	}
	return p.lastNotice.CompareAndSwap(stored, now.UnixNano())
}

// Snapshot reads p's counters.
func (p *Progress) Snapshot() ProgressSnapshot {
	s := ProgressSnapshot{PID: p.PID, Database: p.Database, Command: p.Command, Relation: p.Relation, Type: p.Type, Started: p.Started,
		Rows: p.rows.Load(), Bytes: p.bytes.Load(), Excluded: p.excluded.Load(),
		TotalRows: p.totalRows.Load(), TotalBytes: p.totalBytes.Load(),
		UnitsDone: p.unitsDone.Load(), UnitsTotal: p.unitsTotal.Load()}
	if ph := p.phase.Load(); ph != nil {
		s.Phase = *ph
	}
	return s
}

// RunningProgress lists the running operations, oldest first.
func RunningProgress() []ProgressSnapshot {
	progress.mu.Lock()
	ps := make([]*Progress, 0, len(progress.running))
	for _, p := range progress.running {
		ps = append(ps, p)
	}
	progress.mu.Unlock()
	sort.Slice(ps, func(i, j int) bool { return ps[i].id < ps[j].id })
	out := make([]ProgressSnapshot, len(ps))
	for i, p := range ps {
		out[i] = p.Snapshot()
	}
	return out
}

// Message is the progress NOTICE text: command, relation, rows (and
// bytes), phase and elapsed time.
func (s ProgressSnapshot) Message() string {
	msg := s.Command
	if s.Relation != "" {
		msg += " " + s.Relation
	}
	msg += fmt.Sprintf(": %d rows", s.Rows)
	if s.Bytes > 0 {
		msg += fmt.Sprintf(", %d bytes", s.Bytes)
	}
	if s.Phase != "" {
		msg += ", " + s.Phase
	}
	return msg + fmt.Sprintf(" (%s)", time.Since(s.Started).Round(time.Second))
}
