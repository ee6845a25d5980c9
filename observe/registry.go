package observe

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric of the project.
const namespace = "pggraph"

// instruments are the package-level collectors every registry exposes.
var instruments []prometheus.Collector

// register adds c to the instruments and returns it.
func register[C prometheus.Collector](c C) C {
	instruments = append(instruments, c)
	return c
}

// NewRegistry returns a registry holding every package-level instrument
// and the Go runtime and process collectors. Callers add the sampled
// sources of their server (Sources) before serving it.
func NewRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, c := range instruments {
		r.MustRegister(c)
	}
	return r
}

// Handler serves r in the Prometheus text exposition format.
func Handler(r *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(r, promhttp.HandlerOpts{Registry: r})
}

// secondsBuckets are latency buckets from 100µs to about 100s: a point
// read on a local disk and a multi-gigabyte COPY fall in the same
// histogram's range.
var secondsBuckets = prometheus.ExponentialBuckets(0.0001, 4, 11)
