package wire

import "time"

// settingsMemo holds the settings the connection reads around every
// statement (timeouts, transaction defaults, logging), decoded once per
// change of the session's settings (Settings.gen counts every change of
// what Get returns) instead of a case-folded multi-map lookup each — a
// prepared point lookup read about ten of them per execution.
type settingsMemo struct {
	valid bool
	gen   uint64

	statementTimeout, idleTimeout, idleInTxTimeout time.Duration
	minDuration                                    time.Duration // log_min_duration_statement; -1: off
	txDefaults                                     TxOptions
}

// memo returns the decoded settings, current for c.settings (nil before
// startup has created them).
func (c *conn) memo() *settingsMemo {
	m := &c.settingsMemo
	s := c.settings
	if s == nil {
		*m = settingsMemo{minDuration: -1}
		return m
	}
	if m.valid && m.gen == s.gen {
		return m
	}
	iso, _ := s.Get("default_transaction_isolation")
	ro, _ := s.Get("default_transaction_read_only")
	df, _ := s.Get("default_transaction_deferrable")
	*m = settingsMemo{valid: true, gen: s.gen,
		statementTimeout: s.Duration("statement_timeout"),
		idleTimeout:      s.Duration("idle_session_timeout"),
		idleInTxTimeout:  s.Duration("idle_in_transaction_session_timeout"),
		minDuration:      -1,
		txDefaults:       TxOptions{Isolation: iso, ReadOnly: ro == "on", Deferrable: df == "on"}}
	v, _ := s.Get("log_min_duration_statement")
	if ms, err := parseDurationMS(v); err == nil && ms >= 0 {
		m.minDuration = time.Duration(ms) * time.Millisecond
	}
	return m
}
