package wire

import (
	"strings"
	"unicode/utf8"
)

// ParseUtility splits sql into statements and classifies the utility
// statements wire executes itself (transaction control, SET/SHOW/RESET,
// set_config/current_setting in their plain SELECT form, COPY framing,
// DISCARD). Everything else is KindQuery, left to the session layer. It is
// the Parse of sessions that have no SQL parser, and a helper for those that
// do: the SQL layer may call it and replace the KindQuery statements.
func ParseUtility(sql string) ([]*Statement, error) {
	parts, err := splitStatements(sql)
	if err != nil {
		return nil, err
	}
	out := make([]*Statement, 0, len(parts))
	for _, p := range parts {
		st, err := ClassifyStatement(p.text)
		if err != nil {
			// positions count from the start of the whole query string
			if e, ok := err.(*Error); ok && e.Position > 0 {
				e.Position += int32(utf8.RuneCountInString(sql[:p.off]))
			}
			return nil, err
		}
		st.Offset = utf8.RuneCountInString(sql[:p.off])
		out = append(out, st)
	}
	return out, nil
}

// ClassifyStatement classifies one statement text (see ParseUtility).
func ClassifyStatement(sql string) (*Statement, error) {
	toks, lerr := lex(sql)
	if lerr != nil {
		return nil, lexErrorAt(sql, lerr)
	}
	// A trailing semicolon may be present when called directly.
	for len(toks) > 0 && toks[len(toks)-1].kind == tokSemi {
		toks = toks[:len(toks)-1]
	}
	p := &uparser{sql: sql, toks: toks}
	st := &Statement{SQL: strings.TrimRight(strings.TrimSpace(sql), ";"), Kind: KindQuery}
	if len(toks) == 0 {
		return st, nil
	}
	if err := p.classify(st); err != nil {
		return nil, err
	}
	return st, nil
}

type uparser struct {
	sql  string
	toks []token
	i    int
}

func (p *uparser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return token{kind: tokSemi, pos: len(p.sql)}
}

func (p *uparser) done() bool { return p.i >= len(p.toks) }

// kw consumes the keyword w if it is next.
func (p *uparser) kw(w string) bool {
	t := p.peek()
	if t.kind == tokIdent && t.text == w {
		p.i++
		return true
	}
	return false
}

func (p *uparser) punct(s string) bool {
	t := p.peek()
	if t.kind == tokPunct && t.text == s {
		p.i++
		return true
	}
	return false
}

func (p *uparser) errHere(msg string) *Error {
	t := p.peek()
	if p.done() {
		return syntaxErrorAt(p.sql, len(p.sql), "syntax error at end of input")
	}
	if msg == "" {
		msg = "syntax error at or near \"" + p.sql[t.pos:t.pos+len(tokenSource(p.sql, t))] + "\""
	}
	return syntaxErrorAt(p.sql, t.pos, msg)
}

// tokenSource approximates the source text of t for error messages.
func tokenSource(sql string, t token) string {
	rest := sql[t.pos:]
	switch t.kind {
	case tokIdent, tokNumber, tokParam, tokPunct:
		j := 1
		for j < len(rest) && (isIdentChar(rest[j]) || t.kind == tokNumber && rest[j] == '.') {
			j++
		}
		if t.kind == tokPunct {
			j = len(t.text)
		}
		return rest[:j]
	default:
		return rest[:1]
	}
}

// name reads an identifier (plain or quoted).
func (p *uparser) name() (string, bool) {
	t := p.peek()
	if t.kind == tokIdent || t.kind == tokQIdent {
		p.i++
		return t.text, true
	}
	return "", false
}

// dottedName reads name(.name)*.
func (p *uparser) dottedName() (string, bool) {
	n, ok := p.name()
	if !ok {
		return "", false
	}
	for p.punct(".") {
		m, ok := p.name()
		if !ok {
			return "", false
		}
		n += "." + m
	}
	return n, true
}

func (p *uparser) classify(st *Statement) error {
	first := p.peek()
	if first.kind != tokIdent {
		return nil
	}
	switch first.text {
	case "begin":
		p.i++
		if !p.kw("work") {
			p.kw("transaction")
		}
		st.Kind = KindBegin
		return p.txModes(&st.Tx)
	case "start":
		p.i++
		if !p.kw("transaction") {
			return p.errHere("")
		}
		st.Kind = KindBegin
		return p.txModes(&st.Tx)
	case "commit", "end":
		p.i++
		if first.text == "commit" && p.kw("prepared") {
			st.Kind = KindPrepareTxn
			return nil
		}
		st.Kind = KindCommit
		return p.txEnd(st)
	case "abort", "rollback":
		p.i++
		if first.text == "rollback" && p.kw("prepared") {
			st.Kind = KindPrepareTxn
			return nil
		}
		if !p.kw("work") {
			p.kw("transaction")
		}
		if p.kw("to") {
			p.kw("savepoint")
			n, ok := p.name()
			if !ok || !p.done() {
				return p.errHere("")
			}
			st.Kind, st.Savepoint = KindRollbackTo, n
			return nil
		}
		st.Kind = KindRollback
		return p.txEnd(st)
	case "savepoint":
		p.i++
		n, ok := p.name()
		if !ok || !p.done() {
			return p.errHere("")
		}
		st.Kind, st.Savepoint = KindSavepoint, n
	case "release":
		p.i++
		p.kw("savepoint")
		n, ok := p.name()
		if !ok || !p.done() {
			return p.errHere("")
		}
		st.Kind, st.Savepoint = KindRelease, n
	case "prepare":
		if len(p.toks) > 1 && p.toks[1].kind == tokIdent && p.toks[1].text == "transaction" {
			st.Kind = KindPrepareTxn
		}
	case "set":
		p.i++
		return p.set(st)
	case "reset":
		p.i++
		st.Kind = KindReset
		name, err := p.settingName()
		if err != nil {
			return err
		}
		st.Setting.Name = name
		if !p.done() {
			return p.errHere("")
		}
	case "show":
		p.i++
		st.Kind = KindShow
		name, err := p.settingName()
		if err != nil {
			return err
		}
		st.Setting.Name = name
		if !p.done() {
			return p.errHere("")
		}
	case "discard":
		p.i++
		n, ok := p.name()
		if !ok || !p.done() {
			return p.errHere("")
		}
		if n == "all" {
			st.Kind = KindDiscard
		}
	case "deallocate":
		p.i++
		p.kw("prepare")
		st.Kind = KindDeallocate
		if p.kw("all") {
			return p.end()
		}
		n, ok := p.name()
		if !ok {
			return p.errHere("")
		}
		st.Prepared = n
		return p.end()
	case "copy":
		return p.copy(st)
	case "select":
		p.selectSetting(st)
	}
	return nil
}

// settingName reads the target of SHOW/RESET, including the multi-word
// forms (TIME ZONE, TRANSACTION ISOLATION LEVEL, SESSION AUTHORIZATION).
func (p *uparser) settingName() (string, error) {
	switch {
	case p.kw("time"):
		if !p.kw("zone") {
			return "time", nil // a (nonexistent) parameter named time
		}
		return "timezone", nil
	case p.kw("transaction"):
		if p.kw("isolation") && p.kw("level") {
			return "transaction_isolation", nil
		}
		return "", p.errHere("")
	case p.kw("session"):
		if p.kw("authorization") {
			return "session_authorization", nil
		}
		return "", p.errHere("")
	}
	n, ok := p.dottedName()
	if !ok {
		return "", p.errHere("")
	}
	return strings.ToLower(n), nil
}

func (p *uparser) txEnd(st *Statement) error {
	if !p.kw("work") {
		p.kw("transaction")
	}
	if p.kw("and") {
		no := p.kw("no")
		if !p.kw("chain") {
			return p.errHere("")
		}
		st.Chain = !no
	}
	if !p.done() {
		return p.errHere("")
	}
	return nil
}

// txModes reads transaction_mode [, ...].
func (p *uparser) txModes(o *TxOptions) error {
	for !p.done() {
		switch {
		case p.kw("isolation"):
			if !p.kw("level") {
				return p.errHere("")
			}
			switch {
			case p.kw("serializable"):
				o.Isolation = "serializable"
			case p.kw("repeatable"):
				if !p.kw("read") {
					return p.errHere("")
				}
				o.Isolation = "repeatable read"
			case p.kw("read"):
				switch {
				case p.kw("committed"):
					o.Isolation = "read committed"
				case p.kw("uncommitted"):
					o.Isolation = "read uncommitted"
				default:
					return p.errHere("")
				}
			default:
				return p.errHere("")
			}
		case p.kw("read"):
			switch {
			case p.kw("only"):
				o.ReadOnly, o.ReadWrite = true, false
			case p.kw("write"):
				o.ReadOnly, o.ReadWrite = false, true
			default:
				return p.errHere("")
			}
		case p.kw("deferrable"):
			o.Deferrable = true
		case p.kw("not"):
			if !p.kw("deferrable") {
				return p.errHere("")
			}
			o.Deferrable = false
		default:
			return p.errHere("")
		}
		p.punct(",")
	}
	return nil
}

func (p *uparser) set(st *Statement) error {
	st.Kind = KindSet
	if p.i+1 < len(p.toks) && p.toks[p.i].text == "session" && p.toks[p.i+1].kind == tokIdent && p.toks[p.i+1].text == "authorization" {
		p.i += 2 // SET SESSION AUTHORIZATION (no scope qualifier)
		return p.sessionAuthorization(st)
	}
	if p.kw("local") {
		st.Setting.Local = true
	} else {
		p.kw("session")
	}
	switch {
	case p.kw("transaction"):
		if p.kw("snapshot") {
			st.Kind = KindQuery
			return nil
		}
		st.Setting.Name = "transaction"
		st.Setting.Local = true
		return p.txModes(&st.Tx)
	case p.kw("characteristics"):
		if !p.kw("as") || !p.kw("transaction") {
			return p.errHere("")
		}
		st.Setting.Name = "session characteristics"
		return p.txModes(&st.Tx)
	case p.kw("time"):
		if !p.kw("zone") {
			return p.errHere("")
		}
		st.Setting.Name = "timezone"
		if p.kw("local") || p.kw("default") {
			st.Setting.Default = true
			return p.end()
		}
		if p.kw("interval") { // SET TIME ZONE INTERVAL '+1:00' HOUR TO MINUTE
			t := p.peek()
			if t.kind != tokString {
				return p.errHere("")
			}
			v, err := zoneFromInterval(t.text)
			if err != nil {
				return err
			}
			st.Setting.Value = v
			p.i = len(p.toks)
			return nil
		}
		return p.setValues(st) // a number: hours east (normTimeZone)
	case p.kw("names"):
		st.Setting.Name = "client_encoding"
		if p.kw("default") {
			st.Setting.Default = true
			return p.end()
		}
		return p.setValues(st)
	case p.kw("schema"):
		st.Setting.Name = "search_path"
		return p.setValues(st)
	case p.kw("role"):
		st.Setting.Name = "role"
		return p.setValues(st)
	case p.kw("constraints"):
		st.Kind = KindQuery
		return nil
	}
	if p.kw("session") {
		if !p.kw("authorization") {
			return p.errHere("")
		}
		return p.sessionAuthorization(st)
	}
	n, ok := p.dottedName()
	if !ok {
		return p.errHere("")
	}
	st.Setting.Name = strings.ToLower(n)
	if !p.kw("to") && !p.punct("=") {
		return p.errHere("")
	}
	if p.kw("default") {
		st.Setting.Default = true
		return p.end()
	}
	return p.setValues(st)
}

func (p *uparser) sessionAuthorization(st *Statement) error {
	st.Setting.Name = "session_authorization"
	if p.kw("default") {
		st.Setting.Default = true
		return p.end()
	}
	return p.setValues(st)
}

func (p *uparser) end() error {
	if !p.done() {
		return p.errHere("")
	}
	return nil
}

// setValues reads var_value [, ...] and joins it the way PostgreSQL's
// flatten_set_variable_args does: list items with ", ", identifiers quoted
// only when they would need it for list settings.
func (p *uparser) setValues(st *Statement) error {
	var vals []string
	for {
		t := p.peek()
		neg := false
		if t.kind == tokPunct && (t.text == "-" || t.text == "+") {
			neg = t.text == "-"
			p.i++
			t = p.peek()
			if t.kind != tokNumber {
				return p.errHere("")
			}
		}
		switch t.kind {
		case tokString, tokNumber, tokIdent:
			v := t.text
			if neg {
				v = "-" + v
			}
			vals = append(vals, v)
		case tokQIdent:
			if st.Setting.Name == "search_path" {
				vals = append(vals, quoteIdentIfNeeded(t.text))
			} else {
				vals = append(vals, t.text)
			}
		default:
			return p.errHere("")
		}
		p.i++
		if !p.punct(",") {
			break
		}
	}
	st.Setting.Value = strings.Join(vals, ", ")
	return p.end()
}

func quoteIdentIfNeeded(s string) string {
	ok := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if ok {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// selectSetting recognizes the plain function-call forms
// SELECT [pg_catalog.]set_config('name', 'value', bool) and
// SELECT [pg_catalog.]current_setting('name' [, bool]) (no FROM, no other
// select items), which pg_dump scripts and drivers send. Anything more
// complex stays a KindQuery for the SQL layer.
func (p *uparser) selectSetting(st *Statement) {
	save := p.i
	defer func() {
		if st.Kind == KindQuery {
			p.i = save
		}
	}()
	p.i++ // select
	if p.kw("pg_catalog") && !p.punct(".") {
		return
	}
	fn := p.peek()
	if fn.kind != tokIdent || (fn.text != "set_config" && fn.text != "current_setting") {
		return
	}
	p.i++
	if !p.punct("(") {
		return
	}
	var args []token
	for {
		t := p.peek()
		if t.kind != tokString && t.kind != tokIdent {
			return
		}
		args = append(args, t)
		p.i++
		if p.punct(")") {
			break
		}
		if !p.punct(",") {
			return
		}
	}
	if !p.done() {
		return
	}
	boolArg := func(t token) (bool, bool) {
		switch strings.ToLower(t.text) {
		case "true", "t", "on", "yes", "1":
			return true, true
		case "false", "f", "off", "no", "0":
			return false, true
		}
		return false, false
	}
	switch fn.text {
	case "set_config":
		if len(args) != 3 || args[0].kind != tokString || args[1].kind != tokString {
			return
		}
		local, ok := boolArg(args[2])
		if !ok {
			return
		}
		st.Kind = KindSetConfig
		st.Setting = SettingChange{Name: strings.ToLower(args[0].text), Value: args[1].text, Local: local}
	case "current_setting":
		if len(args) < 1 || len(args) > 2 || args[0].kind != tokString {
			return
		}
		missingOK := false
		if len(args) == 2 {
			var ok bool
			if missingOK, ok = boolArg(args[1]); !ok {
				return
			}
		}
		st.Kind = KindCurrentSetting
		st.Setting = SettingChange{Name: strings.ToLower(args[0].text), MissingOK: missingOK}
	}
}
