package planner

import (
	"iter"

	"github.com/pggraph/pggraph/exec"
)

// queryRunner is the coroutine (iter.Pull) a session's queries run in.
// It outlives one query: a query's batches are yielded as they come,
// then a nil batch marks its end and the coroutine waits for the next
// query. A coroutine is a goroutine, and a fresh one per statement
// started on the smallest stack and grew it (copying every frame) on
// each query: about a tenth of the CPU of a served point lookup. The
// session keeps one idle runner; a query that starts while another
// result is still open (a suspended portal) gets its own.
type queryRunner struct {
	next func() (*exec.Batch, bool)
	stop func()
	// job is the query to run on the next resume after an end marker
	// (set by start, taken by the coroutine).
	job func(yield func(*exec.Batch) bool)
	// inNext: a resume is in progress; still true afterwards means the
	// query panicked through next, which ended the coroutine.
	inNext bool
}

func newQueryRunner() *queryRunner {
	q := &queryRunner{}
	q.next, q.stop = iter.Pull(func(yield func(*exec.Batch) bool) {
		for {
			job := q.job
			q.job = nil
			if job == nil {
				return
			}
			job(yield)
			if !yield(nil) {
				return
			}
		}
	})
	return q
}

// resume runs the current query to its next batch; nil (with ok) is its
// end. ok=false: the coroutine has ended (stopped).
func (q *queryRunner) resume() (*exec.Batch, bool) {
	q.inNext = true
	b, ok := q.next()
	q.inNext = false
	return b, ok
}

// usable: the coroutine is parked at an end marker and can take a job.
func (q *queryRunner) usable() bool { return !q.inNext }

// takeRunner returns the session's idle runner, or a new one.
func (s *session) takeRunner() *queryRunner {
	if q := s.runner; q != nil {
		s.runner = nil
		return q
	}
	return newQueryRunner()
}

// returnRunner parks a runner whose query ended as the session's idle
// one, or stops it when there is one already (or the session closed).
func (s *session) returnRunner(q *queryRunner) {
	if s.runner == nil && !s.closed && q.usable() {
		s.runner = q
		return
	}
	q.stop()
}

// stopRunner ends the idle runner's coroutine (session close).
func (s *session) stopRunner() {
	if q := s.runner; q != nil {
		s.runner = nil
		q.stop()
	}
}
