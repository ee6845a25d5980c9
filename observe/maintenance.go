package observe

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	cleanupRuns = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "cleanup_runs_total",
		Help: "Cleanup runs (graph.cleanup(), pgproxy cleanup) by outcome (ok, error) and mode (reclaim, dry_run).",
	}, []string{"mode", "outcome"}))
	cleanupFiles = register(prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "cleanup_deleted_files_total",
		Help: "Unreachable files cleanup deleted.",
	}))
	cleanupBytes = register(prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "cleanup_deleted_bytes_total",
		Help: "Bytes of the unreachable files cleanup deleted.",
	}))
	cleanupSeconds = register(prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Name: "cleanup_duration_seconds",
		Help:    "Cleanup run time.",
		Buckets: secondsBuckets,
	}))
)

// CleanupDone records one cleanup run: files and bytes deleted (none in
// a dry run), how long it took and whether it failed.
func CleanupDone(dryRun bool, files int, bytes int64, d time.Duration, err error) {
	mode, outcome := "reclaim", "ok"
	if dryRun {
		mode = "dry_run"
	}
	if err != nil {
		outcome = "error"
	}
	cleanupRuns.WithLabelValues(mode, outcome).Inc()
	noteCleanup(CleanupRun{Time: time.Now(), Mode: mode, Outcome: outcome, DeletedFiles: files, DeletedBytes: bytes, Duration: d})
	cleanupSeconds.Observe(d.Seconds())
	if !dryRun {
		cleanupFiles.Add(float64(files))
		cleanupBytes.Add(float64(bytes))
	}
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
	}
	Logger().Log(bgCtx, level, "cleanup", slog.String("mode", mode), slog.String("outcome", outcome),
		slog.Int("deleted_files", files), slog.Int64("deleted_bytes", bytes), slog.Float64(FieldDuration, durationMS(d.Seconds())))
}
