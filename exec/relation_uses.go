package exec

// RelationUse is one user relation a statement's FROM items name, after
// CTE names (which shadow relations) are resolved: a table or a view it
// reads, or a relation a view's query reads. exec enforces nothing; the
// planner checks the privileges of the statements its client sent (and
// not of the queries it runs itself: constraint checks, cascades,
// rewrites), as PostgreSQL checks the range table of a user's query.
type RelationUse struct {
	Table *TableDef
	// InView says the relation is read by the query of a view the
	// statement reads; its privileges are then checked as ViewOwner (the
	// view's owner, 0 = the bootstrap superuser), as PostgreSQL does.
	InView    bool
	ViewOwner uint32
	// Columns are the indexes (in Table.Columns) of the columns the
	// statement reads of this naming — select list, WHERE, joins, *,
	// whole-row references — as PostgreSQL's selectedCols, which column
	// privileges are checked against; ColumnsKnown is false where the
	// binder does not track them (sequences), and then the relation's
	// privilege alone decides.
	Columns      []int
	ColumnsKnown bool
	// used points at the scan's (or view's) per-column read flags
	used []bool
	// cte is the WITH query whose body names the relation (nil: none)
	cte *cteDef
}

// Relations lists the relations the statement reads, in binding order
// (a relation named twice is listed twice). Those named only by a WITH
// query the statement never references are left out: PostgreSQL drops
// such a query before it checks privileges.
func (p *Prepared) Relations() []RelationUse {
	var out []RelationUse
	for _, u := range p.uses {
		if u.cte == nil || u.cte.refs > 0 {
			out = append(out, u)
		}
	}
	return out
}

// usedBy marks the relations recorded from index first on as named by
// the body of WITH query d (those of nested WITH queries keep theirs).
func (b *binder) usedBy(first int, d *cteDef) {
	for i := first; i < len(b.uses); i++ {
		if b.uses[i].cte == nil {
			b.uses[i].cte = d
		}
	}
}

// useRelation records a relation the binder resolved and returns its
// index in b.uses.
func (b *binder) useRelation(td *TableDef) int {
	b.uses = append(b.uses, RelationUse{Table: td, InView: b.inView, ViewOwner: b.viewOwner})
	return len(b.uses) - 1
}

// notePrivilegeColumns fixes each naming's read columns once binding is
// done (view pruning later narrows what a view's scans read, but a
// view's query is checked for all it names, as in PostgreSQL).
func (b *binder) notePrivilegeColumns() {
	for i := range b.uses {
		u := &b.uses[i]
		if u.used == nil {
			continue
		}
		u.ColumnsKnown = true
		for j, r := range u.used {
			if r {
				u.Columns = append(u.Columns, j)
			}
		}
	}
}
