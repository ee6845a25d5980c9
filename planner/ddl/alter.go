package ddl

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
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
	notices  []*pgerr.Error
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
	if m.Relkind == RelView {
		// a view has no stored columns to alter (its changes are view.go's)
		return nil, true, errorf(CodeWrongObjectType, "\"%s\" is not a table", name)
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
	// the version the definition is written with (Encode): adding or
	// dropping an expression index moves it (index.go)
	b.meta.Version = encodedVersion(def.Extra, b.meta.Version)
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
	a.notices = append(a.notices, notice(pgerr.SuccessfulCompletion, format, args...))
}

// alterTable plans ALTER TABLE.
func (pc *planCtx) alterTable(st *q.AlterTableStmt) ([]Change, error) {
	switch st.Objtype {
	case q.ObjectType_OBJECT_TABLE:
	case q.ObjectType_OBJECT_VIEW:
		return pc.alterView(st)
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
	name, err := pc.relName(st.Relation)
	if err != nil {
		return nil, err
	}
	if _, m, ok, err := pc.v.table(name); err != nil {
		return nil, err
	} else if ok && m.Relkind == RelView {
		for _, n := range st.Cmds {
			if cmd := n.GetAlterTableCmd(); cmd != nil {
				return nil, viewActionError(atName(cmd.Subtype), name)
			}
		}
	}
	a, ok, err := pc.startAlter(name, "ALTER TABLE")
	if err != nil {
		return nil, err
	}
	if !ok {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: "ALTER TABLE", notes: notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	if a.b.meta.Relkind != RelTable {
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a table", name).WithHint("Use ALTER SEQUENCE to change a sequence.")
	}
	wasPending := a.b.meta.Graph.Pending
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
	if g := a.b.meta.Graph; wasPending && g.Kind == graph.EdgeTable {
		// the last endpoint reference arrived: the rows loaded while the
		// edge was pending must meet its out-degree bounds
		if g.MaxOut != nil {
			a.addValidation(Validation{Kind: ValidateMaxOut, Columns: []string{g.Source}, Limit: *g.MaxOut})
		}
		if g.MinOut != nil {
			a.addValidation(Validation{Kind: ValidateMinOut, Columns: []string{g.Source}, Limit: *g.MinOut})
		}
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
		if cooked, ok := cookLiteral(cmd.Def, c.meta.Type); ok {
			sql = cooked
		}
		c.meta.Default, c.hasDef = sql, sql != ""
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
	case q.AlterTableType_AT_EnableTrig, q.AlterTableType_AT_DisableTrig:
		return enableTriggers(&b.meta, b.name, cmd.Name, false, cmd.Subtype == q.AlterTableType_AT_EnableTrig)
	case q.AlterTableType_AT_EnableTrigAll, q.AlterTableType_AT_DisableTrigAll, q.AlterTableType_AT_EnableTrigUser, q.AlterTableType_AT_DisableTrigUser:
		return enableTriggers(&b.meta, b.name, "", true, cmd.Subtype == q.AlterTableType_AT_EnableTrigAll || cmd.Subtype == q.AlterTableType_AT_EnableTrigUser)
	case q.AlterTableType_AT_EnableAlwaysTrig, q.AlterTableType_AT_EnableReplicaTrig:
		return notSupported("ALTER TABLE … ENABLE ALWAYS/REPLICA TRIGGER")
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
	// the trigger subcommands' names are abbreviated in the enum
	words := strings.Fields(strings.ToUpper(b.String()))
	for i, w := range words {
		if w == "TRIG" {
			words[i] = "TRIGGER"
		}
	}
	return strings.Join(words, " ")
}

// column resolves a column of the table being altered.
func (a *alterState) column(name string) (*colBuild, error) {
	c := a.b.col(name)
	if c == nil {
		return nil, errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, a.b.name)
	}
	return c, nil
}

// sameDef reports identical definitions (including the encoded meta).
func sameDef(a, b graph.TableDef) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
