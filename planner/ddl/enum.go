package ddl

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Enum types (CREATE TYPE … AS ENUM, ALTER TYPE … ADD/RENAME VALUE,
// ALTER TYPE … RENAME TO, DROP TYPE).
//
// An enum is one manifest entry, like a view: its stored definition is the
// view placeholder column and its meta (Relkind RelEnum, metadata version
// 4) holds the OID and the labels with their sort positions. So an enum
// is per branch, time-travels, and is created, changed and dropped by
// CreateTable, catalog-only AlterTable and DropTable in the statement's
// graph commit. The entry's name is TypeEntryPrefix + the type's name:
// types are not relations, and the prefix keeps them out of every
// relation lookup (a name with a colon is never an unquoted identifier).
// A column of the type stores the enum's OID in its PGType (the OID is
// chosen when the type is created and never changes, so renaming the type
// touches no table) and its values as text labels, so RENAME VALUE of a
// label that columns use would have to rewrite their rows: it answers
// 0A000 then.

// RelEnum is the relation kind of an enum type's entry.
const RelEnum = "enum"

// metaVersionTypes is the metadata version of enum entries and of tables
// with an enum column: a build that predates enums refuses them.
const metaVersionTypes = 4

// TypeEntryPrefix starts the manifest name of a user type's entry.
const TypeEntryPrefix = "type:"

// maxLabelLen is PostgreSQL's NAMEDATALEN-1 for enum labels.
const maxLabelLen = 63

// EnumMeta is an enum type's definition.
type EnumMeta struct {
	OID    uint32      `json:"oid"`
	Labels []EnumLabel `json:"labels"`
}

// EnumLabel is one label and its pg_enum.enumsortorder.
type EnumLabel struct {
	Label string  `json:"label"`
	Sort  float32 `json:"sort"`
}

// TypeName returns the type name of a manifest entry name, and whether
// the entry is a user type's.
func TypeName(entry string) (string, bool) { return strings.CutPrefix(entry, TypeEntryPrefix) }

// ExecEnum is the executor's description of an enum entry.
func ExecEnum(name string, m TableMeta) *exec.EnumDef {
	d := &exec.EnumDef{OID: m.Enum.OID, Schema: "public", Name: name, Owner: m.Owner, ACL: m.ACL, Comment: m.Comment}
	for _, l := range m.Enum.Labels {
		d.Labels = append(d.Labels, l.Label)
		d.Sorts = append(d.Sorts, l.Sort)
	}
	return d
}

// typeEntryName splits a type's qualified name (public and pg_catalog
// qualifiers are dropped; another schema does not exist here).
func typeEntryName(names []*q.Node) (string, error) {
	parts := stringList(names)
	switch {
	case len(parts) == 0:
		return "", errorf(CodeSyntaxError, "invalid type name")
	case len(parts) == 2 && parts[0] != "public":
		return "", errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", parts[0])
	case len(parts) > 2:
		return "", errorf(CodeFeatureNotSupported, "cross-database references are not implemented: %s", strings.Join(parts, "."))
	}
	return parts[len(parts)-1], nil
}

// enumType resolves an enum type by name.
func (pc *planCtx) enumType(name string) (graph.TableEntry, TableMeta, bool, error) {
	e, m, ok, err := pc.v.table(TypeEntryPrefix + name)
	if err != nil || !ok || m.Relkind != RelEnum || m.Enum == nil {
		return graph.TableEntry{}, TableMeta{}, false, err
	}
	exec.RegisterEnum(m.Enum.OID, name)
	return e, m, true, nil
}

// existingEnum is the enum type names names, as a copy the caller may
// change: 42704 when there is none.
func (pc *planCtx) existingEnum(names []*q.Node) (graph.TableEntry, TableMeta, error) {
	name, err := typeEntryName(names)
	if err != nil {
		return graph.TableEntry{}, TableMeta{}, err
	}
	e, m, ok, err := pc.enumType(name)
	if err != nil {
		return graph.TableEntry{}, TableMeta{}, err
	}
	if !ok {
		return graph.TableEntry{}, TableMeta{}, errorf(CodeUndefinedObject, "type \"%s\" does not exist", name)
	}
	return e, cloneMeta(m), nil
}

// resolveColumnType is resolveType that also knows the catalog's enum
// types (name and name[]).
func (pc *planCtx) resolveColumnType(tn *q.TypeName) (resolvedType, error) {
	rt, err := resolveType(tn)
	if err == nil || tn == nil || errCode(err) != CodeUndefinedObject {
		return rt, err
	}
	name, nerr := typeEntryName(tn.Names)
	if nerr != nil {
		return rt, err
	}
	_, m, ok, lerr := pc.enumType(name)
	if lerr != nil {
		return rt, lerr
	}
	if !ok {
		if drt, ok, derr := pc.domainColumnType(tn, name); derr != nil || ok {
			return drt, derr // domain.go
		}
		return rt, err
	}
	if len(tn.Typmods) > 0 {
		return resolvedType{}, errorf(CodeSyntaxError, "type modifier is not allowed for type \"%s\"", name)
	}
	t := PGType{OID: m.Enum.OID, Mod: -1}
	if len(tn.ArrayBounds) > 0 {
		t.OID++
	}
	return resolvedType{PGType: t}, nil
}

// errCode is the SQLSTATE of a planning error ("" for others).
func errCode(err error) string { return Code(err) }

// usesEnum reports whether a column type is an enum or an array of one.
func (t PGType) usesEnum() bool { return exec.IsEnumOID(t.OID) }

// createEnum plans CREATE TYPE name AS ENUM (…).
func (pc *planCtx) createEnum(st *q.CreateEnumStmt) ([]Change, error) {
	name, err := typeEntryName(st.TypeName)
	if err != nil {
		return nil, err
	}
	if err := pc.typeNameFree(name); err != nil {
		return nil, err
	}
	em := &EnumMeta{OID: pc.enumOID(name)}
	for i, v := range st.Vals {
		l := v.GetString_().GetSval()
		if len(l) == 0 || len(l) > maxLabelLen {
			return nil, errorf(CodeInvalidName, "invalid enum label \"%s\"", l).WithDetail(fmt.Sprintf("Labels must be %d bytes or less.", maxLabelLen))
		}
		if slices.ContainsFunc(em.Labels, func(x EnumLabel) bool { return x.Label == l }) {
			// PostgreSQL reports the unique index of pg_enum
			return nil, errorf(CodeUniqueViolation, "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"").
				WithDetail(fmt.Sprintf("Key (enumtypid, enumlabel)=(%d, %s) already exists.", em.OID, l))
		}
		em.Labels = append(em.Labels, EnumLabel{Label: l, Sort: float32(i + 1)})
	}
	m := TableMeta{Version: metaVersionTypes, Relkind: RelEnum, Graph: GraphMeta{Kind: graph.RelationTable}, Enum: em}
	exec.RegisterEnum(em.OID, name)
	return []Change{&CreateTable{Name: TypeEntryPrefix + name, Kind: graph.RelationTable, Def: viewDef(m, 0), Meta: m}}, nil
}

// typeNameFree checks no type of that name exists: an enum, or the row
// type of a table or view (PostgreSQL's 42710 for both).
func (pc *planCtx) typeNameFree(name string) error {
	_, _, ok, err := pc.v.table(TypeEntryPrefix + name) // an enum or a domain
	if err != nil {
		return err
	}
	if !ok {
		_, m, rel, rerr := pc.v.table(name)
		if rerr != nil {
			return rerr
		}
		ok = rel && m.Relkind != RelSequence
	}
	if ok {
		return errorf(CodeDuplicateObject, "type \"%s\" already exists", name)
	}
	return nil
}

// enumOID picks the new type's OID: from a fresh key (deterministic under
// Planner.NewKey), even, in exec's enum range, and not one an existing
// enum of this catalog has.
func (pc *planCtx) enumOID(name string) uint32 {
	used := map[uint32]bool{}
	if es, ms, err := pc.v.all(); err == nil {
		for i := range es {
			if ms[i].Enum != nil {
				used[ms[i].Enum.OID] = true
			}
		}
	}
	span := (exec.EnumOIDEnd - exec.EnumOIDBase) / 2
	for {
		h := fnv.New32a()
		h.Write([]byte(name + "/" + pc.newKey()))
		oid := exec.EnumOIDBase + (h.Sum32()%span)*2
		if !used[oid] {
			return oid
		}
	}
}

// enumDependents lists the "column c of table t" objects using the type.
func (pc *planCtx) enumDependents(oid uint32, typeName string) ([]string, error) {
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, err
	}
	var out []string
	for i, e := range es {
		if ms[i].Relkind == RelEnum {
			continue
		}
		for _, c := range ms[i].Columns {
			if c.Type.OID == oid || c.Type.OID == oid+1 {
				kind := "table"
				if ms[i].Relkind == RelView {
					kind = "view"
				}
				out = append(out, fmt.Sprintf("column %s of %s %s depends on type %s", c.Name, kind, e.Name, typeName))
			}
		}
	}
	return out, nil
}

// dropTypes plans DROP TYPE of enum types.
func (pc *planCtx) dropTypes(st *q.DropStmt) ([]Change, error) {
	var out []Change
	var ns []*pgerr.Error
	for _, o := range st.Objects {
		name, err := typeEntryName(o.GetTypeName().GetNames())
		if err != nil {
			return nil, err
		}
		_, m, ok, err := pc.enumType(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			if !st.MissingOk {
				return nil, errorf(CodeUndefinedObject, "type \"%s\" does not exist", name)
			}
			ns = append(ns, notice(pgerr.SuccessfulCompletion, "type \"%s\" does not exist, skipping", name))
			continue
		}
		deps, err := pc.enumDependents(m.Enum.OID, name)
		if err != nil {
			return nil, err
		}
		if len(deps) > 0 {
			if st.Behavior == q.DropBehavior_DROP_CASCADE {
				return nil, notSupported("DROP TYPE … CASCADE of a type that columns use")
			}
			return nil, errorf(CodeDependentObjects, "cannot drop type %s because other objects depend on it", name).
				WithDetail(strings.Join(deps, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		out = append(out, &DropTable{Name: TypeEntryPrefix + name, CommandTag: "DROP TYPE"})
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: "DROP TYPE", notes: notes{ns}}}, nil
	}
	if d, ok := out[0].(*DropTable); ok {
		d.Notice = ns
	}
	return out, nil
}

// redefineEnum is the catalog-only change that stores m for the enum's
// entry e (renamed to newName when not "").
func redefineEnum(e graph.TableEntry, m TableMeta, newName string) *AlterTable {
	def := e.Def
	def.Extra = m.Encode()
	a := &AlterTable{Name: e.Name, Def: def, Meta: m, CommandTag: "ALTER TYPE"}
	if newName != "" {
		a.NewName = TypeEntryPrefix + newName
	}
	return a
}

// alterEnum plans ALTER TYPE … ADD VALUE and ALTER TYPE … RENAME VALUE.
func (pc *planCtx) alterEnum(st *q.AlterEnumStmt) ([]Change, error) {
	e, m, err := pc.existingEnum(st.TypeName)
	if err != nil {
		return nil, err
	}
	labels := m.Enum.Labels
	find := func(l string) int { return slices.IndexFunc(labels, func(x EnumLabel) bool { return x.Label == l }) }
	if st.OldVal != "" { // RENAME VALUE old TO new
		i := find(st.OldVal)
		if i < 0 {
			return nil, errorf(CodeInvalidParameterValue, "\"%s\" is not an existing enum label", st.OldVal)
		}
		if find(st.NewVal) >= 0 {
			return nil, errorf(CodeDuplicateObject, "enum label \"%s\" already exists", st.NewVal)
		}
		if len(st.NewVal) == 0 || len(st.NewVal) > maxLabelLen {
			return nil, errorf(CodeInvalidName, "invalid enum label \"%s\"", st.NewVal).WithDetail(fmt.Sprintf("Labels must be %d bytes or less.", maxLabelLen))
		}
		if deps, err := pc.enumDependents(m.Enum.OID, strings.TrimPrefix(e.Name, TypeEntryPrefix)); err != nil {
			return nil, err
		} else if len(deps) > 0 {
			return nil, notSupported("ALTER TYPE … RENAME VALUE of a type that columns use (%s)", deps[0])
		}
		labels[i].Label = st.NewVal
		return []Change{redefineEnum(e, m, "")}, nil
	}
	if find(st.NewVal) >= 0 {
		if st.SkipIfNewValExists {
			return []Change{&NoOp{CommandTag: "ALTER TYPE", notes: notes{[]*pgerr.Error{
				notice(CodeDuplicateObject, "enum label \"%s\" already exists, skipping", st.NewVal)}}}}, nil
		}
		return nil, errorf(CodeDuplicateObject, "enum label \"%s\" already exists", st.NewVal)
	}
	if len(st.NewVal) == 0 || len(st.NewVal) > maxLabelLen {
		return nil, errorf(CodeInvalidName, "invalid enum label \"%s\"", st.NewVal).WithDetail(fmt.Sprintf("Labels must be %d bytes or less.", maxLabelLen))
	}
	m.Enum.Labels = addEnumLabel(labels, st.NewVal, st.NewValNeighbor, st.NewValIsAfter)
	if m.Enum.Labels == nil {
		return nil, errorf(CodeInvalidParameterValue, "\"%s\" is not an existing enum label", st.NewValNeighbor)
	}
	return []Change{redefineEnum(e, m, "")}, nil
}

// addEnumLabel returns labels with l added (nil when the neighbour is not
// a label): at the end after the highest sort position, or between the
// neighbour and the label next to it on the given side, at the midpoint
// of their positions. When float4 has no number between them, every
// label is renumbered 1…n first (PostgreSQL's RenumberEnumType).
func addEnumLabel(labels []EnumLabel, l, neighbor string, after bool) []EnumLabel {
	out := append([]EnumLabel(nil), labels...)
	byOrder := append([]EnumLabel(nil), labels...)
	slices.SortStableFunc(byOrder, func(a, b EnumLabel) int {
		switch {
		case a.Sort < b.Sort:
			return -1
		case a.Sort > b.Sort:
			return 1
		}
		return 0
	})
	if neighbor == "" {
		hi := float32(0)
		if len(byOrder) > 0 {
			hi = byOrder[len(byOrder)-1].Sort
		}
		return append(out, EnumLabel{Label: l, Sort: hi + 1})
	}
	k := slices.IndexFunc(byOrder, func(x EnumLabel) bool { return x.Label == neighbor })
	if k < 0 {
		return nil
	}
	pos := func(order []EnumLabel) float32 {
		n := order[k].Sort
		if after {
			if k+1 < len(order) {
				return (n + order[k+1].Sort) / 2
			}
			return n + 1
		}
		if k > 0 {
			return (order[k-1].Sort + n) / 2
		}
		return n - 1
	}
	s := pos(byOrder)
	if s == byOrder[k].Sort || (after && k+1 < len(byOrder) && s == byOrder[k+1].Sort) || (!after && k > 0 && s == byOrder[k-1].Sort) || math.IsInf(float64(s), 0) {
		for i := range byOrder {
			byOrder[i].Sort = float32(i + 1)
		}
		for i := range out {
			out[i].Sort = byOrder[slices.IndexFunc(byOrder, func(x EnumLabel) bool { return x.Label == out[i].Label })].Sort
		}
		s = pos(byOrder)
	}
	return append(out, EnumLabel{Label: l, Sort: s})
}

// commentOnType plans COMMENT ON TYPE of an enum type.
func (pc *planCtx) commentOnType(st *q.CommentStmt) ([]Change, error) {
	e, m, err := pc.existingEnum(st.Object.GetTypeName().GetNames())
	if err != nil {
		return nil, err
	}
	m.Comment = st.Comment
	a := redefineEnum(e, m, "")
	a.CommandTag = "COMMENT"
	return []Change{a}, nil
}

// renameType plans ALTER TYPE name RENAME TO new.
func (pc *planCtx) renameType(st *q.RenameStmt) ([]Change, error) {
	var names []*q.Node
	if l := st.Object.GetList(); l != nil {
		names = l.Items
	} else if tn := st.Object.GetTypeName(); tn != nil {
		names = tn.Names
	}
	name, err := typeEntryName(names)
	if err != nil {
		return nil, err
	}
	e, m, ok, err := pc.enumType(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: "ALTER TYPE"}}, nil
		}
		return nil, errorf(CodeUndefinedObject, "type \"%s\" does not exist", name)
	}
	if err := pc.typeNameFree(st.Newname); err != nil {
		return nil, err
	}
	exec.RegisterEnum(m.Enum.OID, st.Newname)
	return []Change{redefineEnum(e, cloneMeta(m), st.Newname)}, nil
}
