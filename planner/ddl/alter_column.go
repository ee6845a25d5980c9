package ddl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

func (a *alterState) addColumn(cd *q.ColumnDef, ifNotExists bool) error {
	if cd == nil {
		return errorf(CodeSyntaxError, "ADD COLUMN without a column definition")
	}
	if a.b.col(cd.Colname) != nil {
		if ifNotExists {
			a.notices = append(a.notices, notice(CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists, skipping", cd.Colname, a.b.name))
			return nil
		}
		return errorf(CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cd.Colname, a.b.name)
	}
	err := a.b.addColumn(cd)
	if err != nil {
		return err
	}
	c := a.b.cols[len(a.b.cols)-1]
	a.ids = append(a.ids, 0)
	fill := fillExpr(c.meta)
	if c.meta.Domain != 0 {
		if fill, err = a.pc.domainFillExpr(c.meta); err != nil { // domain.go
			return err
		}
	}
	a.exprs = append(a.exprs, fill)
	if err := a.flush(); err != nil {
		return err
	}
	if c.notNull {
		a.addValidation(Validation{Kind: ValidateNotNull, Columns: []string{c.meta.Name}})
	}
	return nil
}

// fillExpr computes a new column for existing rows: its default (or the
// identity sequence), else NULL, cast to the column's type.
func fillExpr(c ColumnMeta) string {
	e := c.DefaultExpr()
	if e == "" {
		e = "NULL"
	}
	return "CAST(" + e + " AS " + execTypeSQL(c.Type) + ")"
}

// execTypeSQL names a type the way exec parses it (vector(n) is real[]).
func execTypeSQL(t PGType) string {
	if t.IsVector() {
		return "real[]"
	}
	return exec.FormatType(t.OID, t.Mod)
}

// dropColumn removes a column with the table's own constraints and
// indexes on it; other tables' foreign keys on it need CASCADE.
func (a *alterState) dropColumn(name string, missingOk, cascade bool) error {
	b := a.b
	i := slices.IndexFunc(b.cols, func(c *colBuild) bool { return c.meta.Name == name })
	if i < 0 {
		if missingOk {
			a.notice("column \"%s\" of relation \"%s\" does not exist, skipping", name, b.name)
			return nil
		}
		return errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, b.name)
	}
	if b.meta.Graph.Kind == graph.EdgeTable && (name == b.meta.Graph.Source || name == b.meta.Graph.Target) {
		return errorf(CodeInvalidTableDefinition, "cannot drop column %s of table %s because it is an edge endpoint", name, b.name)
	}
	if len(b.cols) == 1 {
		return notSupported("dropping the last column of a table")
	}
	if err := a.dropColumnViews(name, cascade); err != nil {
		return err
	}
	// property graphs reading the column (propgraph.go)
	if gs, err := a.pc.propGraphsUsingColumn(a.entry.Name, name); err != nil {
		return err
	} else if len(gs) > 0 {
		if cascade {
			return notSupported("DROP COLUMN … CASCADE of a column a property graph uses (%s)", gs[0])
		}
		return errorf(CodeDependentObjects, "cannot drop column %s of table %s because other objects depend on it", name, a.b.name).
			WithDetail(strings.Join(gs, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	m := &b.meta
	// Keys on the column: other tables' foreign keys depend on them.
	if m.PrimaryKey != nil && slices.Contains(m.PrimaryKey.Columns, name) {
		if err := a.dropKeyDependents(m.PrimaryKey.Name, m.PrimaryKey.Columns, cascade); err != nil {
			return err
		}
		pk := m.PrimaryKey.Name
		m.PrimaryKey = nil
		m.Indexes = slices.DeleteFunc(m.Indexes, func(ix Index) bool { return ix.Name == pk })
	}
	var keep []KeyConstraint
	for _, u := range m.Uniques {
		if !slices.Contains(u.Columns, name) {
			keep = append(keep, u)
			continue
		}
		if err := a.dropKeyDependents(u.Name, u.Columns, cascade); err != nil {
			return err
		}
	}
	m.Uniques = keep
	// an index goes with any column its keys or predicate read
	m.Indexes = slices.DeleteFunc(m.Indexes, func(ix Index) bool { return slices.Contains(ix.KeyColumns(), name) })
	m.ForeignKeys = slices.DeleteFunc(m.ForeignKeys, func(f ForeignKey) bool { return slices.Contains(f.Columns, name) })
	var checks []Check
	for _, c := range m.Checks {
		n, err := parseExpr(c.Expr)
		if err != nil {
			return err
		}
		if !slices.Contains(columnRefs(n), name) {
			checks = append(checks, c)
		}
	}
	m.Checks = checks
	b.cols = slices.Delete(b.cols, i, i+1)
	a.ids = slices.Delete(a.ids, i, i+1)
	a.exprs = slices.Delete(a.exprs, i, i+1)
	b.syncColumns()
	return nil
}

// dropColumnViews handles the views that read a dropped column: 2BP01
// naming them, or with CASCADE their drops (and of the views reading
// those).
func (a *alterState) dropColumnViews(col string, cascade bool) error {
	vs, err := a.pc.dependentViews(a.entry.Name, col, fmt.Sprintf("column %s of table %s", col, a.b.name), map[string]bool{a.entry.Name: true})
	if err != nil || len(vs) == 0 {
		return err
	}
	var lines, cascaded []string
	for _, v := range vs {
		lines = append(lines, v.line)
		cascaded = append(cascaded, "drop cascades to view "+v.name)
	}
	if !cascade {
		return errorf(CodeDependentObjects, "cannot drop column %s of table %s because other objects depend on it", col, a.b.name).
			WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, v := range vs {
		a.drops = append(a.drops, &DropTable{Name: v.name, Cascade: true, CommandTag: a.tag})
	}
	a.notices = append(a.notices, cascadeNotices(cascaded)...)
	return nil
}

// alterType changes a column's type; the rewrite casts (or evaluates
// USING). Without USING the cast must be one PostgreSQL applies
// implicitly on assignment.
func (a *alterState) alterType(name string, cd *q.ColumnDef) error {
	c, err := a.column(name)
	if err != nil {
		return err
	}
	if cd == nil || cd.TypeName == nil {
		return errorf(CodeSyntaxError, "ALTER COLUMN TYPE without a type")
	}
	rt, err := a.pc.resolveColumnType(cd.TypeName)
	if err != nil {
		return err
	}
	if rt.Serial {
		return errorf(CodeUndefinedObject, "type \"%s\" does not exist", strings.ToLower(mustTypeName(cd.TypeName)))
	}
	if rt.Domain != 0 || c.meta.Domain != 0 {
		return notSupported("ALTER COLUMN … TYPE to or from a domain") // domain.go
	}
	if vs, err := a.pc.v.viewDependents(a.entry.Name, c.meta.Name, true); err != nil {
		return err
	} else if len(vs) > 0 {
		return errorf(CodeFeatureNotSupported, "cannot alter type of a column used by a view or rule").
			WithDetail(fmt.Sprintf("rule _RETURN on view %s depends on column \"%s\"", vs[0].Name, c.meta.Name))
	}
	i := slices.IndexFunc(a.b.cols, func(x *colBuild) bool { return x == c })
	from := c.meta.Type
	var expr string
	if cd.RawDefault != nil {
		using, err := deparseExpr(cd.RawDefault)
		if err != nil {
			return err
		}
		expr = "CAST((" + using + ") AS " + execTypeSQL(rt.PGType) + ")"
		a.converted = true
	} else if binaryCoercible(from, rt.PGType) {
		expr = a.exprs[i] // values stay as they are
	} else {
		if !assignmentCast(from, rt.PGType) {
			return errorf(CodeDatatypeMismatch, "column \"%s\" cannot be cast automatically to type %s", name, rt.PGType).
				WithHint(fmt.Sprintf("You might need to specify \"USING %s::%s\".", quoteIdent(name), rt.PGType))
		}
		expr = "CAST(" + a.exprs[i] + " AS " + execTypeSQL(rt.PGType) + ")"
		a.converted = true
	}
	if _, err := rt.ArrowType(); err != nil {
		return err
	}
	if c.meta.Identity != "" && rt.OID != exec.OIDInt2 && rt.OID != exec.OIDInt4 && rt.OID != exec.OIDInt8 {
		return errorf(CodeInvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	c.meta.Type = rt.PGType
	a.exprs[i] = expr
	// Foreign keys on either side must stay comparable.
	for _, f := range a.b.meta.ForeignKeys {
		if j := slices.Index(f.Columns, name); j >= 0 {
			if err := a.fkTypesOK(f, j, rt.PGType); err != nil {
				return err
			}
		}
	}
	deps, err := a.pc.v.referencing(a.entry.Name)
	if err != nil {
		return err
	}
	for _, d := range deps {
		if j := slices.Index(d.FK.RefColumns, name); j >= 0 {
			_, om, _, err := a.pc.v.table(d.Table)
			if err != nil {
				return err
			}
			oc, _ := om.Column(d.FK.Columns[j])
			if oc != nil && !comparableTypes(oc.Type, rt.PGType) {
				return errorf(CodeDatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", d.FK.Name).
					WithDetail(fmt.Sprintf("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", d.FK.Columns[j], name, oc.Type, rt.PGType))
			}
		}
	}
	// Values change: re-verify what depends on them.
	m := &a.b.meta
	for _, ck := range m.Checks {
		if n, err := parseExpr(ck.Expr); err == nil && slices.Contains(columnRefs(n), name) {
			a.addValidation(Validation{Kind: ValidateCheck, Constraint: ck.Name, Expr: ck.Expr})
		}
	}
	if m.PrimaryKey != nil && slices.Contains(m.PrimaryKey.Columns, name) {
		a.addValidation(Validation{Kind: ValidateUnique, Constraint: m.PrimaryKey.Name, Columns: m.PrimaryKey.Columns})
	}
	for _, u := range m.Uniques {
		if slices.Contains(u.Columns, name) {
			a.addValidation(Validation{Kind: ValidateUnique, Constraint: u.Name, Columns: u.Columns})
		}
	}
	for _, f := range m.ForeignKeys {
		if slices.Contains(f.Columns, name) {
			a.addValidation(Validation{Kind: ValidateForeignKey, Constraint: f.Name, Columns: f.Columns, RefTable: f.RefTable, RefColumns: f.RefColumns})
		}
	}
	if c.notNull {
		a.addValidation(Validation{Kind: ValidateNotNull, Columns: []string{name}})
	}
	return nil
}
func mustTypeName(tn *q.TypeName) string {
	s, _ := typeNameParts(tn)
	return s
}
func (a *alterState) fkTypesOK(f ForeignKey, j int, t PGType) error {
	_, rm, ok, err := a.pc.v.table(f.RefTable)
	if err != nil || !ok {
		return err
	}
	if f.RefTable == a.entry.Name {
		rm = a.b.meta
	}
	rc, _ := rm.Column(f.RefColumns[j])
	if rc != nil && !comparableTypes(t, rc.Type) {
		return errorf(CodeDatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", f.Name).
			WithDetail(fmt.Sprintf("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", f.Columns[j], f.RefColumns[j], t, rc.Type))
	}
	return nil
}

// binaryCoercible reports type changes that keep every stored value as
// is: to text or a wider varchar from varchar/text, to the same type
// without a tighter modifier.
func binaryCoercible(from, to PGType) bool {
	if from.IsVector() || to.IsVector() {
		return from == to
	}
	str := from.OID == exec.OIDVarchar || from.OID == exec.OIDText
	switch {
	case to.OID == exec.OIDText && str:
		return true
	case to.OID == exec.OIDVarchar && str:
		return to.Mod < 0 || (from.OID == exec.OIDVarchar && from.Mod >= 0 && from.Mod <= to.Mod)
	case to.OID == from.OID && to.Mod == from.Mod:
		return true
	}
	return false
}

// assignmentCast reports casts PostgreSQL applies on assignment (ALTER
// COLUMN TYPE without USING): within the numeric, string and date/time
// families, anything to a string type, json ↔ jsonb.
func assignmentCast(from, to PGType) bool {
	if from.IsVector() || to.IsVector() {
		return from.Dims == to.Dims && from.IsVector() == to.IsVector()
	}
	fam := func(t PGType) string {
		switch t.OID {
		case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8, exec.OIDNumeric, exec.OIDFloat4, exec.OIDFloat8:
			return "num"
		case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar:
			return "str"
		case exec.OIDDate, exec.OIDTimestamp, exec.OIDTimestamptz:
			return "time"
		case exec.OIDJSON, exec.OIDJSONB:
			return "json"
		}
		return fmt.Sprint(t.OID)
	}
	if from.OID == to.OID {
		return true
	}
	if fam(to) == "str" && !from.Exec().IsArray() {
		return true
	}
	if from.Exec().IsArray() && to.Exec().IsArray() {
		return assignmentCast(PGType{OID: from.Exec().Elem().OID, Mod: from.Mod}, PGType{OID: to.Exec().Elem().OID, Mod: to.Mod})
	}
	return fam(from) == fam(to)
}

// addIdentity makes an existing integer NOT NULL column an identity column.
func (a *alterState) addIdentity(name string, con *q.Constraint) error {
	c, err := a.column(name)
	if err != nil {
		return err
	}
	if con == nil {
		return errorf(CodeSyntaxError, "ADD GENERATED without a definition")
	}
	if c.meta.Identity != "" {
		return errorf(CodeObjectNotInState, "column \"%s\" of relation \"%s\" is already an identity column", name, a.b.name)
	}
	if c.hasDef {
		return errorf(CodeObjectNotInState, "column \"%s\" of relation \"%s\" already has a default value", name, a.b.name)
	}
	if !c.notNull {
		return errorf(CodeObjectNotInState, "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity can be added", name, a.b.name)
	}
	t := c.meta.Type.OID
	if t != exec.OIDInt2 && t != exec.OIDInt4 && t != exec.OIDInt8 {
		return errorf(CodeInvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	opts, set, err := parseSeqOptions(con.Options, SeqOptions{Type: c.meta.Type}, true, true, "")
	if err != nil {
		return err
	}
	c.meta.Identity = IdentityByDefault
	if con.GeneratedWhen == "a" {
		c.meta.Identity = IdentityAlways
	}
	seq := a.b.ownedSequence(c, opts)
	if len(set.name) > 0 {
		if err := a.b.renameOwnedSequence(seq, set.name[len(set.name)-1]); err != nil {
			return err
		}
	}
	return nil
}

// setIdentity handles ALTER COLUMN … SET GENERATED / RESTART / SET
// <sequence option> of an identity column.
func (a *alterState) setIdentity(name string, items []*q.Node) error {
	c, err := a.column(name)
	if err != nil {
		return err
	}
	if c.meta.Identity == "" || c.meta.Sequence == nil {
		return errorf(CodeObjectNotInState, "column \"%s\" of relation \"%s\" is not an identity column", name, a.b.name)
	}
	var seqOpts []*q.Node
	for _, n := range items {
		d := n.GetDefElem()
		if d != nil && d.Defname == "generated" {
			c.meta.Identity = IdentityByDefault
			if d.Arg.GetInteger().GetIval() == 'a' {
				c.meta.Identity = IdentityAlways
			}
			continue
		}
		seqOpts = append(seqOpts, n)
	}
	if len(seqOpts) == 0 {
		return nil
	}
	opts, set, err := parseSeqOptions(seqOpts, c.meta.Sequence.SeqOptions, false, true, c.meta.Sequence.Name)
	if err != nil {
		return err
	}
	c.meta.Sequence.SeqOptions = opts
	if r := restartSequence(a.pc, c.meta.Sequence, set); r != nil {
		r.CommandTag = a.tag
		a.after = append(a.after, r)
	}
	return nil
}
