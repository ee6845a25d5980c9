package wire

import "strings"

// copy classifies COPY ... FROM STDIN and COPY ... TO STDOUT and reads the
// options that decide the framing. COPY to or from a file or program stays
// a KindQuery (the session layer refuses it).
func (p *uparser) copy(st *Statement) error {
	p.i++ // copy
	o := &st.Copy
	if p.kw("binary") { // pre-7.3 syntax: COPY BINARY t FROM STDIN
		o.Format = CopyBinary
	}
	if p.punct("(") {
		// COPY (query) TO STDOUT: skip the balanced parentheses.
		depth := 1
		for !p.done() && depth > 0 {
			t := p.peek()
			if t.kind == tokPunct && t.text == "(" {
				depth++
			} else if t.kind == tokPunct && t.text == ")" {
				depth--
			}
			p.i++
		}
		if depth != 0 {
			return p.errHere("")
		}
	} else {
		n, ok := p.dottedName()
		if !ok {
			return p.errHere("")
		}
		o.Table = n
		if p.punct("(") {
			for {
				c, ok := p.name()
				if !ok {
					return p.errHere("")
				}
				o.Columns = append(o.Columns, c)
				if p.punct(")") {
					break
				}
				if !p.punct(",") {
					return p.errHere("")
				}
			}
		}
	}
	var kind Kind
	switch {
	case p.kw("from"):
		if !p.kw("stdin") {
			return nil // file or program: the session layer decides
		}
		kind = KindCopyFrom
	case p.kw("to"):
		if !p.kw("stdout") {
			return nil
		}
		kind = KindCopyTo
	default:
		return p.errHere("")
	}
	if err := p.copyOptions(o); err != nil {
		return err
	}
	st.Kind = kind
	return nil
}

func (p *uparser) copyOptions(o *CopyOptions) error {
	oneByte := func(what string) *Error {
		return Errorf(CodeFeatureNotSupported, "COPY %s must be a single one-byte character", what)
	}
	str := func() (string, bool) {
		p.kw("as")
		t := p.peek()
		if t.kind != tokString {
			return "", false
		}
		p.i++
		return t.text, true
	}
	p.kw("with")
	if p.punct("(") { // new-style option list
		for {
			namePos := p.peek().pos
			n, ok := p.name()
			if !ok {
				return p.errHere("")
			}
			var val string
			t := p.peek()
			if t.kind == tokString || t.kind == tokIdent || t.kind == tokNumber {
				val = t.text
				p.i++
			}
			if err := applyCopyOption(o, strings.ToLower(n), val); err != nil {
				if err.Code == CodeSyntaxError {
					err.Position = syntaxErrorAt(p.sql, namePos, "").Position
				}
				return err
			}
			if p.punct(")") {
				break
			}
			if !p.punct(",") {
				return p.errHere("")
			}
		}
	} else {
		for !p.done() {
			switch {
			case p.kw("binary"):
				o.Format = CopyBinary
			case p.kw("csv"):
				o.Format = CopyCSV
			case p.kw("header"):
				o.Header = true
			case p.kw("delimiter"):
				s, ok := str()
				if !ok {
					return p.errHere("")
				}
				if len(s) != 1 {
					return oneByte("delimiter")
				}
				o.Delimiter = s[0]
			case p.kw("null"):
				s, ok := str()
				if !ok {
					return p.errHere("")
				}
				o.Null, o.NullSet = s, true
			case p.kw("quote"):
				s, ok := str()
				if !ok {
					return p.errHere("")
				}
				if len(s) != 1 {
					return oneByte("quote")
				}
				o.Quote = s[0]
			case p.kw("escape"):
				s, ok := str()
				if !ok {
					return p.errHere("")
				}
				if len(s) != 1 {
					return oneByte("escape")
				}
				o.Escape = s[0]
			case p.kw("force"):
				// FORCE QUOTE / FORCE NOT NULL column lists: framing-neutral.
				for !p.done() && !(p.peek().kind == tokIdent && isLegacyCopyKeyword(p.peek().text)) {
					p.i++
				}
			default:
				return p.errHere("")
			}
		}
	}
	if !p.done() {
		return p.errHere("")
	}
	fillCopyDefaults(o)
	return nil
}

func isLegacyCopyKeyword(s string) bool {
	switch s {
	case "binary", "csv", "header", "delimiter", "null", "quote", "escape", "force":
		return true
	}
	return false
}

func applyCopyOption(o *CopyOptions, name, val string) *Error {
	one := func(what string) (byte, *Error) {
		if len(val) != 1 {
			return 0, Errorf(CodeFeatureNotSupported, "COPY %s must be a single one-byte character", what)
		}
		return val[0], nil
	}
	var err *Error
	switch name {
	case "format":
		switch strings.ToLower(val) {
		case "text":
			o.Format = CopyText
		case "csv":
			o.Format = CopyCSV
		case "binary":
			o.Format = CopyBinary
		default:
			return Errorf(CodeInvalidParameterValue, "COPY format \"%s\" not recognized", val)
		}
	case "header":
		switch strings.ToLower(val) {
		case "", "true", "on", "1", "match":
			o.Header = true
		case "false", "off", "0":
			o.Header = false
		default:
			return Errorf(CodeSyntaxError, "header requires a Boolean value or \"match\"")
		}
	case "delimiter":
		o.Delimiter, err = one("delimiter")
	case "null":
		o.Null, o.NullSet = val, true
	case "quote":
		o.Quote, err = one("quote")
	case "escape":
		o.Escape, err = one("escape")
	case "freeze", "encoding", "force_quote", "force_not_null", "force_null", "default", "on_error":
	default:
		return Errorf(CodeSyntaxError, "option \"%s\" not recognized", name)
	}
	return err
}

// fillCopyDefaults applies PostgreSQL's per-format defaults.
func fillCopyDefaults(o *CopyOptions) {
	if o.Delimiter == 0 {
		o.Delimiter = '\t'
		if o.Format == CopyCSV {
			o.Delimiter = ','
		}
	}
	if o.Format == CopyText && o.Null == "" && !o.NullSet {
		o.Null = `\N`
	}
	if o.Format == CopyCSV {
		if o.Quote == 0 {
			o.Quote = '"'
		}
		if o.Escape == 0 {
			o.Escape = o.Quote
		}
	}
}
