package ddl

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// alterState is one ALTER of an existing table: the builder holds the
// evolving columns and meta; ids and exprs say, per current column, its
// stable id (0 = new) and how the rewrite computes it from the old row.
type alterState struct {
	pc       *planCtx
	entry    graph.TableEntry
	old      graph.TableDef
	b        *tableBuilder
	ids      []uint64
	exprs    []string
	newName  string
	validate []Validation
	others   map[string]*alterState // other tables changed as a consequence (FK renames, cascades)
	order    []string               // order of others
	drops    []Change               // tables dropped as a consequence
	after    []Change               // sequence moves (RESTART), applied after the catalog change
	notices  []*wire.Error
	tag      string
	// converted: a column's values change (a cast that is not a no-op),
	// so the rows are rewritten even if the storage type stays.
	converted bool
}

// loadBuilder makes a builder over an existing table.
func (pc *planCtx) loadBuilder(e graph.TableEntry, m TableMeta) (*tableBuilder, error) {
	relTaken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	conTaken, err := pc.v.constraintNames()
	if err != nil {
		return nil, err
	}
	b := &tableBuilder{pc: pc, name: e.Name, relTaken: relTaken, conTaken: conTaken, own: map[string]bool{}, meta: cloneMeta(m)}
	for _, n := range m.constraintNames() {
		b.own[n] = true
	}
	for i, c := range b.meta.Columns {
		b.cols = append(b.cols, &colBuild{meta: c, notNull: !e.Def.Columns[i].Nullable, hasDef: c.Default != ""})
	}
	return b, nil
}

// cloneMeta deep-copies a meta (its slices are edited in place).
func cloneMeta(m TableMeta) TableMeta {
	var c TableMeta
	_ = jsonRoundTrip(m, &c)
	return c
}

func (pc *planCtx) startAlter(name string, tag string) (*alterState, bool, error) {
	e, m, ok, err := pc.v.table(name)
	if err != nil || !ok {
		return nil, ok, err
	}
	b, err := pc.loadBuilder(e, m)
	if err != nil {
		return nil, true, err
	}
	a := &alterState{pc: pc, entry: e, old: e.Def, b: b, others: map[string]*alterState{}, tag: tag}
	for _, c := range e.Def.Columns {
		a.ids = append(a.ids, c.ID)
		a.exprs = append(a.exprs, quoteIdent(c.Name))
	}
	return a, true, nil
}

// other returns the alter state of a dependent table (created on first use).
func (a *alterState) other(name string) (*alterState, error) {
	if name == a.entry.Name {
		return a, nil
	}
	if o := a.others[name]; o != nil {
		return o, nil
	}
	o, ok, err := a.pc.startAlter(name, a.tag)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	a.others[name] = o
	a.order = append(a.order, name)
	return o, nil
}

// changes renders the ALTER (and its consequences) as changes.
func (a *alterState) changes() ([]Change, error) {
	main, err := a.change()
	if err != nil {
		return nil, err
	}
	main.Notice = a.notices
	if len(a.order) == 0 && len(a.drops) == 0 && len(a.after) == 0 && main.Rewrite == nil && len(main.Validate) == 0 && main.NewName == "" && sameDef(main.Def, a.old) {
		// Nothing changes (IF [NOT] EXISTS skipped, a no-op subcommand):
		// no catalog write, no graph commit.
		return []Change{&NoOp{CommandTag: a.tag, notes: notes{a.notices}}}, nil
	}
	out := []Change{main}
	for _, n := range a.order {
		c, err := a.others[n].change()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	out = append(out, a.drops...)
	return append(out, a.after...), nil
}

func (a *alterState) change() (*AlterTable, error) {
	b := a.b
	b.syncColumns()
	def, err := buildDef(b.meta, func(i int) bool { return !b.cols[i].notNull })
	if err != nil {
		return nil, err
	}
	for i := range def.Columns {
		def.Columns[i].ID = a.ids[i]
	}
	c := &AlterTable{Name: a.entry.Name, Def: def, Meta: b.meta, Validate: a.validate, CommandTag: a.tag}
	if a.newName != "" && a.newName != a.entry.Name {
		c.NewName = a.newName
	}
	if a.converted || a.physicalChange(def) {
		c.Rewrite = &RowRewrite{Exprs: slices.Clone(a.exprs)}
	}
	return c, nil
}

// physicalChange reports whether the stored columns (names, types, order)
// differ, which needs a rewrite into a new incarnation.
func (a *alterState) physicalChange(def graph.TableDef) bool {
	if len(def.Columns) != len(a.old.Columns) {
		return true
	}
	for i, c := range def.Columns {
		o := a.old.Columns[i]
		if c.Name != o.Name || c.Type != o.Type || c.ID != o.ID {
			return true
		}
	}
	return false
}

func (a *alterState) addValidation(v Validation) {
	v.Table = a.currentName()
	a.validate = append(a.validate, v)
}

func (a *alterState) currentName() string {
	if a.newName != "" {
		return a.newName
	}
	return a.entry.Name
}

func (a *alterState) notice(format string, args ...any) {
	a.notices = append(a.notices, notice(wire.CodeSuccessfulCompletion, format, args...))
}

// alterTable plans ALTER TABLE.
func (pc *planCtx) alterTable(st *q.AlterTableStmt) ([]Change, error) {
	switch st.Objtype {
	case q.ObjectType_OBJECT_TABLE:
	case q.ObjectType_OBJECT_SEQUENCE, q.ObjectType_OBJECT_INDEX:
		// ALTER SEQUENCE/INDEX … OWNER TO and friends arrive here.
		if allCmds(st.Cmds, q.AlterTableType_AT_ChangeOwner, q.AlterTableType_AT_SetRelOptions, q.AlterTableType_AT_ResetRelOptions) {
			return pc.noOpOn(st.Relation, st.MissingOk, alterTag(st.Objtype))
		}
		return nil, notSupported("%s with these options", alterTag(st.Objtype))
	default:
		return nil, notSupported("%s", alterTag(st.Objtype))
	}
	if allCmds(st.Cmds, noEffectCmds...) {
		return pc.noOpOn(st.Relation, st.MissingOk, "ALTER TABLE")
	}
	name, err := relName(st.Relation)
	if err != nil {
		return nil, err
	}
	a, ok, err := pc.startAlter(name, "ALTER TABLE")
	if err != nil {
		return nil, err
	}
	if !ok {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: "ALTER TABLE", notes: notes{[]*wire.Error{notice(wire.CodeSuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	if a.b.meta.Relkind != RelTable {
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a table", name).WithHint("Use ALTER SEQUENCE to change a sequence.")
	}
	for _, n := range st.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd == nil {
			continue
		}
		if err := a.apply(cmd); err != nil {
			return nil, err
		}
	}
	if err := a.b.graphRole(); err != nil {
		return nil, err
	}
	return a.changes()
}

func allCmds(cmds []*q.Node, ok ...q.AlterTableType) bool {
	for _, n := range cmds {
		if c := n.GetAlterTableCmd(); c == nil || !slices.Contains(ok, c.Subtype) {
			return false
		}
	}
	return true
}

func alterTag(t q.ObjectType) string {
	name := strings.TrimPrefix(t.String(), "OBJECT_")
	return "ALTER " + strings.ReplaceAll(name, "_", " ")
}

// apply runs one ALTER TABLE subcommand.
func (a *alterState) apply(cmd *q.AlterTableCmd) error {
	b := a.b
	switch cmd.Subtype {
	case q.AlterTableType_AT_AddColumn:
		return a.addColumn(cmd.Def.GetColumnDef(), cmd.MissingOk)
	case q.AlterTableType_AT_DropColumn:
		return a.dropColumn(cmd.Name, cmd.MissingOk, cmd.Behavior == q.DropBehavior_DROP_CASCADE)
	case q.AlterTableType_AT_ColumnDefault:
		c, err := a.column(cmd.Name)
		if err != nil {
			return err
		}
		if c.meta.Identity != "" {
			return errorf(CodeSyntaxError, "column \"%s\" of relation \"%s\" is an identity column", c.meta.Name, b.name).
				WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
		}
		if cmd.Def == nil {
			c.meta.Default, c.hasDef = "", false
			return nil
		}
		sql, err := a.pc.defaultSQL(cmd.Def, a.b.ownSequence)
		if err != nil {
			return err
		}
		c.meta.Default, c.hasDef = sql, true
		return nil
	case q.AlterTableType_AT_SetNotNull:
		c, err := a.column(cmd.Name)
		if err != nil {
			return err
		}
		if !c.notNull {
			c.notNull = true
			a.addValidation(Validation{Kind: ValidateNotNull, Columns: []string{c.meta.Name}})
		}
		return nil
	case q.AlterTableType_AT_DropNotNull:
		c, err := a.column(cmd.Name)
		if err != nil {
			return err
		}
		if b.meta.PrimaryKey != nil && slices.Contains(b.meta.PrimaryKey.Columns, c.meta.Name) {
			return errorf(CodeInvalidTableDefinition, "column \"%s\" is in a primary key", c.meta.Name)
		}
		if c.meta.Identity != "" {
			return errorf(CodeInvalidTableDefinition, "column \"%s\" of relation \"%s\" is an identity column", c.meta.Name, b.name)
		}
		if b.meta.Graph.Kind == graph.EdgeTable && (c.meta.Name == b.meta.Graph.Source || c.meta.Name == b.meta.Graph.Target) {
			return errorf(CodeInvalidTableDefinition, "column \"%s\" is an endpoint of edge table \"%s\"", c.meta.Name, b.name)
		}
		c.notNull = false
		return nil
	case q.AlterTableType_AT_AddConstraint:
		con := cmd.Def.GetConstraint()
		if con == nil {
			return errorf(CodeSyntaxError, "ADD CONSTRAINT without a constraint")
		}
		return a.addConstraint(con)
	case q.AlterTableType_AT_DropConstraint:
		return a.dropConstraint(cmd.Name, cmd.MissingOk, cmd.Behavior == q.DropBehavior_DROP_CASCADE)
	case q.AlterTableType_AT_ValidateConstraint:
		return a.validateConstraint(cmd.Name)
	case q.AlterTableType_AT_AlterColumnType:
		return a.alterType(cmd.Name, cmd.Def.GetColumnDef())
	case q.AlterTableType_AT_AddIdentity:
		return a.addIdentity(cmd.Name, cmd.Def.GetConstraint())
	case q.AlterTableType_AT_DropIdentity:
		c, err := a.column(cmd.Name)
		if err != nil {
			return err
		}
		if c.meta.Identity == "" {
			if cmd.MissingOk {
				a.notice("column \"%s\" of relation \"%s\" is not an identity column, skipping", c.meta.Name, b.name)
				return nil
			}
			return errorf(CodeObjectNotInState, "column \"%s\" of relation \"%s\" is not an identity column", c.meta.Name, b.name)
		}
		c.meta.Identity, c.meta.Sequence = "", nil
		return nil
	case q.AlterTableType_AT_SetIdentity:
		return a.setIdentity(cmd.Name, cmd.Def.GetList().GetItems())
	case q.AlterTableType_AT_SetRelOptions:
		return a.setOptions(cmd.Def.GetList().GetItems())
	case q.AlterTableType_AT_ResetRelOptions:
		return a.resetOptions(cmd.Def.GetList().GetItems())
	}
	if slices.Contains(noEffectCmds, cmd.Subtype) {
		// Ownership and physical tuning have no meaning here; accepted.
		return nil
	}
	return notSupported("ALTER TABLE %s", atName(cmd.Subtype))
}

// noEffectCmds are subcommands accepted without effect.
var noEffectCmds = []q.AlterTableType{
	q.AlterTableType_AT_ChangeOwner, q.AlterTableType_AT_SetStatistics, q.AlterTableType_AT_SetStorage,
	q.AlterTableType_AT_SetCompression, q.AlterTableType_AT_ClusterOn, q.AlterTableType_AT_DropCluster,
	q.AlterTableType_AT_SetLogged, q.AlterTableType_AT_SetUnLogged, q.AlterTableType_AT_ReplicaIdentity,
	q.AlterTableType_AT_SetOptions, q.AlterTableType_AT_ResetOptions,
}

// atName spells a subcommand for messages ("ENABLE ROW SECURITY").
func atName(t q.AlterTableType) string {
	s := strings.TrimPrefix(t.String(), "AlterTableType_")
	s = strings.TrimPrefix(s, "AT_")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// column resolves a column of the table being altered.
func (a *alterState) column(name string) (*colBuild, error) {
	c := a.b.col(name)
	if c == nil {
		return nil, errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, a.b.name)
	}
	return c, nil
}

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
	if err := a.b.addColumn(cd); err != nil {
		return err
	}
	c := a.b.cols[len(a.b.cols)-1]
	a.ids = append(a.ids, 0)
	a.exprs = append(a.exprs, fillExpr(c.meta))
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

// flush names the builder's pending constraints and records their
// validations.
func (a *alterState) flush() error {
	b := a.b
	b.addedKeys, b.addedChecks, b.addedFKs = nil, nil, nil
	if err := b.flush(); err != nil {
		return err
	}
	for _, k := range b.addedKeys {
		if k.primary {
			for _, c := range k.cols {
				a.addValidation(Validation{Kind: ValidateNotNull, Constraint: k.Name, Columns: []string{c}})
			}
		}
		a.addValidation(Validation{Kind: ValidateUnique, Constraint: k.Name, Columns: k.cols})
	}
	for _, c := range b.addedChecks {
		a.addValidation(Validation{Kind: ValidateCheck, Constraint: c.Name, Expr: c.Expr})
	}
	for _, f := range b.addedFKs {
		a.addValidation(Validation{Kind: ValidateForeignKey, Constraint: f.Name, Columns: f.Columns, RefTable: f.RefTable, RefColumns: f.RefColumns})
	}
	return nil
}

func (a *alterState) addConstraint(con *q.Constraint) error {
	b := a.b
	switch con.Contype {
	case q.ConstrType_CONSTR_NOTNULL:
		for _, k := range stringList(con.Keys) {
			c, err := a.column(k)
			if err != nil {
				return err
			}
			c.notNull = true
			a.addValidation(Validation{Kind: ValidateNotNull, Columns: []string{k}})
		}
		return nil
	case q.ConstrType_CONSTR_PRIMARY, q.ConstrType_CONSTR_UNIQUE:
		if con.Indexname != "" {
			return notSupported("ADD CONSTRAINT … USING INDEX")
		}
	}
	if con.Conname != "" && b.own[con.Conname] {
		return errorf(CodeDuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", con.Conname, b.name)
	}
	if err := b.addTableConstraint(con); err != nil {
		return err
	}
	return a.flush()
}

func (a *alterState) validateConstraint(name string) error {
	m := &a.b.meta
	for _, c := range m.Checks {
		if c.Name == name {
			a.addValidation(Validation{Kind: ValidateCheck, Constraint: c.Name, Expr: c.Expr})
			return nil
		}
	}
	for _, f := range m.ForeignKeys {
		if f.Name == name {
			a.addValidation(Validation{Kind: ValidateForeignKey, Constraint: f.Name, Columns: f.Columns, RefTable: f.RefTable, RefColumns: f.RefColumns})
			return nil
		}
	}
	if slices.Contains(m.constraintNames(), name) {
		return nil
	}
	return errorf(CodeUndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, a.b.name)
}

// dropConstraint removes a named constraint. A key referenced by other
// tables' foreign keys needs CASCADE (which drops those); an edge
// endpoint reference cannot be dropped.
func (a *alterState) dropConstraint(name string, missingOk, cascade bool) error {
	m := &a.b.meta
	switch {
	case m.PrimaryKey != nil && m.PrimaryKey.Name == name:
		if err := a.dropKeyDependents(name, m.PrimaryKey.Columns, cascade); err != nil {
			return err
		}
		m.PrimaryKey = nil
		m.Indexes = slices.DeleteFunc(m.Indexes, func(ix Index) bool { return ix.Name == name })
		return nil
	}
	for i, u := range m.Uniques {
		if u.Name == name {
			if err := a.dropKeyDependents(name, u.Columns, cascade); err != nil {
				return err
			}
			m.Uniques = slices.Delete(m.Uniques, i, i+1)
			m.Indexes = slices.DeleteFunc(m.Indexes, func(ix Index) bool { return ix.Name == name })
			return nil
		}
	}
	for i, c := range m.Checks {
		if c.Name == name {
			m.Checks = slices.Delete(m.Checks, i, i+1)
			return nil
		}
	}
	for i, f := range m.ForeignKeys {
		if f.Name == name {
			if m.isEndpointFK(f) {
				return errorf(CodeInvalidTableDefinition, "cannot drop constraint %s on table %s because it is the endpoint reference of an edge table", name, a.b.name).
					WithHint("Drop the edge table instead.")
			}
			m.ForeignKeys = slices.Delete(m.ForeignKeys, i, i+1)
			return nil
		}
	}
	if missingOk {
		a.notice("constraint \"%s\" of relation \"%s\" does not exist, skipping", name, a.b.name)
		return nil
	}
	return errorf(CodeUndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, a.b.name)
}

// dropKeyDependents handles foreign keys of other tables that rely on the
// key (cols) being dropped.
func (a *alterState) dropKeyDependents(keyName string, cols []string, cascade bool) error {
	deps, err := a.pc.v.referencing(a.entry.Name)
	if err != nil {
		return err
	}
	var hit []dependency
	for _, d := range deps {
		if sameSet(d.FK.RefColumns, cols) {
			hit = append(hit, d)
		}
	}
	// self-references
	for _, f := range a.b.meta.ForeignKeys {
		if f.RefTable == a.entry.Name && sameSet(f.RefColumns, cols) {
			hit = append(hit, dependency{Table: a.entry.Name, FK: f})
		}
	}
	if len(hit) == 0 {
		return nil
	}
	var lines []string
	for _, d := range hit {
		lines = append(lines, fmt.Sprintf("constraint %s on table %s depends on index %s", d.FK.Name, d.Table, keyName))
	}
	if !cascade {
		return errorf(CodeDependentObjects, "cannot drop constraint %s on table %s because other objects depend on it", keyName, a.entry.Name).
			WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, d := range hit {
		if d.Edge {
			return errorf(CodeDependentObjects, "cannot drop constraint %s on table %s because edge table %s references it", keyName, a.entry.Name, d.Table).
				WithDetail(fmt.Sprintf("constraint %s on table %s is an edge endpoint reference", d.FK.Name, d.Table)).
				WithHint("Drop the edge table first.")
		}
		o, err := a.other(d.Table)
		if err != nil {
			return err
		}
		fkName := d.FK.Name
		o.b.meta.ForeignKeys = slices.DeleteFunc(o.b.meta.ForeignKeys, func(f ForeignKey) bool { return f.Name == fkName })
		a.notice("drop cascades to constraint %s on table %s", d.FK.Name, d.Table)
	}
	return nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
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
	m.Indexes = slices.DeleteFunc(m.Indexes, func(ix Index) bool { return slices.Contains(ix.Columns, name) })
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
	rt, err := resolveType(cd.TypeName)
	if err != nil {
		return err
	}
	if rt.Serial {
		return errorf(CodeUndefinedObject, "type \"%s\" does not exist", strings.ToLower(mustTypeName(cd.TypeName)))
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

// setOptions handles ALTER TABLE … SET (graph.max_out = n, …).
func (a *alterState) setOptions(items []*q.Node) error {
	g := &a.b.meta.Graph
	oldKind, oldMax, oldMin := g.Kind, g.MaxOut, g.MinOut
	given := map[string]bool{}
	for _, n := range items {
		if d := n.GetDefElem(); d != nil && d.Defnamespace == "graph" {
			given[d.Defname] = true
		}
	}
	if err := a.b.options(items); err != nil {
		return err
	}
	if given["kind"] && g.Kind != graph.EdgeTable && oldKind == graph.EdgeTable {
		// leaving the edge role drops its endpoint settings
		if !given["source"] {
			g.Source = ""
		}
		if !given["target"] {
			g.Target = ""
		}
		if !given["max_out"] {
			g.MaxOut = nil
		}
		if !given["min_out"] {
			g.MinOut = nil
		}
	}
	wasNotNull := map[string]bool{}
	for _, c := range a.b.cols {
		wasNotNull[c.meta.Name] = c.notNull
	}
	if err := a.b.graphRole(); err != nil {
		return err
	}
	for _, c := range a.b.cols {
		if c.notNull && !wasNotNull[c.meta.Name] {
			a.addValidation(Validation{Kind: ValidateNotNull, Columns: []string{c.meta.Name}})
		}
	}
	becameEdge := g.Kind == graph.EdgeTable && oldKind != graph.EdgeTable
	if g.MaxOut != nil && (becameEdge || oldMax == nil || *g.MaxOut < *oldMax) {
		a.addValidation(Validation{Kind: ValidateMaxOut, Columns: []string{g.Source}, Limit: *g.MaxOut})
	}
	if g.MinOut != nil && (becameEdge || oldMin == nil || *g.MinOut > *oldMin) {
		a.addValidation(Validation{Kind: ValidateMinOut, Columns: []string{g.Source}, Limit: *g.MinOut})
	}
	return nil
}

// resetOptions handles ALTER TABLE … RESET (…).
func (a *alterState) resetOptions(items []*q.Node) error {
	m := &a.b.meta
	for _, n := range items {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if d.Defnamespace == "graph" {
			switch d.Defname {
			case "max_out":
				m.Graph.MaxOut = nil
			case "min_out":
				m.Graph.MinOut = nil
			default:
				return notSupported("resetting graph.%s", d.Defname)
			}
			continue
		}
		key := d.Defname
		if d.Defnamespace != "" {
			key = d.Defnamespace + "." + key
		}
		delete(m.Options, key)
	}
	return nil
}

// sameDef reports identical definitions (including the encoded meta).
func sameDef(a, b graph.TableDef) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
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
	if set.restart != nil || set.restartAtStart {
		v := opts.Start
		if set.restart != nil {
			v = *set.restart
		}
		a.after = append(a.after, &SetSequence{Sequence: *c.meta.Sequence, Value: v, CommandTag: a.tag})
	}
	return nil
}
