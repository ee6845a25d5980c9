package exec

import q "github.com/pggraph/pggraph/internal/sqlparse"

// scopeCol is one column visible to name resolution.
type scopeCol struct {
	table    string // range alias ("" for unnamed)
	name     string
	t        Type
	idx      int  // position in the operator's input batch
	noUnqual bool // only reachable qualified (USING-merged sides)
	noStar   bool // not part of * expansion
	hidden   bool // system column (_rowaddr, tableoid): never in * or t.*, NATURAL or USING
	tableOID uint32
	attnum   int16
	table_   *TableDef // base table (for primary-key functional dependency)
	used     *bool     // set when referenced: the scan reads only used columns
	// read is set when the statement reads the column, what its column
	// privileges are checked against (RelationUse.Columns); used is also
	// set for columns a plan only carries through (JOIN … USING)
	read *bool
	from *q.RangeVar // the FROM entry that produced it (a relation or view), for AnalyzeView
	// merged: a USING column of an inner, left or right join is the
	// column of that side (table, from); AnalyzeView qualifies it so
	merged *scopeCol
}

// markUsed records that a column is read (projection pushdown).
func (c *scopeCol) markUsed() {
	if c.used != nil {
		*c.used = true
	}
	if c.read != nil {
		*c.read = true
	}
}

// markCarried records that a plan node passes a column on without the
// statement reading it: the scan must produce it, its privileges are not
// needed (PostgreSQL's selectedCols list only what the query names).
func (c *scopeCol) markCarried() {
	if c.used != nil {
		*c.used = true
	}
}

// scope is the name space of one query level; parent is the enclosing
// query (for correlated references).
type scope struct {
	cols       []scopeCol
	parent     *scope
	correlated bool // something below resolved a column of an ancestor
	aliases    map[string]bool
	// passthrough scopes only observe correlation (a sublink boundary);
	// they hold no columns and do not count as a query level
	passthrough bool
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, aliases: map[string]bool{}}
}

// lookup resolves [table.]name in this scope only.
func (s *scope) lookup(table, name string) (*scopeCol, error) {
	var found *scopeCol
	for i := range s.cols {
		c := &s.cols[i]
		if c.name != name {
			continue
		}
		if table == "" && c.noUnqual {
			continue
		}
		if table != "" && c.table != table {
			continue
		}
		if found != nil {
			if table != "" {
				return nil, errf(CodeAmbiguousColumn, "column reference \"%s.%s\" is ambiguous", table, name)
			}
			return nil, errf(CodeAmbiguousColumn, "column reference \"%s\" is ambiguous", name)
		}
		found = c
	}
	return found, nil
}

// resolve finds a column in this scope or an ancestor; level is 0 for this
// scope, 1 for the parent, and so on.
func (s *scope) resolve(table, name string) (*scopeCol, int, error) {
	level := 0
	for cur := s; cur != nil; cur = cur.parent {
		if cur.passthrough {
			continue
		}
		c, err := cur.lookup(table, name)
		if err != nil {
			return nil, 0, err
		}
		if c != nil {
			// mark every scope between as correlated
			for m := s; m != cur; m = m.parent {
				m.correlated = true
			}
			return c, level, nil
		}
		if table != "" && cur.aliases[table] {
			e := errf(CodeUndefinedColumn, "column %s.%s does not exist", table, name)
			f := newFuzzyColumnMatch()
			f.consider(cur, table, name)
			e.Hint = f.hint()
			return nil, 0, e
		}
		level++
	}
	if table != "" {
		return nil, 0, errf(CodeUndefinedTable, "missing FROM-clause entry for table \"%s\"", table)
	}
	e := errf(CodeUndefinedColumn, "column \"%s\" does not exist", name)
	f := newFuzzyColumnMatch()
	for cur := s; cur != nil; cur = cur.parent {
		f.consider(cur, "", name)
	}
	e.Hint = f.hint()
	return nil, 0, e
}

func (s *scope) hasAlias(name string) bool {
	for cur := s; cur != nil; cur = cur.parent {
		if cur.aliases[name] {
			return true
		}
	}
	return false
}
