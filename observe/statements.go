package observe

import (
	"strings"
	"time"

	"github.com/pggraph/pggraph/pgerr"
	"github.com/prometheus/client_golang/prometheus"
)

var (
	statements = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "statements_total",
		Help: "Statements executed, by kind and outcome (SQLSTATE class; 00 is success).",
	}, []string{"kind", "sqlstate_class"}))
	statementSeconds = register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "statement_duration_seconds",
		Help:    "Statement latency from execution start to completion (rows sent included), by kind.",
		Buckets: secondsBuckets,
	}, []string{"kind"}))
	conflicts = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "conflicts_total",
		Help: "Statements that failed with a concurrency error (40001 serialization, 40P01 deadlock, 55P03 lock not available), by SQLSTATE and the statement kind that met it.",
	}, []string{"sqlstate", "cause"}))
)

// Statement kinds: a small fixed set, so no statement text reaches a
// label.
const (
	KindSelect   = "select"
	KindInsert   = "insert"
	KindUpdate   = "update"
	KindDelete   = "delete"
	KindMerge    = "merge"
	KindCopy     = "copy"
	KindDDL      = "ddl"
	KindBegin    = "begin"
	KindCommit   = "commit"
	KindRollback = "rollback"
	KindUtility  = "utility"
	KindOther    = "other"
)

// leadingKinds maps a statement's first keyword to its kind.
var leadingKinds = map[string]string{
	"select": KindSelect, "with": KindSelect, "values": KindSelect, "table": KindSelect, "explain": KindSelect,
	"insert": KindInsert, "update": KindUpdate, "delete": KindDelete, "merge": KindMerge, "copy": KindCopy,
	"create": KindDDL, "alter": KindDDL, "drop": KindDDL, "truncate": KindDDL, "comment": KindDDL, "grant": KindDDL, "revoke": KindDDL,
	"begin": KindBegin, "start": KindBegin,
	"commit": KindCommit, "end": KindCommit, "rollback": KindRollback, "abort": KindRollback,
	"savepoint": KindUtility, "release": KindUtility, "set": KindUtility, "reset": KindUtility, "show": KindUtility,
	"prepare": KindUtility, "execute": KindUtility, "deallocate": KindUtility, "discard": KindUtility,
	"declare": KindUtility, "fetch": KindUtility, "move": KindUtility, "close": KindUtility, "lock": KindUtility,
	"analyze": KindUtility, "vacuum": KindUtility, "listen": KindUtility, "notify": KindUtility, "unlisten": KindUtility,
}

// StatementKind classifies a statement by its first keyword (comments
// and parentheses skipped); unknown words are KindOther.
func StatementKind(sql string) string {
	s := sql
	for {
		s = strings.TrimLeft(s, " \t\r\n\f(")
		switch {
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return KindOther
			}
			s = s[i+1:]
			continue
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s, "*/")
			if i < 0 {
				return KindOther
			}
			s = s[i+2:]
			continue
		}
		break
	}
	end := 0
	for end < len(s) && end < 16 && (s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z') {
		end++
	}
	if k, ok := leadingKinds[strings.ToLower(s[:end])]; ok {
		return k
	}
	return KindOther
}

// SQLStateClass is the class (first two characters) of a SQLSTATE; ""
// (success) is class 00.
func SQLStateClass(code string) string {
	if len(code) < 2 {
		return "00"
	}
	return code[:2]
}

// IsConflict reports whether code is a concurrency failure a client is
// expected to retry: 40001 (serialization), 40P01 (deadlock), 55P03
// (lock not available).
func IsConflict(code string) bool {
	return code == pgerr.SerializationFailure || code == pgerr.DeadlockDetected || code == pgerr.LockNotAvailable
}

// StatementDone records one statement's outcome: its kind, its SQLSTATE
// ("" on success) and how long it ran.
func StatementDone(kind, code string, d time.Duration) {
	statements.WithLabelValues(kind, SQLStateClass(code)).Inc()
	statementSeconds.WithLabelValues(kind).Observe(d.Seconds())
	if IsConflict(code) {
		conflicts.WithLabelValues(code, kind).Inc()
	}
}
