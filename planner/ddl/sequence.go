package ddl

import (
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// SequenceRef locates a sequence: a standalone sequence relation (Column
// "") or the sequence owned by a serial/identity column of Table.
type SequenceRef struct {
	Sequence
	Table  string
	Column string
}

// LookupSequence resolves a sequence by name (as nextval's regclass text
// names it: optionally public-qualified, quoted identifiers kept, others
// folded to lower case).
func LookupSequence(cat Catalog, name string) (SequenceRef, bool, error) {
	n, err := ParseRegclass(name)
	if err != nil {
		return SequenceRef{}, false, err
	}
	return newView(cat).lookupSequence(n)
}

func (v *view) lookupSequence(name string) (SequenceRef, bool, error) {
	es, ms, err := v.all()
	if err != nil {
		return SequenceRef{}, false, err
	}
	for i, e := range es {
		m := ms[i]
		if m.Relkind == RelSequence && e.Name == name && m.Sequence != nil {
			s := *m.Sequence
			s.Name = e.Name
			return SequenceRef{Sequence: s, Table: e.Name}, true, nil
		}
		for _, c := range m.Columns {
			if c.Sequence != nil && c.Sequence.Name == name {
				return SequenceRef{Sequence: *c.Sequence, Table: e.Name, Column: c.Name}, true, nil
			}
		}
	}
	return SequenceRef{}, false, nil
}

// SequenceCandidates are the storage names a sequence named as
// ParseRegclass reads it may have, in the order PostgreSQL looks: an
// unqualified name through path (the lookup path, the temporary schema
// placed), pg_temp.x as the session's temporary schema temp's.
func SequenceCandidates(name string, path []string, temp string) []string {
	if rest, ok := strings.CutPrefix(name, "pg_temp."); ok {
		if temp == "" {
			return nil
		}
		return []string{QualifiedName(temp, rest)}
	}
	if strings.Contains(name, ".") {
		return []string{name}
	}
	var out []string
	for _, s := range path {
		if s != "pg_catalog" && s != "information_schema" {
			out = append(out, QualifiedName(s, name))
		}
	}
	return append(out, name)
}

// ParseRegclass reads a relation name written as text ('x', 'public.x',
// '"Mixed"'): unquoted parts fold to lower case.
func ParseRegclass(s string) (string, error) {
	var parts []string
	for len(s) > 0 {
		var part string
		if s[0] == '"' {
			end := -1
			var b strings.Builder
			for i := 1; i < len(s); i++ {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i++
						continue
					}
					end = i
					break
				}
				b.WriteByte(s[i])
			}
			if end < 0 {
				return "", errorf(pgerr.InvalidTextRepresentation, "invalid name syntax")
			}
			part, s = b.String(), s[end+1:]
		} else {
			i := strings.IndexByte(s, '.')
			if i < 0 {
				i = len(s)
			}
			part, s = strings.ToLower(strings.TrimSpace(s[:i])), s[i:]
		}
		if part == "" {
			return "", errorf(pgerr.InvalidTextRepresentation, "invalid name syntax")
		}
		parts = append(parts, part)
		if len(s) > 0 {
			if s[0] != '.' {
				return "", errorf(pgerr.InvalidTextRepresentation, "invalid name syntax")
			}
			s = s[1:]
		}
	}
	switch {
	case len(parts) == 1:
		return parts[0], nil
	case len(parts) == 2 && (parts[0] == "public"):
		return parts[1], nil
	case len(parts) == 2 && (parts[0] == "pg_catalog" || parts[0] == "information_schema"):
		return "", errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", parts[0])
	case len(parts) == 2:
		// a created schema's relation is stored as "schema.name"
		// (schema.go); a schema that does not exist finds nothing
		return QualifiedName(parts[0], parts[1]), nil
	}
	return "", errorf(pgerr.InvalidTextRepresentation, "invalid name syntax")
}

// sequenceColumns are the columns of a sequence relation (PostgreSQL's).
var sequenceColumns = []ColumnMeta{
	{Name: "last_value", Type: PGType{OID: exec.OIDInt8, Mod: -1}},
	{Name: "log_cnt", Type: PGType{OID: exec.OIDInt8, Mod: -1}},
	{Name: "is_called", Type: PGType{OID: exec.OIDBool, Mod: -1}},
}

// createSequence plans CREATE SEQUENCE: a relation of kind sequence.
func (pc *planCtx) createSequence(st *q.CreateSeqStmt) ([]Change, error) {
	name, err := pc.createName(st.Sequence)
	if err != nil {
		return nil, err
	}
	if st.Sequence.Relpersistence == "t" {
		return nil, notSupported("CREATE TEMPORARY SEQUENCE")
	}
	taken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	if taken[name] {
		if st.IfNotExists {
			return []Change{&NoOp{CommandTag: "CREATE SEQUENCE", notes: notes{[]*pgerr.Error{notice(CodeDuplicateTable, "relation \"%s\" already exists, skipping", pc.shown(name))}}}}, nil
		}
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", pc.shown(name))
	}
	opts, set, err := parseSeqOptions(st.Options, SeqOptions{}, true, false, name)
	if err != nil {
		return nil, err
	}
	seq := &Sequence{Name: name, Key: pc.newKey(), SeqOptions: opts}
	if len(set.ownedBy) > 0 {
		if seq.OwnedBy, err = pc.ownedByTarget(set.ownedBy); err != nil {
			return nil, err
		}
	}
	m := TableMeta{Version: metaVersionTables, Relkind: RelSequence, Columns: append([]ColumnMeta(nil), sequenceColumns...),
		Graph: GraphMeta{Kind: graph.RelationTable}, Sequence: seq}
	def, err := buildDef(m, func(int) bool { return false })
	if err != nil {
		return nil, err
	}
	return []Change{&CreateTable{Name: name, Kind: graph.RelationTable, Def: def, Meta: m}}, nil
}

// ownedByTarget validates OWNED BY table.column (or NONE → "").
func (pc *planCtx) ownedByTarget(parts []string) (string, error) {
	if len(parts) == 1 && strings.EqualFold(parts[0], "none") {
		return "", nil
	}
	if len(parts) == 3 && parts[0] == "public" {
		parts = parts[1:]
	}
	if len(parts) != 2 {
		return "", errorf(CodeSyntaxError, "invalid OWNED BY option").WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
	}
	_, m, ok, err := pc.v.table(parts[0])
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errorf(CodeUndefinedTable, "relation \"%s\" does not exist", parts[0])
	}
	if c, _ := m.Column(parts[1]); c == nil {
		return "", errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", parts[1], parts[0])
	}
	return parts[0] + "." + parts[1], nil
}

// alterSequence plans ALTER SEQUENCE options: the definition changes in
// the catalog; RESTART also moves the allocator now (SetSequence).
func (pc *planCtx) alterSequence(st *q.AlterSeqStmt) ([]Change, error) {
	name, err := pc.relName(st.Sequence)
	if err != nil {
		return nil, err
	}
	ref, ok, err := pc.v.lookupSequence(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: "ALTER SEQUENCE", notes: notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	opts, set, err := parseSeqOptions(st.Options, ref.SeqOptions, false, ref.Column != "", name)
	if err != nil {
		return nil, err
	}
	a, _, err := pc.startAlter(ref.Table, "ALTER SEQUENCE")
	if err != nil {
		return nil, err
	}
	var seq *Sequence
	if ref.Column == "" {
		seq = a.b.meta.Sequence
		if len(set.ownedBy) > 0 {
			if seq.OwnedBy, err = pc.ownedByTarget(set.ownedBy); err != nil {
				return nil, err
			}
		}
	} else {
		if len(set.ownedBy) > 0 {
			return nil, notSupported("changing OWNED BY of a serial or identity sequence")
		}
		seq = a.b.col(ref.Column).meta.Sequence
	}
	seq.SeqOptions = opts
	restart := restartSequence(pc, seq, set)
	out, err := a.changes()
	if err != nil {
		return nil, err
	}
	if restart != nil {
		out = append(out, restart)
	}
	return out, nil
}

// restartSequence applies RESTART [WITH v]: the sequence gets a fresh
// allocator key in this branch's catalog (another branch that shares the
// old key keeps its values, and a rolled-back transaction leaves the old
// sequence as it was), plus a SetSequence when v is not the start value.
func restartSequence(pc *planCtx, seq *Sequence, set seqOptionSet) *SetSequence {
	if set.restart == nil && !set.restartAtStart {
		return nil
	}
	seq.Key = pc.newKey()
	if set.restart == nil || *set.restart == seq.Start {
		return nil
	}
	return &SetSequence{Sequence: *seq, Value: *set.restart, CommandTag: "ALTER SEQUENCE"}
}

// renameSequence plans ALTER SEQUENCE a RENAME TO b; defaults calling
// nextval('a') follow the rename.
func (pc *planCtx) renameSequence(st *q.RenameStmt) ([]Change, error) {
	name, err := pc.relName(st.Relation)
	if err != nil {
		return nil, err
	}
	ref, ok, err := pc.v.lookupSequence(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: "ALTER SEQUENCE", notes: notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	to := QualifiedName(pc.schemaOf(name), truncateIdent(st.Newname))
	taken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	if taken[to] {
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", to)
	}
	return pc.renameSequenceTo(name, ref, to, "ALTER SEQUENCE")
}

// renameSequenceTo gives sequence name (ref) the storage name to (a
// rename, or a move to another schema); the defaults that call it, in
// every table, follow.
func (pc *planCtx) renameSequenceTo(name string, ref SequenceRef, to, tag string) ([]Change, error) {
	a, _, err := pc.startAlter(ref.Table, tag)
	if err != nil {
		return nil, err
	}
	if ref.Column == "" {
		a.newName = to
		a.b.meta.Sequence.Name = to
	} else {
		a.b.col(ref.Column).meta.Sequence.Name = to
	}
	// Defaults naming the sequence, in every table.
	oldCall, newCall := nextvalSQL(name), nextvalSQL(to)
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, err
	}
	for i, e := range es {
		for _, c := range ms[i].Columns {
			if !strings.Contains(c.Default, oldCall) {
				continue
			}
			o, err := a.other(e.Name)
			if err != nil {
				return nil, err
			}
			oc := o.b.col(c.Name)
			oc.meta.Default = strings.ReplaceAll(oc.meta.Default, oldCall, newCall)
		}
	}
	return a.changes()
}

// dropSequences plans DROP SEQUENCE.
func (pc *planCtx) dropSequences(st *q.DropStmt, names []string) ([]Change, error) {
	cascade := st.Behavior == q.DropBehavior_DROP_CASCADE
	var out []Change
	var skipped []*pgerr.Error
	for _, name := range names {
		ref, ok, err := pc.v.lookupSequence(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			if st.MissingOk {
				skipped = append(skipped, notice(pgerr.SuccessfulCompletion, "sequence \"%s\" does not exist, skipping", name))
				continue
			}
			if _, m, ok, err := pc.v.table(name); err != nil {
				return nil, err
			} else if ok {
				return nil, errorf(CodeWrongObjectType, "\"%s\" is not a sequence", name).WithHint(dropHint(m))
			}
			return nil, errorf(CodeUndefinedTable, "sequence \"%s\" does not exist", name)
		}
		if ref.Column != "" {
			_, m, _, err := pc.v.table(ref.Table)
			if err != nil {
				return nil, err
			}
			c, _ := m.Column(ref.Column)
			if c.Identity != "" {
				return nil, errorf(CodeDependentObjects, "cannot drop sequence %s because column %s of table %s requires it", name, ref.Column, ref.Table).
					WithHint(fmt.Sprintf("You can drop column %s of table %s instead.", ref.Column, ref.Table))
			}
		}
		// Defaults calling nextval of it.
		call := nextvalSQL(name)
		type use struct{ table, column string }
		var uses []use
		es, ms, err := pc.v.all()
		if err != nil {
			return nil, err
		}
		for i, e := range es {
			for _, c := range ms[i].Columns {
				if strings.Contains(c.Default, call) {
					uses = append(uses, use{e.Name, c.Name})
				}
			}
		}
		if len(uses) > 0 && !cascade {
			var lines []string
			for _, u := range uses {
				lines = append(lines, fmt.Sprintf("default value for column %s of table %s depends on sequence %s", u.column, u.table, name))
			}
			return nil, errorf(CodeDependentObjects, "cannot drop sequence %s because other objects depend on it", name).
				WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		if ref.Column == "" && len(uses) == 0 {
			out = append(out, &DropTable{Name: name, CommandTag: "DROP SEQUENCE", Cascade: cascade})
			continue
		}
		a, _, err := pc.startAlter(ref.Table, "DROP SEQUENCE")
		if err != nil {
			return nil, err
		}
		for _, u := range uses {
			o, err := a.other(u.table)
			if err != nil {
				return nil, err
			}
			oc := o.b.col(u.column)
			oc.meta.Default, oc.hasDef = "", false
			a.notice("drop cascades to default value for column %s of table %s", u.column, u.table)
		}
		if ref.Column != "" {
			a.b.col(ref.Column).meta.Sequence = nil
		}
		cs, err := a.changes()
		if err != nil {
			return nil, err
		}
		if ref.Column == "" {
			// the sequence's own relation is dropped; its alter state only
			// carried the cascades
			cs = append([]Change{&DropTable{Name: name, CommandTag: "DROP SEQUENCE", Cascade: true, notes: notes{a.notices}}}, cs[1:]...)
		}
		out = append(out, cs...)
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: "DROP SEQUENCE", notes: notes{skipped}}}, nil
	}
	if len(skipped) > 0 {
		addNotices(out[0], skipped)
	}
	return out, nil
}

// addNotices prepends notices to a change.
func addNotices(c Change, ns []*pgerr.Error) {
	switch x := c.(type) {
	case *CreateTable:
		x.Notice = append(ns, x.Notice...)
	case *DropTable:
		x.Notice = append(ns, x.Notice...)
	case *AlterTable:
		x.Notice = append(ns, x.Notice...)
	case *Truncate:
		x.Notice = append(ns, x.Notice...)
	case *SetSequence:
		x.Notice = append(ns, x.Notice...)
	case *NoOp:
		x.Notice = append(ns, x.Notice...)
	}
}

// SerialSequence answers pg_get_serial_sequence(table, column): the
// qualified name ("public.t_id_seq") of the sequence a serial or identity
// column owns, ok false when the column has none. table is regclass text;
// column is folded to lower case unless double-quoted, as in PostgreSQL.
// A missing table is 42P01, a missing column 42703.
func SerialSequence(cat Catalog, table, column string) (string, bool, error) {
	name, err := ParseRegclass(table)
	if err != nil {
		return "", false, err
	}
	col, err := ParseRegclass(column)
	if err != nil {
		return "", false, err
	}
	_, m, ok, err := newView(cat).table(name)
	if err != nil {
		return "", false, err
	}
	if !ok {
		return "", false, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	c, _ := m.Column(col)
	if c == nil {
		return "", false, errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, name)
	}
	if c.Sequence == nil {
		return "", false, nil
	}
	return "public." + quoteIdent(c.Sequence.Name), true, nil
}

// Rekey gives the named sequence a fresh allocator key in cat's branch:
// the returned changes (catalog-only AlterTable, tag "SELECT") carry it,
// and the returned Sequence is the re-keyed one. A session can run
// setval(…) on a branch this way — re-key, then SetVal the new key —
// so that other branches sharing the old key never see values move
// backwards (which would hand out ids they already used).
func (p Planner) Rekey(cat Catalog, name string) (Sequence, []Change, error) {
	pc := &planCtx{p: p, v: newView(cat)}
	n, err := ParseRegclass(name)
	if err != nil {
		return Sequence{}, nil, err
	}
	ref, ok, err := pc.v.lookupSequence(n)
	if err != nil {
		return Sequence{}, nil, err
	}
	if !ok {
		return Sequence{}, nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", n)
	}
	a, _, err := pc.startAlter(ref.Table, "SELECT")
	if err != nil {
		return Sequence{}, nil, err
	}
	var seq *Sequence
	if ref.Column == "" {
		seq = a.b.meta.Sequence
	} else {
		seq = a.b.col(ref.Column).meta.Sequence
	}
	seq.Key = pc.newKey()
	out := *seq
	if ref.Column == "" {
		out.Name = ref.Table
	}
	cs, err := a.changes()
	return out, cs, err
}
