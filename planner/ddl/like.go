package ddl

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// CREATE TABLE t (LIKE source [INCLUDING | EXCLUDING option …]) copies
// source's columns (names, types, NOT NULL) where the clause stands, and
// with the options: DEFAULTS the column defaults (a serial column's
// nextval of source's sequence as written), IDENTITY the identity
// columns with new sequences of the same options, CONSTRAINTS the CHECK
// constraints (named as in source), INDEXES the primary key, unique
// constraints and indexes (named afresh for the new table), COMMENTS
// the column comments. Foreign keys are never copied. COMPRESSION,
// STATISTICS, STORAGE and GENERATED have nothing to copy here (there
// are no generated columns). As PostgreSQL does, the copied constraints
// and indexes are added after the table's own ones.

// Options of TableLikeClause (PostgreSQL's TableLikeOption bits).
const (
	likeComments    = 1 << 0
	likeConstraints = 1 << 2
	likeDefaults    = 1 << 3
	likeIdentity    = 1 << 5
	likeIndexes     = 1 << 6
)

// likeSource is a LIKE clause whose columns were added: what it copies
// once the table's own constraints are in.
type likeSource struct {
	meta    TableMeta
	options uint32
}

// addLike adds the columns of a LIKE clause's source.
func (b *tableBuilder) addLike(like *q.TableLikeClause) (*likeSource, error) {
	name, err := b.pc.relName(like.Relation)
	if err != nil {
		return nil, err
	}
	e, m, ok, err := b.pc.v.table(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		// a serial or identity column's sequence is no entry of its own
		if _, isSeq, _ := b.pc.v.lookupSequence(name); isSeq {
			ok, m.Relkind = true, RelSequence
		}
	}
	if !ok || (m.Relkind != RelTable && m.Relkind != RelView && m.Relkind != RelSequence) {
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", rangeVarText(like.Relation)).WithPosition(like.Relation.Location + 1)
	}
	if m.Relkind == RelSequence {
		return nil, errorf(CodeWrongObjectType, "relation \"%s\" is invalid in LIKE clause", rangeVarText(like.Relation)).
			WithDetail("This operation is not supported for sequences.").WithPosition(like.Relation.Location + 1)
	}
	nullable := map[string]bool{}
	if m.Relkind == RelTable {
		for _, c := range e.Def.Columns {
			nullable[c.Name] = c.Nullable
		}
	}
	for _, src := range m.Columns {
		if b.col(src.Name) != nil {
			return nil, errorf(CodeDuplicateColumn, "column \"%s\" specified more than once", src.Name)
		}
		c := &colBuild{meta: ColumnMeta{Name: src.Name, Type: src.Type, Domain: src.Domain}}
		// NOT NULL is always copied (a view's columns have none)
		c.notNull = m.Relkind == RelTable && !nullable[src.Name]
		if like.Options&likeDefaults != 0 && src.Default != "" && src.Identity == "" {
			c.meta.Default, c.hasDef = src.Default, true
		}
		if like.Options&likeComments != 0 {
			c.meta.Comment = src.Comment
		}
		b.cols = append(b.cols, c)
		if like.Options&likeIdentity != 0 && src.Identity != "" && src.Sequence != nil {
			c.meta.Identity = src.Identity
			b.ownedSequence(c, src.Sequence.SeqOptions)
		}
	}
	if m.Relkind != RelTable {
		return nil, nil
	}
	return &likeSource{meta: m, options: like.Options}, nil
}

// addLikeConstraints adds what a LIKE clause copies besides columns:
// its CHECK constraints and its keys, after the table's own.
func (b *tableBuilder) addLikeConstraints(l *likeSource) error {
	if l.options&likeConstraints != 0 {
		for _, ck := range l.meta.Checks {
			expr, err := parseExpr(ck.Expr)
			if err != nil {
				return err
			}
			if err := b.addTableConstraint(&q.Constraint{Contype: q.ConstrType_CONSTR_CHECK, Conname: ck.Name, RawExpr: expr}); err != nil {
				return err
			}
		}
	}
	if l.options&likeIndexes == 0 {
		return nil
	}
	if pk := l.meta.PrimaryKey; pk != nil {
		b.keys = append(b.keys, pendingKey{con: &q.Constraint{Contype: q.ConstrType_CONSTR_PRIMARY}, cols: pk.Columns, primary: true})
	}
	for _, u := range l.meta.Uniques {
		b.keys = append(b.keys, pendingKey{con: &q.Constraint{Contype: q.ConstrType_CONSTR_UNIQUE, NullsNotDistinct: u.NullsNotDistinct}, cols: u.Columns})
	}
	return nil
}

// rangeVarText is a relation name as written (schema-qualified or not),
// as PostgreSQL's messages show it.
func rangeVarText(rv *q.RangeVar) string {
	if rv.Schemaname != "" {
		return rv.Schemaname + "." + rv.Relname
	}
	return rv.Relname
}

// addLikeIndexes adds the indexes (not backing a constraint) a LIKE
// clause copies, named for the new table once its keys are named.
func (b *tableBuilder) addLikeIndexes(l *likeSource) {
	if l.options&likeIndexes == 0 {
		return
	}
	for _, ix := range l.meta.Indexes {
		if ix.Constraint != "" {
			continue
		}
		ix.Columns = append([]string(nil), ix.Columns...)
		ix.Exprs = append([]string(nil), ix.Exprs...)
		if len(ix.Exprs) == 0 {
			ix.Exprs = nil
		}
		ix.Name = chooseName(b.relTaken, b.name, columnsLabel(ix.labels()), "idx")
		b.meta.Indexes = append(b.meta.Indexes, ix)
	}
}
