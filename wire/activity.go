package wire

import (
	"net"
	"sort"
	"strings"
	"time"
)

// Activity is one connection as pg_stat_activity shows it. Each
// connection records its own state: active with the query text when a
// Query or Execute starts, an idle state (by its transaction status) just
// before each ReadyForQuery, as PostgreSQL reports it; Server.activity
// reads every connection's record under its lock.
type Activity struct {
	PID             int32
	User            string
	Database        string
	ApplicationName string
	ClientAddr      string // "" for a Unix socket
	ClientPort      int32  // -1 for a Unix socket
	BackendStart    time.Time
	XactStart       time.Time // zero: no transaction
	QueryStart      time.Time // zero: no query yet
	StateChange     time.Time
	State           string // active, idle, idle in transaction, idle in transaction (aborted)
	Query           string
	// WaitEventType/WaitEvent: ClientRead while idle, as PostgreSQL
	// reports a backend waiting for its client.
	WaitEventType string
	WaitEvent     string
}

// activityState is what a conn records for pg_stat_activity (under
// conn.mu).
type activityState struct {
	app                                 string
	backendStart, xactStart, queryStart time.Time
	stateChange                         time.Time
	state, query                        string
}

// noteIdle records a statement boundary (ReadyForQuery): the connection
// waits for its client, in or out of a transaction. Called by the
// connection goroutine with c.mu held.
func (c *conn) noteIdle() {
	state := "idle"
	switch c.tx {
	case txBlock:
		state = "idle in transaction"
	case txFailed:
		state = "idle in transaction (aborted)"
	default:
		c.act.xactStart = time.Time{}
	}
	if c.settings != nil {
		if v, ok := c.settings.Get("application_name"); ok {
			c.act.app = v
		}
	}
	if c.act.state != state {
		c.act.state, c.act.stateChange = state, time.Now()
	}
}

// noteQuery records the start of a statement's execution.
func (c *conn) noteQuery(sql string) {
	now := time.Now()
	c.mu.Lock()
	c.act.query, c.act.queryStart = sql, now
	if c.act.xactStart.IsZero() {
		c.act.xactStart = now
	}
	if c.act.state != "active" {
		c.act.state, c.act.stateChange = "active", now
	}
	c.mu.Unlock()
}

// activity lists the server's connections that finished startup, by
// process id.
func (s *Server) activity() []Activity {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	out := make([]Activity, 0, len(conns))
	for _, c := range conns {
		c.mu.Lock()
		if !c.ready || c.closed {
			c.mu.Unlock()
			continue
		}
		a := Activity{PID: int32(c.pid), User: c.user, Database: c.database, ApplicationName: c.act.app,
			BackendStart: c.act.backendStart, XactStart: c.act.xactStart, QueryStart: c.act.queryStart,
			StateChange: c.act.stateChange, State: c.act.state, Query: c.act.query, ClientPort: -1}
		// an idle state is set at ReadyForQuery, before the connection
		// goroutine is back in its read (c.idle): it waits for the client
		// from then on, so a watcher that asks right after the client saw
		// ReadyForQuery sees ClientRead, as on PostgreSQL
		if c.idle || strings.HasPrefix(c.act.state, "idle") {
			a.WaitEventType, a.WaitEvent = "Client", "ClientRead"
		}
		c.mu.Unlock()
		if tcp, ok := c.raw.RemoteAddr().(*net.TCPAddr); ok {
			a.ClientAddr, a.ClientPort = tcp.IP.String(), int32(tcp.Port)
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}
