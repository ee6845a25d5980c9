package wire

import (
	"fmt"
	"strings"
)

// Replication commands (PostgreSQL's "Streaming Replication Protocol")
// are read by this small parser on a replication=database connection;
// everything else on such a connection is SQL. The commands served are
// IDENTIFY_SYSTEM, CREATE_REPLICATION_SLOT … LOGICAL, DROP_REPLICATION_SLOT
// and START_REPLICATION SLOT … LOGICAL; the physical-replication ones
// (BASE_BACKUP, TIMELINE_HISTORY, READ_REPLICATION_SLOT, PHYSICAL
// slots) answer 0A000.

// ReplicationCommand is one parsed replication command.
type ReplicationCommand struct {
	Name      string // IDENTIFY_SYSTEM, CREATE_REPLICATION_SLOT, DROP_REPLICATION_SLOT, START_REPLICATION
	Slot      string
	Plugin    string // CREATE_REPLICATION_SLOT's output plugin
	Temporary bool
	Wait      bool   // DROP_REPLICATION_SLOT … WAIT
	StartLSN  uint64 // START_REPLICATION's start position
	// Options are CREATE_REPLICATION_SLOT's options (upper-case names,
	// old-style keywords included) and START_REPLICATION's plugin
	// options, in order.
	Options [][2]string
}

// replicationCommands are the words that make a Query a replication
// command (PostgreSQL's replication scanner recognizes them first).
var replicationCommands = map[string]bool{"IDENTIFY_SYSTEM": true, "CREATE_REPLICATION_SLOT": true, "DROP_REPLICATION_SLOT": true,
	"START_REPLICATION": true, "BASE_BACKUP": true, "TIMELINE_HISTORY": true, "READ_REPLICATION_SLOT": true}

// isReplicationCommand reports whether sql starts with a replication
// command keyword.
func isReplicationCommand(sql string) bool {
	s := strings.TrimLeft(sql, " \t\r\n")
	end := 0
	for end < len(s) && (s[end] == '_' || s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z') {
		end++
	}
	return replicationCommands[strings.ToUpper(s[:end])]
}

// replToken is one token of a replication command.
type replToken struct {
	kind byte // 'w' word, 'i' quoted identifier, 's' string, 'l' LSN, or the punctuation itself
	text string
}

func replLex(sql string) ([]replToken, error) {
	var out []replToken
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == ';':
			// a trailing semicolon ends the command
			if strings.TrimSpace(sql[i+1:]) != "" {
				return nil, syntaxErr("syntax error")
			}
			i = len(sql)
		case c == '(' || c == ')' || c == ',':
			out = append(out, replToken{kind: c, text: string(c)})
			i++
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(sql) {
					if c == '"' {
						return nil, syntaxErr("unterminated quoted identifier")
					}
					return nil, syntaxErr("unterminated quoted string")
				}
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(sql[j])
				j++
			}
			kind := byte('i')
			if c == '\'' {
				kind = 's'
			}
			out = append(out, replToken{kind: kind, text: b.String()})
			i = j + 1
		default:
			j := i
			for j < len(sql) && (sql[j] == '_' || sql[j] == '/' || sql[j] == '-' || sql[j] >= '0' && sql[j] <= '9' ||
				sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z') {
				j++
			}
			if j == i {
				return nil, syntaxErr(fmt.Sprintf("syntax error at or near %q", string(c)))
			}
			w := sql[i:j]
			kind := byte('w')
			if strings.Contains(w, "/") {
				kind = 'l'
			}
			out = append(out, replToken{kind: kind, text: w})
			i = j
		}
	}
	return out, nil
}

func syntaxErr(msg string) *Error { return Errorf(CodeSyntaxError, "%s", msg) }

// replParser walks the tokens.
type replParser struct {
	toks []replToken
	pos  int
}

func (p *replParser) peek() (replToken, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return replToken{}, false
}

// keyword consumes an unquoted word equal (case-insensitively) to kw.
func (p *replParser) keyword(kw string) bool {
	if t, ok := p.peek(); ok && t.kind == 'w' && strings.EqualFold(t.text, kw) {
		p.pos++
		return true
	}
	return false
}

// ident reads a name: a word (lower-cased) or a quoted identifier.
func (p *replParser) ident(what string) (string, error) {
	t, ok := p.peek()
	if !ok || t.kind != 'w' && t.kind != 'i' {
		return "", p.errorAt(what)
	}
	p.pos++
	if t.kind == 'w' {
		return strings.ToLower(t.text), nil
	}
	return t.text, nil
}

func (p *replParser) errorAt(string) *Error {
	if t, ok := p.peek(); ok {
		return syntaxErr(fmt.Sprintf("syntax error at or near %q", t.text))
	}
	return syntaxErr("syntax error at end of input")
}

func (p *replParser) end() error {
	if p.pos < len(p.toks) {
		return p.errorAt("")
	}
	return nil
}

// options reads "( name [value] [, …] )" when present.
func (p *replParser) options(upper bool) ([][2]string, error) {
	t, ok := p.peek()
	if !ok || t.kind != '(' {
		return nil, nil
	}
	p.pos++
	var out [][2]string
	for {
		name, err := p.ident("option name")
		if err != nil {
			return nil, err
		}
		if upper {
			name = strings.ToUpper(name)
		}
		val := ""
		if t, ok := p.peek(); ok && (t.kind == 's' || t.kind == 'w' || t.kind == 'i') {
			val = t.text
			p.pos++
		}
		out = append(out, [2]string{name, val})
		t, ok := p.peek()
		if !ok {
			return nil, p.errorAt("")
		}
		p.pos++
		if t.kind == ')' {
			return out, nil
		}
		if t.kind != ',' {
			p.pos--
			return nil, p.errorAt("")
		}
	}
}

// parseReplicationCommand parses one replication command.
func parseReplicationCommand(sql string) (*ReplicationCommand, error) {
	toks, err := replLex(sql)
	if err != nil {
		return nil, err
	}
	p := &replParser{toks: toks}
	t, _ := p.peek()
	cmd := &ReplicationCommand{Name: strings.ToUpper(t.text)}
	p.pos++
	switch cmd.Name {
	case "IDENTIFY_SYSTEM":
	case "CREATE_REPLICATION_SLOT":
		if cmd.Slot, err = p.ident("slot name"); err != nil {
			return nil, err
		}
		cmd.Temporary = p.keyword("TEMPORARY")
		switch {
		case p.keyword("PHYSICAL"):
			return nil, Errorf(CodeFeatureNotSupported, "physical replication slots are not supported")
		case p.keyword("LOGICAL"):
		default:
			return nil, p.errorAt("")
		}
		if cmd.Plugin, err = p.ident("plugin name"); err != nil {
			return nil, err
		}
		if t, ok := p.peek(); ok && t.kind == '(' {
			if cmd.Options, err = p.options(true); err != nil {
				return nil, err
			}
		} else {
			// the pre-15 keywords
			for {
				t, ok := p.peek()
				if !ok || t.kind != 'w' {
					break
				}
				p.pos++
				cmd.Options = append(cmd.Options, [2]string{strings.ToUpper(t.text), ""})
			}
		}
	case "DROP_REPLICATION_SLOT":
		if cmd.Slot, err = p.ident("slot name"); err != nil {
			return nil, err
		}
		cmd.Wait = p.keyword("WAIT")
	case "START_REPLICATION":
		if !p.keyword("SLOT") {
			return nil, Errorf(CodeFeatureNotSupported, "physical replication is not supported")
		}
		if cmd.Slot, err = p.ident("slot name"); err != nil {
			return nil, err
		}
		if p.keyword("PHYSICAL") || !p.keyword("LOGICAL") {
			return nil, Errorf(CodeFeatureNotSupported, "physical replication is not supported")
		}
		t, ok := p.peek()
		if !ok || t.kind != 'l' {
			return nil, p.errorAt("")
		}
		p.pos++
		lsn, err := parseLSN(t.text)
		if err != nil {
			return nil, syntaxErr(fmt.Sprintf("invalid streaming start location %q", t.text))
		}
		cmd.StartLSN = lsn
		if cmd.Options, err = p.options(false); err != nil {
			return nil, err
		}
	default:
		return nil, Errorf(CodeFeatureNotSupported, "replication command %s is not supported (only logical replication is)", cmd.Name)
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// parseLSN reads PostgreSQL's "%X/%X".
func parseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || hi == "" || lo == "" || len(hi) > 8 || len(lo) > 8 {
		return 0, fmt.Errorf("invalid LSN")
	}
	var h, l uint64
	for _, part := range []struct {
		s string
		v *uint64
	}{{hi, &h}, {lo, &l}} {
		for _, c := range part.s {
			var d uint64
			switch {
			case c >= '0' && c <= '9':
				d = uint64(c - '0')
			case c >= 'a' && c <= 'f':
				d = uint64(c-'a') + 10
			case c >= 'A' && c <= 'F':
				d = uint64(c-'A') + 10
			default:
				return 0, fmt.Errorf("invalid LSN")
			}
			*part.v = *part.v<<4 | d
		}
	}
	return h<<32 | l, nil
}

// FormatLSN prints an LSN as PostgreSQL does ("%X/%X").
func FormatLSN(l uint64) string { return fmt.Sprintf("%X/%X", uint32(l>>32), uint32(l)) }
