package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"github.com/pggraph/pggraph/exec"
)

// serveDebug answers on ln (--debug-listen, a loopback address for
// operators and the soak bench): /debug/pprof/ (Go's profiles and execution trace) and
// /debug/stats, a JSON object of the process's goroutines, Go heap and
// statement memory (the server-wide account and spill bytes). It stops
// when ln is closed.
func serveDebug(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace) // wall-time analysis: go tool trace
	mux.HandleFunc("/debug/stats", func(w http.ResponseWriter, _ *http.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		used, peak := exec.ServerMemoryUsed()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(debugStats{
			Goroutines: runtime.NumGoroutine(), HeapInuse: ms.HeapInuse, HeapSys: ms.HeapSys,
			QueryMemoryUsed: used, QueryMemoryPeak: peak, SpillBytes: exec.SpillBytesWritten(),
		})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	_ = srv.Serve(ln)
}

// debugStats is /debug/stats.
type debugStats struct {
	Goroutines      int    `json:"goroutines"`
	HeapInuse       uint64 `json:"heap_inuse"`
	HeapSys         uint64 `json:"heap_sys"`
	QueryMemoryUsed int64  `json:"query_memory_used"`
	QueryMemoryPeak int64  `json:"query_memory_peak"`
	SpillBytes      int64  `json:"spill_bytes"`
}
