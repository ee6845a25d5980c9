package ddl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// relName checks a relation name's schema (only public exists) and
// returns the bare name.
func relName(rv *q.RangeVar) (string, error) {
	if rv == nil || rv.Relname == "" {
		return "", errorf(CodeSyntaxError, "missing relation name")
	}
	if rv.Catalogname != "" {
		return "", errorf(CodeFeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	if rv.Schemaname == "pg_catalog" || rv.Schemaname == "information_schema" {
		return "", errorf("42501", "permission denied for schema %s", rv.Schemaname)
	}
	if rv.Schemaname != "" && rv.Schemaname != "public" {
		return "", errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", rv.Schemaname)
	}
	return rv.Relname, nil
}

// colBuild is one column while a CREATE TABLE is assembled.
type colBuild struct {
	meta      ColumnMeta
	notNull   bool
	nullSet   bool // an explicit NULL was written
	serial    bool
	hasDef    bool
	identOpts []*q.Node
}

// pendingKey is a PRIMARY KEY / UNIQUE before its name is chosen.
type pendingKey struct {
	con     *q.Constraint
	cols    []string
	primary bool
}

type pendingCheck struct {
	con *q.Constraint
}

type pendingFK struct {
	con  *q.Constraint
	cols []string
}

// tableBuilder assembles a new table's definition.
type tableBuilder struct {
	pc       *planCtx
	name     string
	cols     []*colBuild
	keys     []pendingKey
	checks   []pendingCheck
	fks      []pendingFK
	relTaken map[string]bool // relation namespace (tables, sequences, indexes)
	conTaken map[string]bool // constraint names, schema-wide
	own      map[string]bool // explicit constraint names of this table
	meta     TableMeta

	// constraints flush added (ALTER TABLE validates them)
	addedKeys   []addedKey
	addedChecks []Check
	addedFKs    []ForeignKey
}

type addedKey struct {
	KeyConstraint
	primary bool
	cols    []string
}

func (b *tableBuilder) col(name string) *colBuild {
	for _, c := range b.cols {
		if c.meta.Name == name {
			return c
		}
	}
	return nil
}

func (pc *planCtx) createTable(st *q.CreateStmt) ([]Change, error) {
	name, err := relName(st.Relation)
	if err != nil {
		return nil, err
	}
	switch st.Relation.Relpersistence {
	case "t":
		return nil, notSupported("CREATE TEMPORARY TABLE")
	}
	if len(st.InhRelations) > 0 {
		return nil, notSupported("CREATE TABLE … INHERITS")
	}
	if st.Partspec != nil || st.Partbound != nil {
		return nil, notSupported("partitioned tables")
	}
	if st.OfTypename != nil {
		return nil, notSupported("CREATE TABLE … OF type")
	}
	if st.Oncommit != q.OnCommitAction_ONCOMMIT_NOOP && st.Oncommit != q.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED {
		return nil, notSupported("ON COMMIT")
	}
	if _, ok := pc.v.cat.Table(name); ok {
		if st.IfNotExists {
			return []Change{&NoOp{CommandTag: "CREATE TABLE", notes: notes{[]*wire.Error{notice(CodeDuplicateTable, "relation \"%s\" already exists, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", name)
	}
	relTaken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	if relTaken[name] {
		if st.IfNotExists {
			return []Change{&NoOp{CommandTag: "CREATE TABLE", notes: notes{[]*wire.Error{notice(CodeDuplicateTable, "relation \"%s\" already exists, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", name)
	}
	relTaken[name] = true
	conTaken, err := pc.v.constraintNames()
	if err != nil {
		return nil, err
	}
	b := &tableBuilder{pc: pc, name: name, relTaken: relTaken, conTaken: conTaken, own: map[string]bool{},
		meta: TableMeta{Version: MetaVersion, Relkind: RelTable}}
	if err := b.options(st.Options); err != nil {
		return nil, err
	}
	var tableCons []*q.Constraint
	for _, el := range st.TableElts {
		switch {
		case el.GetColumnDef() != nil:
			if err := b.addColumn(el.GetColumnDef()); err != nil {
				return nil, err
			}
		case el.GetConstraint() != nil:
			tableCons = append(tableCons, el.GetConstraint())
		case el.GetTableLikeClause() != nil:
			return nil, notSupported("CREATE TABLE … (LIKE …)")
		default:
			return nil, errorf(CodeSyntaxError, "unexpected table element")
		}
	}
	for _, c := range st.Constraints {
		if con := c.GetConstraint(); con != nil {
			tableCons = append(tableCons, con)
		}
	}
	for _, con := range tableCons {
		if err := b.addTableConstraint(con); err != nil {
			return nil, err
		}
	}
	if len(b.cols) == 0 {
		// PostgreSQL allows zero-column tables; Lance needs a schema.
		return nil, notSupported("a table without columns")
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	def, err := b.def()
	if err != nil {
		return nil, err
	}
	return []Change{&CreateTable{Name: name, Kind: b.meta.Graph.Kind, Def: def, Meta: b.meta}}, nil
}

// options reads WITH (…): graph.* options set the graph role, others are
// kept verbatim (storage parameters have no effect here).
func (b *tableBuilder) options(opts []*q.Node) error {
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		val := defArgString(d.Arg)
		if d.Defnamespace != "graph" {
			key := d.Defname
			if d.Defnamespace != "" {
				key = d.Defnamespace + "." + key
			}
			if b.meta.Options == nil {
				b.meta.Options = map[string]string{}
			}
			b.meta.Options[key] = val
			continue
		}
		switch d.Defname {
		case "kind":
			switch strings.ToLower(val) {
			case "node":
				b.meta.Graph.Kind = graph.NodeTable
				b.meta.Graph.Declared = true
			case "edge":
				b.meta.Graph.Kind = graph.EdgeTable
				b.meta.Graph.Declared = true
			case "relation":
				b.meta.Graph.Kind = graph.RelationTable
				b.meta.Graph.Declared = true
			default:
				return errorf(CodeInvalidParameterValue, "invalid value for graph.kind: \"%s\"", val).WithHint("Valid values are \"node\", \"edge\" and \"relation\".")
			}
		case "source":
			b.meta.Graph.Source = val
		case "target":
			b.meta.Graph.Target = val
		case "max_out", "min_out":
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil || v < 0 {
				return errorf(CodeInvalidParameterValue, "invalid value for graph.%s: \"%s\"", d.Defname, val).WithHint("A non-negative integer is required.")
			}
			if d.Defname == "max_out" {
				b.meta.Graph.MaxOut = &v
			} else {
				b.meta.Graph.MinOut = &v
			}
		default:
			return errorf(CodeInvalidParameterValue, "unrecognized parameter \"graph.%s\"", d.Defname)
		}
	}
	return nil
}

// defArgString renders an option argument (identifier, string, number).
func defArgString(n *q.Node) string {
	if n == nil {
		return "true"
	}
	switch {
	case n.GetTypeName() != nil:
		s, _ := typeNameParts(n.GetTypeName())
		return s
	case n.GetString_() != nil:
		return n.GetString_().Sval
	case n.GetInteger() != nil:
		return strconv.Itoa(int(n.GetInteger().Ival))
	case n.GetFloat() != nil:
		return n.GetFloat().Fval
	case n.GetBoolean() != nil:
		return strconv.FormatBool(n.GetBoolean().Boolval)
	}
	return ""
}

func (b *tableBuilder) addColumn(cd *q.ColumnDef) error {
	if b.col(cd.Colname) != nil {
		return errorf(CodeDuplicateColumn, "column \"%s\" specified more than once", cd.Colname)
	}
	rt, err := resolveType(cd.TypeName)
	if err != nil {
		return err
	}
	c := &colBuild{meta: ColumnMeta{Name: cd.Colname, Type: rt.PGType}, serial: rt.Serial, notNull: cd.IsNotNull}
	b.cols = append(b.cols, c)
	if cd.RawDefault != nil {
		if err := b.setDefault(c, cd.RawDefault); err != nil {
			return err
		}
	}
	if cd.Generated != "" {
		return notSupported("generated columns")
	}
	for _, n := range cd.Constraints {
		con := n.GetConstraint()
		if con == nil {
			continue
		}
		if err := b.addColumnConstraint(c, con); err != nil {
			return err
		}
	}
	if rt.Serial {
		if c.hasDef {
			return errorf(CodeSyntaxError, "multiple default values specified for column \"%s\" of table \"%s\"", c.meta.Name, b.name)
		}
		if c.meta.Identity != "" {
			return errorf(CodeSyntaxError, "both default and identity specified for column \"%s\" of table \"%s\"", c.meta.Name, b.name)
		}
		seq := b.ownedSequence(c, defaultSeqOptions(c.meta.Type))
		c.meta.Default = nextvalSQL(seq.Name)
		c.notNull = true
	}
	if c.meta.Identity != "" {
		if c.hasDef {
			return errorf(CodeSyntaxError, "both default and identity specified for column \"%s\" of table \"%s\"", c.meta.Name, b.name)
		}
		t := c.meta.Type.OID
		if c.meta.Type.IsVector() || (t != exec.OIDInt2 && t != exec.OIDInt4 && t != exec.OIDInt8) {
			return errorf(CodeInvalidParameterValue, "identity column type must be smallint, integer, or bigint")
		}
		opts, set, err := parseSeqOptions(c.identOpts, SeqOptions{Type: c.meta.Type}, true, true, "")
		if err != nil {
			return err
		}
		if set.typ {
			return errorf(CodeSyntaxError, "option \"as\" not recognized")
		}
		seq := b.ownedSequence(c, opts)
		if len(set.name) > 0 {
			if err := b.renameOwnedSequence(seq, set.name[len(set.name)-1]); err != nil {
				return err
			}
		}
		c.notNull = true
	}
	return nil
}

// ownedSequence creates the sequence of a serial/identity column, named
// <table>_<column>_seq (numbered when taken).
func (b *tableBuilder) ownedSequence(c *colBuild, opts SeqOptions) *Sequence {
	s := &Sequence{
		Name:       chooseName(b.relTaken, b.name, c.meta.Name, "seq"),
		Key:        b.pc.newKey(),
		SeqOptions: opts,
		OwnedBy:    b.name + "." + c.meta.Name,
	}
	c.meta.Sequence = s
	return s
}

// renameOwnedSequence applies SEQUENCE NAME of an identity column.
func (b *tableBuilder) renameOwnedSequence(seq *Sequence, name string) error {
	name = truncateIdent(name)
	if b.relTaken[name] {
		return errorf(CodeDuplicateTable, "relation \"%s\" already exists", name)
	}
	delete(b.relTaken, seq.Name)
	b.relTaken[name] = true
	seq.Name = name
	return nil
}

func (b *tableBuilder) setDefault(c *colBuild, expr *q.Node) error {
	if c.hasDef {
		return errorf(CodeSyntaxError, "multiple default values specified for column \"%s\" of table \"%s\"", c.meta.Name, b.name)
	}
	sql, err := b.pc.defaultSQL(expr, b.ownSequence)
	if err != nil {
		return err
	}
	c.meta.Default = sql
	c.hasDef = true
	return nil
}

// ownSequence reports a sequence created by this statement.
func (b *tableBuilder) ownSequence(name string) bool {
	for _, c := range b.cols {
		if c.meta.Sequence != nil && c.meta.Sequence.Name == name {
			return true
		}
	}
	return false
}

// defaultSQL validates and stores a DEFAULT expression. nextval('x')
// calls are resolved now (as PostgreSQL's regclass cast does) and stored
// as nextval('x'::regclass), so renames and drops of x find them.
func (pc *planCtx) defaultSQL(expr *q.Node, pending func(string) bool) (string, error) {
	if hasNode(expr, isSubquery) {
		return "", errorf(CodeFeatureNotSupported, "cannot use subquery in DEFAULT expression")
	}
	if len(columnRefs(expr)) > 0 {
		return "", errorf(CodeInvalidColumnReference, "cannot use column reference in DEFAULT expression")
	}
	expr, err := pc.canonicalNextval(expr, pending)
	if err != nil {
		return "", err
	}
	return deparseExpr(expr)
}

func (b *tableBuilder) setNotNull(c *colBuild, notNull bool) error {
	if (notNull && c.nullSet) || (!notNull && c.notNull) {
		return errorf(CodeSyntaxError, "conflicting NULL/NOT NULL declarations for column \"%s\" of table \"%s\"", c.meta.Name, b.name)
	}
	if notNull {
		c.notNull = true
	} else {
		c.nullSet = true
	}
	return nil
}

func (b *tableBuilder) reserveName(con *q.Constraint) error {
	if con.Conname == "" {
		return nil
	}
	if b.own[con.Conname] {
		return errorf(CodeDuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", con.Conname, b.name)
	}
	b.own[con.Conname] = true
	b.conTaken[con.Conname] = true
	return nil
}

func (b *tableBuilder) addColumnConstraint(c *colBuild, con *q.Constraint) error {
	switch con.Contype {
	case q.ConstrType_CONSTR_NULL:
		return b.setNotNull(c, false)
	case q.ConstrType_CONSTR_NOTNULL:
		return b.setNotNull(c, true)
	case q.ConstrType_CONSTR_DEFAULT:
		return b.setDefault(c, con.RawExpr)
	case q.ConstrType_CONSTR_IDENTITY:
		if c.meta.Identity != "" {
			return errorf(CodeSyntaxError, "multiple identity specifications for column \"%s\" of table \"%s\"", c.meta.Name, b.name)
		}
		if c.nullSet {
			return errorf(CodeSyntaxError, "conflicting NULL/NOT NULL declarations for column \"%s\" of table \"%s\"", c.meta.Name, b.name)
		}
		c.meta.Identity = IdentityByDefault
		if con.GeneratedWhen == "a" {
			c.meta.Identity = IdentityAlways
		}
		c.identOpts = con.Options
		return nil
	case q.ConstrType_CONSTR_GENERATED:
		return notSupported("generated columns")
	case q.ConstrType_CONSTR_CHECK:
		if err := b.reserveName(con); err != nil {
			return err
		}
		b.checks = append(b.checks, pendingCheck{con: con})
		return nil
	case q.ConstrType_CONSTR_PRIMARY, q.ConstrType_CONSTR_UNIQUE:
		if err := b.reserveName(con); err != nil {
			return err
		}
		b.keys = append(b.keys, pendingKey{con: con, cols: []string{c.meta.Name}, primary: con.Contype == q.ConstrType_CONSTR_PRIMARY})
		return nil
	case q.ConstrType_CONSTR_FOREIGN:
		if err := b.reserveName(con); err != nil {
			return err
		}
		b.fks = append(b.fks, pendingFK{con: con, cols: []string{c.meta.Name}})
		return nil
	case q.ConstrType_CONSTR_EXCLUSION:
		return notSupported("exclusion constraints")
	case q.ConstrType_CONSTR_ATTR_DEFERRABLE, q.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE,
		q.ConstrType_CONSTR_ATTR_DEFERRED, q.ConstrType_CONSTR_ATTR_IMMEDIATE:
		// Constraints are verified at the statement and again at COMMIT.
		return nil
	}
	return errorf(CodeSyntaxError, "unexpected constraint on column \"%s\"", c.meta.Name)
}

func (b *tableBuilder) addTableConstraint(con *q.Constraint) error {
	switch con.Contype {
	case q.ConstrType_CONSTR_CHECK:
		if err := b.reserveName(con); err != nil {
			return err
		}
		b.checks = append(b.checks, pendingCheck{con: con})
	case q.ConstrType_CONSTR_PRIMARY, q.ConstrType_CONSTR_UNIQUE:
		if err := b.reserveName(con); err != nil {
			return err
		}
		if len(con.Including) > 0 {
			return notSupported("INCLUDE columns")
		}
		cols := stringList(con.Keys)
		b.keys = append(b.keys, pendingKey{con: con, cols: cols, primary: con.Contype == q.ConstrType_CONSTR_PRIMARY})
	case q.ConstrType_CONSTR_FOREIGN:
		if err := b.reserveName(con); err != nil {
			return err
		}
		b.fks = append(b.fks, pendingFK{con: con, cols: stringList(con.FkAttrs)})
	case q.ConstrType_CONSTR_EXCLUSION:
		return notSupported("exclusion constraints")
	case q.ConstrType_CONSTR_NOTNULL:
		// PostgreSQL 17 grammar has no table-level NOT NULL; keep for safety.
		for _, k := range stringList(con.Keys) {
			c := b.col(k)
			if c == nil {
				return errorf(CodeUndefinedColumn, "column \"%s\" does not exist", k)
			}
			c.notNull = true
		}
	default:
		return errorf(CodeSyntaxError, "unexpected table constraint")
	}
	return nil
}

func stringList(ns []*q.Node) []string {
	var out []string
	for _, n := range ns {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// finish names and validates the constraints and the graph role.
func (b *tableBuilder) finish() error {
	if err := b.flush(); err != nil {
		return err
	}
	return b.graphRole()
}

// syncColumns copies the column states into the meta.
func (b *tableBuilder) syncColumns() {
	b.meta.Columns = b.meta.Columns[:0]
	for _, c := range b.cols {
		b.meta.Columns = append(b.meta.Columns, c.meta)
	}
}

// flush names, validates and records the pending constraints (recorded
// in added* too, for ALTER TABLE's validations).
func (b *tableBuilder) flush() error {
	b.syncColumns()
	resolveCol := func(n string) (*colBuild, error) {
		c := b.col(n)
		if c == nil {
			return nil, errorf(CodeUndefinedColumn, "column \"%s\" named in key does not exist", n)
		}
		return c, nil
	}
	// Keys: explicit names were reserved; PostgreSQL names the primary key
	// <table>_pkey and a unique constraint <table>_<cols>_key.
	for _, k := range b.keys {
		if k.primary && b.meta.PrimaryKey != nil {
			return errorf(CodeInvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", b.name)
		}
		seen := map[string]bool{}
		for _, n := range k.cols {
			c, err := resolveCol(n)
			if err != nil {
				return err
			}
			if seen[n] {
				return errorf(CodeDuplicateColumn, "column \"%s\" appears twice in %s constraint", n, map[bool]string{true: "primary key", false: "unique"}[k.primary])
			}
			seen[n] = true
			if c.meta.Type.IsVector() || c.meta.Type.Exec().OID == exec.OIDJSON {
				return errorf(CodeUndefinedObject, "data type %s has no default operator class for access method \"btree\"", c.meta.Type)
			}
			if k.primary {
				if c.nullSet {
					return errorf(CodeSyntaxError, "conflicting NULL/NOT NULL declarations for column \"%s\" of table \"%s\"", n, b.name)
				}
				c.notNull = true
			}
		}
		name := k.con.Conname
		if name == "" {
			if k.primary {
				name = chooseName(b.relTaken, b.name, "", "pkey")
			} else {
				name = chooseName(b.relTaken, b.name, columnsLabel(k.cols), "key")
			}
			b.conTaken[name] = true
		} else if b.relTaken[name] {
			return errorf(CodeDuplicateTable, "relation \"%s\" already exists", name)
		} else {
			b.relTaken[name] = true
		}
		kc := KeyConstraint{Name: name, Columns: k.cols, NullsNotDistinct: k.con.NullsNotDistinct}
		b.addedKeys = append(b.addedKeys, addedKey{kc, k.primary, k.cols})
		if k.primary {
			b.meta.PrimaryKey = &kc
		} else {
			b.meta.Uniques = append(b.meta.Uniques, kc)
		}
		b.meta.Indexes = append(b.meta.Indexes, Index{Name: name, Columns: k.cols, Unique: true, Primary: k.primary, Constraint: name})
	}
	for _, ck := range b.checks {
		chk, err := b.check(ck.con)
		if err != nil {
			return err
		}
		b.meta.Checks = append(b.meta.Checks, chk)
		if !ck.con.SkipValidation {
			b.addedChecks = append(b.addedChecks, chk)
		}
	}
	for _, f := range b.fks {
		fk, err := b.pc.foreignKey(b.name, f.con, f.cols, b.selfLookup, b.conTaken)
		if err != nil {
			return err
		}
		b.meta.ForeignKeys = append(b.meta.ForeignKeys, fk)
		if !f.con.SkipValidation {
			b.addedFKs = append(b.addedFKs, fk)
		}
	}
	b.keys, b.checks, b.fks = nil, nil, nil
	b.syncColumns()
	return nil
}

// selfLookup exposes the table being created for self-references.
func (b *tableBuilder) selfLookup() (TableMeta, map[string]bool) {
	nn := map[string]bool{}
	for _, c := range b.cols {
		nn[c.meta.Name] = c.notNull
	}
	return b.meta, nn
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
	ref, err := relName(con.Pktable)
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
		if ix.Unique && same(ix.Columns) {
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

// graphRole sets and validates the graph kind: explicit graph.kind, else
// node when the table has a primary key, else a plain relation.
func (b *tableBuilder) graphRole() error {
	g := &b.meta.Graph
	if !g.Declared {
		g.Kind = graph.RelationTable
		if b.meta.PrimaryKey != nil {
			g.Kind = graph.NodeTable
		}
	}
	if g.Kind != graph.EdgeTable {
		switch {
		case g.Source != "" || g.Target != "":
			return errorf(CodeInvalidParameterValue, "graph.source and graph.target apply to edge tables only").WithHint("Add graph.kind = edge to the WITH clause.")
		case g.MaxOut != nil || g.MinOut != nil:
			return errorf(CodeInvalidParameterValue, "graph.max_out and graph.min_out apply to edge tables only").WithHint("Add graph.kind = edge to the WITH clause.")
		case g.Kind == graph.NodeTable && b.meta.PrimaryKey == nil:
			return errorf(CodeInvalidTableDefinition, "node table \"%s\" must have a primary key", b.name)
		}
		return nil
	}
	if g.Source == "" {
		g.Source = "src"
	}
	if g.Target == "" {
		g.Target = "dst"
	}
	if g.Source == g.Target {
		return errorf(CodeInvalidTableDefinition, "edge table \"%s\": graph.source and graph.target must be different columns", b.name)
	}
	if g.MaxOut != nil && g.MinOut != nil && *g.MinOut > *g.MaxOut {
		return errorf(CodeInvalidParameterValue, "graph.min_out (%d) must not exceed graph.max_out (%d)", *g.MinOut, *g.MaxOut)
	}
	for _, end := range []string{g.Source, g.Target} {
		c := b.col(end)
		if c == nil {
			return errorf(CodeUndefinedColumn, "edge endpoint column \"%s\" does not exist in table \"%s\"", end, b.name).
				WithHint("Name the endpoint columns src and dst, or set graph.source / graph.target.")
		}
		if err := b.pc.checkEndpoint(b.name, b.meta, end); err != nil {
			return err
		}
		// An edge without an endpoint is meaningless: endpoints are NOT NULL.
		c.notNull = true
	}
	return nil
}

// checkEndpoint verifies that an edge's endpoint column references the
// primary key of a node table.
func (pc *planCtx) checkEndpoint(table string, m TableMeta, end string) error {
	for _, fk := range m.ForeignKeys {
		if len(fk.Columns) != 1 || fk.Columns[0] != end {
			continue
		}
		var refMeta TableMeta
		if fk.RefTable == table {
			refMeta = m
		} else {
			_, rm, ok, err := pc.v.table(fk.RefTable)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			refMeta = rm
		}
		if refMeta.Graph.Kind == graph.NodeTable && refMeta.PrimaryKey != nil &&
			len(refMeta.PrimaryKey.Columns) == 1 && refMeta.PrimaryKey.Columns[0] == fk.RefColumns[0] {
			return nil
		}
	}
	return errorf(CodeInvalidTableDefinition, "edge endpoint \"%s\" of table \"%s\" must reference the primary key of a node table", end, table).
		WithHint(fmt.Sprintf("Declare %s … REFERENCES node_table (id).", quoteIdent(end)))
}

// def renders the graph definition (column ids 0: the adapter allocates).
func (b *tableBuilder) def() (graph.TableDef, error) {
	return buildDef(b.meta, func(i int) bool { return !b.cols[i].notNull })
}

// buildDef renders meta as a graph definition; nullable(i) says whether
// column i accepts NULL.
func buildDef(m TableMeta, nullable func(int) bool) (graph.TableDef, error) {
	def := graph.TableDef{}
	for i, c := range m.Columns {
		dt, err := c.Type.ArrowType()
		if err != nil {
			return graph.TableDef{}, err
		}
		lt, err := storageTypeString(dt)
		if err != nil {
			return graph.TableDef{}, errorf(CodeFeatureNotSupported, "column type %s is not supported yet", c.Type)
		}
		def.Columns = append(def.Columns, graph.ColumnDef{Name: c.Name, Type: lt, Nullable: nullable(i)})
	}
	if m.PrimaryKey != nil {
		def.PrimaryKey = append([]string(nil), m.PrimaryKey.Columns...)
	}
	def.Extra = m.Encode()
	return def, nil
}
