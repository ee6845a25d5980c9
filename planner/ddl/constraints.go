package ddl

import (
	"fmt"

	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

func stringList(ns []*q.Node) []string {
	var out []string
	for _, n := range ns {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// check validates and names a CHECK constraint (PostgreSQL: <table>_<col>_check
// when it references exactly one column, <table>_check otherwise).
func (b *tableBuilder) check(con *q.Constraint) (Check, error) {
	return checkConstraint(b.name, con, func(n string) bool { return b.col(n) != nil }, b.conTaken)
}
func checkConstraint(table string, con *q.Constraint, hasCol func(string) bool, taken map[string]bool) (Check, error) {
	if con.RawExpr == nil {
		return Check{}, errorf(CodeSyntaxError, "CHECK constraint without an expression")
	}
	if hasNode(con.RawExpr, isSubquery) {
		return Check{}, errorf(CodeFeatureNotSupported, "cannot use subquery in check constraint")
	}
	refs := columnRefs(con.RawExpr)
	for _, r := range refs {
		if !hasCol(r) {
			return Check{}, errorf(CodeUndefinedColumn, "column \"%s\" does not exist", r)
		}
	}
	sql, err := deparseExpr(con.RawExpr)
	if err != nil {
		return Check{}, err
	}
	name := con.Conname
	if name == "" {
		col := ""
		if len(refs) == 1 {
			col = refs[0]
		}
		name = chooseName(taken, table, col, "check")
	}
	return Check{Name: name, Expr: sql}, nil
}

// fkAction maps the grammar's action letter.
func fkAction(c string) (string, error) {
	switch c {
	case "", "a":
		return NoAction, nil
	case "r":
		return Restrict, nil
	case "c":
		return Cascade, nil
	case "n":
		return SetNull, nil
	case "d":
		return SetDefault, nil
	}
	return "", errorf(CodeSyntaxError, "unknown referential action %q", c)
}

// foreignKey validates a REFERENCES constraint of table (whose columns are
// cols) and names it <table>_<cols>_fkey. self describes the table when it
// is being created (nil lookup result otherwise).
func (pc *planCtx) foreignKey(table string, con *q.Constraint, cols []string, self func() (TableMeta, map[string]bool), taken map[string]bool) (ForeignKey, error) {
	selfMeta, _ := self()
	for _, c := range cols {
		if m, _ := selfMeta.Column(c); m == nil {
			return ForeignKey{}, errorf(CodeUndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", c)
		}
	}
	ref, err := pc.relName(con.Pktable)
	if err != nil {
		return ForeignKey{}, err
	}
	var refMeta TableMeta
	if ref == table {
		refMeta = selfMeta
	} else {
		_, m, ok, err := pc.v.table(ref)
		if err != nil {
			return ForeignKey{}, err
		}
		if !ok {
			return ForeignKey{}, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", ref)
		}
		if m.Relkind != RelTable {
			return ForeignKey{}, errorf(CodeWrongObjectType, "referenced relation \"%s\" is not a table", ref)
		}
		refMeta = m
	}
	if con.FkMatchtype == "f" {
		return ForeignKey{}, notSupported("MATCH FULL")
	}
	refCols := stringList(con.PkAttrs)
	if len(refCols) == 0 {
		if refMeta.PrimaryKey == nil {
			return ForeignKey{}, errorf(CodeInvalidForeignKey, "there is no primary key for referenced table \"%s\"", ref)
		}
		refCols = refMeta.PrimaryKey.Columns
	}
	for _, c := range refCols {
		if m, _ := refMeta.Column(c); m == nil {
			return ForeignKey{}, errorf(CodeUndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", c)
		}
	}
	if len(refCols) != len(cols) {
		return ForeignKey{}, errorf(CodeInvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
	}
	if !refMeta.hasKeyOn(refCols) {
		return ForeignKey{}, errorf(CodeInvalidForeignKey, "there is no unique constraint matching given keys for referenced table \"%s\"", ref)
	}
	name := con.Conname
	if name == "" {
		name = chooseName(taken, table, columnsLabel(cols), "fkey")
	}
	for i := range cols {
		a, _ := selfMeta.Column(cols[i])
		r, _ := refMeta.Column(refCols[i])
		if !comparableTypes(a.Type, r.Type) {
			return ForeignKey{}, errorf(CodeDatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", name).
				WithDetail(fmt.Sprintf("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", cols[i], refCols[i], a.Type, r.Type))
		}
	}
	del, err := fkAction(con.FkDelAction)
	if err != nil {
		return ForeignKey{}, err
	}
	upd, err := fkAction(con.FkUpdAction)
	if err != nil {
		return ForeignKey{}, err
	}
	if len(con.FkDelSetCols) > 0 {
		return ForeignKey{}, notSupported("ON DELETE SET NULL/DEFAULT with a column list")
	}
	return ForeignKey{Name: name, Columns: cols, RefTable: ref, RefColumns: refCols, OnDelete: del, OnUpdate: upd}, nil
}

// hasKeyOn reports a PRIMARY KEY or UNIQUE constraint on exactly cols (as a set).
func (m TableMeta) hasKeyOn(cols []string) bool {
	same := func(k []string) bool {
		if len(k) != len(cols) {
			return false
		}
		in := map[string]bool{}
		for _, c := range k {
			in[c] = true
		}
		for _, c := range cols {
			if !in[c] {
				return false
			}
		}
		return true
	}
	if m.PrimaryKey != nil && same(m.PrimaryKey.Columns) {
		return true
	}
	for _, u := range m.Uniques {
		if same(u.Columns) {
			return true
		}
	}
	for _, ix := range m.Indexes {
		// a foreign key needs a plain, non-partial unique index
		if ix.Unique && !ix.Computed() && same(ix.Columns) {
			return true
		}
	}
	return false
}

// comparableTypes reports whether a foreign key between a and b has an
// equality operator (numeric with numeric, string with string, else equal).
func comparableTypes(a, b PGType) bool {
	num := func(t PGType) bool {
		switch t.OID {
		case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8, exec.OIDNumeric, exec.OIDFloat4, exec.OIDFloat8:
			return true
		}
		return false
	}
	str := func(t PGType) bool {
		switch t.OID {
		case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar:
			return true
		}
		return false
	}
	switch {
	case num(a) && num(b), str(a) && str(b):
		return true
	case a.OID == exec.OIDTimestamp || a.OID == exec.OIDTimestamptz || a.OID == exec.OIDDate:
		return b.OID == exec.OIDTimestamp || b.OID == exec.OIDTimestamptz || b.OID == exec.OIDDate
	}
	return a.OID == b.OID && a.Dims == b.Dims && a.OID != exec.OIDJSON
}
