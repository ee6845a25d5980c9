package observe

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Row lock waits: where a transaction's time goes when it waits for a
// row another transaction of this process has changed or locked
// (docs/architecture.md, "Isolation and row-level concurrency"; across
// processes nothing waits: conflicts are 40001 at COMMIT).
var (
	rowLockWaitSeconds = register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "row_lock_wait_seconds",
		Help:    "Waits of statements for row and key locks held by other transactions of this process, by outcome (granted: the holder ended; timeout: lock_timeout, 55P03; canceled).",
		Buckets: secondsBuckets,
	}, []string{"outcome"}))
	rowLockReruns = register(prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "row_lock_reruns_total",
		Help: "Statements of explicit transactions run again after a row lock wait or a row changed since their snapshot (PostgreSQL's re-evaluation at READ COMMITTED).",
	}))
)

// Row lock wait outcomes.
const (
	LockGranted  = "granted"
	LockTimeout  = "timeout"
	LockCanceled = "canceled"
)

// Every outcome's series exists at 0 before the first wait, so the
// metric is served (and a rate over it starts) from the process's start.
func init() {
	for _, o := range []string{LockGranted, LockTimeout, LockCanceled} {
		rowLockWaitSeconds.WithLabelValues(o)
	}
}

// RowLockWait records one wait for a row or key lock and how it ended.
func RowLockWait(outcome string, d time.Duration) {
	rowLockWaitSeconds.WithLabelValues(outcome).Observe(d.Seconds())
}

// RowLockRerun records a statement run again after a lock wait.
func RowLockRerun() { rowLockReruns.Inc() }
