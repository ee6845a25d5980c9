package ddl

import (
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

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
	creating bool // CREATE TABLE (an edge may wait for its endpoint references)

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
func (b *tableBuilder) addColumn(cd *q.ColumnDef) error {
	if b.col(cd.Colname) != nil {
		return errorf(CodeDuplicateColumn, "column \"%s\" specified more than once", cd.Colname)
	}
	rt, err := b.pc.resolveColumnType(cd.TypeName)
	if err != nil {
		return err
	}
	c := &colBuild{meta: ColumnMeta{Name: cd.Colname, Type: rt.PGType, Domain: rt.Domain}, serial: rt.Serial, notNull: cd.IsNotNull}
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
	if name == seq.Name {
		// the name the sequence was given already (pg_dump names an
		// identity's default-named sequence explicitly)
		return nil
	}
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
	if cooked, ok := cookLiteral(expr, c.meta.Type); ok {
		sql = cooked
	}
	c.meta.Default = sql
	c.hasDef = true // also for DEFAULT NULL: a second DEFAULT is still an error
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
		return "", errorf(CodeFeatureNotSupported, "cannot use column reference in DEFAULT expression")
	}
	if isNullConst(expr) {
		return "", nil
	}
	expr, err := pc.canonicalNextval(expr, pending)
	if err != nil {
		return "", err
	}
	sql, err := deparseExpr(expr)
	if err != nil {
		return "", err
	}
	return upperValueKeywords(sql), nil
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
