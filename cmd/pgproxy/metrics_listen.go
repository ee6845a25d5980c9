package main

import (
	"errors"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/recovery"
	"github.com/pggraph/pggraph/wire"
)

// serveMetrics answers GET /metrics on ln (--metrics-listen) in the
// Prometheus text format until ln is closed.
func serveMetrics(ln net.Listener, reg *prometheus.Registry) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", observe.Handler(reg))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	_ = srv.Serve(ln)
}

// observeStorage reports every request to the graph root's store to
// observe (pggraph_storage_*).
func observeStorage(op objstore.Op, read, written int64, d time.Duration, err error) {
	outcome := observe.StorageOK
	switch {
	case err == nil:
	case errors.Is(err, objstore.ErrNotFound):
		outcome = observe.StorageNotFound
	case errors.Is(err, objstore.ErrExists):
		outcome = observe.StorageExists
	default:
		outcome = observe.StorageError
	}
	observe.StorageRequest(op.String(), outcome, read, written, d)
}

// metricsRegistry is the registry serve exposes: observe's instruments
// plus this server's sampled sources, read at each scrape.
func metricsRegistry(g *adapters.Graph, srv *wire.Server, backing objstore.Store, cfg *serveConfig) *prometheus.Registry {
	reg := observe.NewRegistry()
	var decisions []string
	for _, d := range []recovery.Decision{recovery.RolledForward, recovery.RolledBackDec, recovery.Converged, recovery.AlreadyRolled,
		recovery.OrphanedBranch, recovery.Refused, recovery.SkippedLive, recovery.Vanished, recovery.EmptyIntentDone} {
		decisions = append(decisions, string(d))
	}
	observe.KnownRecoveryDecisions(decisions...)
	counter := func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "pggraph", Name: name, Help: help}, f))
	}
	gauge := func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "pggraph", Name: name, Help: help}, f))
	}
	counter("commit_reprepares_total", "Commit attempts prepared again because a table they touch moved (transparent retries).",
		func() float64 { return float64(g.Stats().Reprepares) })
	counter("commit_contention_waits_total", "Commits that waited for a concurrent commit of the same tables before retrying.",
		func() float64 { return float64(g.Stats().ContentionWaits) })
	counter("commit_recovery_required_total", "Writes that failed into recovery (55000 to the client until recovery resolves them).",
		func() float64 { return float64(g.Stats().RecoveryRequired) })
	counter("commit_materialize_failures_total", "Post-commit materializations that failed (left to the next reader; never a client error).",
		func() float64 { return float64(g.Stats().MaterializeFailures) })
	counter("commit_groups_total", "Graph commits that carried more than one grouped autocommit write (group commit).",
		func() float64 { c, _ := g.GroupStats(); return float64(c) })
	counter("commit_group_members_total", "Writes carried by group commits (members / groups is the mean group size).",
		func() float64 { _, m := g.GroupStats(); return float64(m) })
	counter("optimize_runs_total", "Background compactions (automatic Optimize) started after commits left a table with many fragments.",
		func() float64 { r, _ := g.AutoOptimizeStats(); return float64(r) })
	counter("optimize_failures_total", "Background compactions that failed.",
		func() float64 { _, f := g.AutoOptimizeStats(); return float64(f) })
	gauge("query_memory_bytes", "Bytes all running statements hold in the server-wide memory account.",
		func() float64 { u, _ := exec.ServerMemoryUsed(); return float64(u) })
	gauge("query_memory_peak_bytes", "Highest value of pggraph_query_memory_bytes since start.",
		func() float64 { _, p := exec.ServerMemoryUsed(); return float64(p) })
	gauge("query_memory_budget_bytes", "The server-wide statement memory budget (--server-query-memory; 0 = none).",
		func() float64 { return float64(cfg.serverMemory) })
	gauge("memory_limit_bytes", "The Go heap's soft limit (--memory-limit or GOMEMLIMIT; compare with go_memstats_heap_inuse_bytes).",
		func() float64 { return float64(debug.SetMemoryLimit(-1)) })
	counter("spill_written_bytes_total", "Bytes sorts, aggregates and hash joins spilled to temporary files.",
		func() float64 { return float64(exec.SpillBytesWritten()) })
	gauge("transactions_open", "Sessions inside a transaction (an explicit block or a running statement).",
		func() float64 { n, _ := srv.OpenTransactions(); return float64(n) })
	gauge("transaction_oldest_age_seconds", "Age of the oldest open transaction (0 when none): long ones hold snapshots and row locks.",
		func() float64 { _, d := srv.OpenTransactions(); return d.Seconds() })
	// read caches, by cache: the committed-table cache always, the S3
	// backend's cache of immutable objects on an S3 root
	cache := func(name string, stats func() (hits, misses int64)) {
		labels := prometheus.Labels{"cache": name}
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "pggraph", Name: "cache_hits_total",
			Help: "Reads served by a cache, by cache.", ConstLabels: labels},
			func() float64 { h, _ := stats(); return float64(h) }))
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "pggraph", Name: "cache_misses_total",
			Help: "Reads a cache had to fetch, by cache.", ConstLabels: labels},
			func() float64 { _, m := stats(); return float64(m) }))
	}
	cache("tables", g.Root.TableCacheStats)
	if s3, ok := backing.(*objstore.S3); ok {
		cache("s3_immutable_reads", s3.CacheStats)
		cache("s3_disk", s3.DiskCacheStats)
	}
	return reg
}
