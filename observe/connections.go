package observe

import "github.com/prometheus/client_golang/prometheus"

var (
	connectionsOpen = register(prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "connections",
		Help: "Client connections currently open (accepted, startup included).",
	}))
	connections = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "connections_total",
		Help: "Client connections by startup outcome: established, auth_failed, refused (too many connections, shutting down, unknown branch), failed (protocol errors, client gone).",
	}, []string{"outcome"}))
)

// Connection outcomes.
const (
	ConnEstablished = "established"
	ConnAuthFailed  = "auth_failed"
	ConnRefused     = "refused"
	ConnFailed      = "failed"
)

// ConnectionOpened counts an accepted socket as open.
func ConnectionOpened() { connectionsOpen.Inc() }

// ConnectionClosed counts an accepted socket as closed.
func ConnectionClosed() { connectionsOpen.Dec() }

// ConnectionStarted records how a connection's startup ended.
func ConnectionStarted(outcome string) { connections.WithLabelValues(outcome).Inc() }
