package exec

// A lookup of one key value need not read the key column: every row the
// key index returns holds exactly that value. `SELECT v FROM t WHERE id =
// $1` then reads only v's bytes — one storage read and one chunk decode
// fewer per point lookup. The WHERE conjunct itself stays in the filter
// above the scan, so the answer never depends on this.

// posKnownKey marks an output column filled from the lookup's key value.
const posKnownKey = -4

// identityKey says whether two values of type t that the key index finds
// equal are the same value, byte for byte, so the key can stand in for
// the stored one. Not so for numeric (1.0 and 1.00), floats (0 and -0),
// char(n) (trailing blanks) and the rest: those are read.
func identityKey(t Type) bool {
	switch t.OID {
	case OIDInt2, OIDInt4, OIDInt8, OIDText, OIDVarchar:
		return true
	}
	return false
}

// exactKeyValue says whether a key lookup for `key = e` finds exactly
// the rows the comparison keeps, so the conjunct can leave the filter: an
// identity-typed key compared with a value of its own type, either as
// is or through a cast between integer types (which keeps the value or
// matches nothing). A cast to a text type may change the value
// (varchar(n) cuts it short), so it stays a comparison.
func exactKeyValue(e Expr, kt Type) bool {
	if !identityKey(kt) || e.Type() != kt {
		return false
	}
	var from Expr
	switch x := e.(type) {
	case *castExpr:
		from = x.arg
	case *foldedCast:
		from = x.orig.arg
	default:
		return true
	}
	return kt.Kind() == KInt && from.Type().Kind() == KInt && from.Type().OID != OIDBool
}

// knownKey drops the key column from req when the lookup is of a single
// non-null key of an identity type, and returns a converter that fills
// that column from the key instead.
func (c *scanConv) knownKey(req ScanRequest, keys *Vec) (ScanRequest, *scanConv) {
	s := c.s
	if keys.N != 1 || keys.IsNull(0) || !identityKey(s.table.Columns[s.keyCol].Type) || keys.T.OID != s.table.Columns[s.keyCol].Type.OID {
		return req, c
	}
	s.kkOnce.Do(func() {
		out := -1
		for i, tc := range s.colIdx {
			if tc == s.keyCol && c.pos[i] >= 0 {
				out = i
			}
		}
		if out < 0 {
			return // the query does not read the key column
		}
		drop := c.pos[out]
		pos := make([]int, len(c.pos))
		for i, p := range c.pos {
			switch {
			case i == out:
				pos[i] = posKnownKey
			case p > drop:
				pos[i] = p - 1
			default:
				pos[i] = p
			}
		}
		cols := make([]int, 0, len(req.Columns)-1)
		cols = append(cols, req.Columns[:drop]...)
		cols = append(cols, req.Columns[drop+1:]...)
		s.kk = scanProjection{cols: cols, pos: pos, ok: true}
	})
	if !s.kk.ok {
		return req, c
	}
	req.Columns = s.kk.cols
	return req, &scanConv{s: s, pos: s.kk.pos, nulls: c.nulls, key: keys}
}
