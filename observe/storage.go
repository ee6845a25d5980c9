package observe

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	storageRequests = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "storage_requests_total",
		Help: "Object store requests by operation and outcome (ok, not_found, exists, error).",
	}, []string{"op", "outcome"}))
	storageReadBytes = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "storage_read_bytes_total",
		Help: "Payload bytes read from the object store, by operation.",
	}, []string{"op"}))
	storageWrittenBytes = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "storage_written_bytes_total",
		Help: "Payload bytes written to the object store, by operation.",
	}, []string{"op"}))
	storageSeconds = register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "storage_request_duration_seconds",
		Help:    "Object store request latency, by operation (a local put includes its fsyncs).",
		Buckets: secondsBuckets,
	}, []string{"op"}))
)

// Storage outcomes.
const (
	StorageOK       = "ok"
	StorageNotFound = "not_found"
	StorageExists   = "exists"
	StorageError    = "error"
)

// StorageRequest records one object store request.
func StorageRequest(op, outcome string, read, written int64, d time.Duration) {
	storageRequests.WithLabelValues(op, outcome).Inc()
	if read > 0 {
		storageReadBytes.WithLabelValues(op).Add(float64(read))
	}
	if written > 0 {
		storageWrittenBytes.WithLabelValues(op).Add(float64(written))
	}
	storageSeconds.WithLabelValues(op).Observe(d.Seconds())
}
