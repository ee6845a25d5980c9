package ddl

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Domains (CREATE DOMAIN, ALTER DOMAIN, DROP DOMAIN).
//
// A domain is one manifest entry like an enum (enum.go): the name is
// TypeEntryPrefix + the domain's name (domains and enums share the type
// name space), the definition is the view placeholder column, and the
// meta (Relkind RelDomain, metadata version 6) holds the OID, base type,
// NOT NULL, default and CHECK constraints. So a domain is per branch,
// time-travels and changes in the statement's graph commit. A column
// declared with a domain stores the base type (ColumnMeta.Type) and names
// the domain's OID in ColumnMeta.Domain; its constraints are read from
// the catalog whenever a value is stored (planner's writer), so ALTER
// DOMAIN touches no table: ADD CONSTRAINT and SET NOT NULL only check
// the rows of the columns using the domain (Validation).

// RelDomain is the relation kind of a domain's entry.
const RelDomain = "domain"

// metaVersionDomains is the metadata version of domain entries and of
// tables with a domain column: a build that predates domains refuses
// them rather than store values without their constraints.
const metaVersionDomains = 6

// Validation kinds of ALTER DOMAIN (existing values of a column using
// the domain).
const (
	ValidateDomainNotNull = "domain_not_null"
	ValidateDomainCheck   = "domain_check"
)

// DomainMeta is a domain's definition.
type DomainMeta struct {
	OID     uint32            `json:"oid"`
	Base    PGType            `json:"base"`
	NotNull bool              `json:"not_null,omitempty"`
	Default string            `json:"default,omitempty"`
	Checks  []DomainCheckMeta `json:"checks,omitempty"`
	NextNum int               `json:"next_num,omitempty"` // numbers checks (their pg_constraint OIDs)
}

// DomainCheckMeta is one CHECK constraint of a domain (VALUE is the
// column "value" in Expr).
type DomainCheckMeta struct {
	Name     string `json:"name"`
	Expr     string `json:"expr"`
	Num      int    `json:"num"`
	NotValid bool   `json:"not_valid,omitempty"`
}

// ExecDomain is the executor's description of a domain entry.
func ExecDomain(name string, m TableMeta) *exec.DomainDef {
	d := m.Domain
	out := &exec.DomainDef{OID: d.OID, Schema: "public", Name: name, Base: d.Base.Exec(), NotNull: d.NotNull, Default: d.Default,
		Owner: m.Owner, ACL: m.ACL, Comment: m.Comment}
	for _, c := range d.Checks {
		out.Checks = append(out.Checks, exec.DomainCheck{OID: exec.DomainConstraintOID(d.OID, c.Num), Name: c.Name, Expr: c.Expr, NotValid: c.NotValid})
	}
	return out
}

// domainType resolves a domain by name.
func (pc *planCtx) domainType(name string) (graph.TableEntry, TableMeta, bool, error) {
	e, m, ok, err := pc.v.table(TypeEntryPrefix + name)
	if err != nil || !ok || m.Relkind != RelDomain || m.Domain == nil {
		return graph.TableEntry{}, TableMeta{}, false, err
	}
	exec.RegisterDomain(m.Domain.OID, name, m.Domain.Base.Exec())
	return e, m, true, nil
}

// existingDomain is the domain names names, as a copy the caller may
// change: 42704 when there is none (a type that is not a domain: 42809).
func (pc *planCtx) existingDomain(names []*q.Node) (graph.TableEntry, TableMeta, string, error) {
	name, err := typeEntryName(names)
	if err != nil {
		return graph.TableEntry{}, TableMeta{}, "", err
	}
	e, m, ok, err := pc.domainType(name)
	if err != nil {
		return graph.TableEntry{}, TableMeta{}, "", err
	}
	if !ok {
		if _, _, isEnum, _ := pc.enumType(name); isEnum {
			return graph.TableEntry{}, TableMeta{}, "", errorf(CodeWrongObjectType, "%s is not a domain", name)
		}
		return graph.TableEntry{}, TableMeta{}, "", errorf(CodeUndefinedObject, "type \"%s\" does not exist", name)
	}
	m = cloneMeta(m)
	dm := *m.Domain
	dm.Checks = slices.Clone(dm.Checks)
	m.Domain = &dm
	return e, m, name, nil
}

// domainColumnType is the column type of a domain (or an array of one):
// the base type, and the OID the column names.
func (pc *planCtx) domainColumnType(tn *q.TypeName, name string) (resolvedType, bool, error) {
	_, m, ok, err := pc.domainType(name)
	if err != nil || !ok {
		return resolvedType{}, false, err
	}
	if len(tn.Typmods) > 0 {
		return resolvedType{}, false, errorf(CodeSyntaxError, "type modifier is not allowed for type \"%s\"", name)
	}
	rt := resolvedType{PGType: m.Domain.Base, Domain: m.Domain.OID}
	if len(tn.ArrayBounds) > 0 {
		a, ok := exec.ArrayOf(m.Domain.Base.Exec())
		if !ok || m.Domain.Base.IsVector() {
			return resolvedType{}, false, notSupported("arrays of domain %s", name)
		}
		rt.PGType = PGType{OID: a.OID, Mod: m.Domain.Base.Mod}
		rt.Domain++
	}
	return rt, true, nil
}

// domainOID picks a new domain's OID (as enumOID does, in exec's domain
// range).
func (pc *planCtx) domainOID(name string) uint32 {
	used := map[uint32]bool{}
	if es, ms, err := pc.v.all(); err == nil {
		for i := range es {
			if ms[i].Domain != nil {
				used[ms[i].Domain.OID] = true
			}
		}
	}
	span := uint32(1 << 20) // DomainConstraintOID keeps 20 bits of it
	for {
		h := fnv.New32a()
		h.Write([]byte(name + "/" + pc.newKey()))
		oid := exec.DomainOIDBase + (h.Sum32()%span)*2
		if !used[oid] {
			return oid
		}
	}
}

// createDomain plans CREATE DOMAIN name AS type [constraints].
func (pc *planCtx) createDomain(st *q.CreateDomainStmt) ([]Change, error) {
	name, err := typeEntryName(st.Domainname)
	if err != nil {
		return nil, err
	}
	if st.CollClause != nil {
		return nil, notSupported("COLLATE in CREATE DOMAIN")
	}
	base, err := pc.resolveColumnType(st.TypeName)
	if err != nil {
		return nil, err
	}
	if base.Serial {
		return nil, errorf(CodeUndefinedObject, "type \"%s\" does not exist", strings.ToLower(mustTypeName(st.TypeName)))
	}
	if base.Domain != 0 {
		return nil, notSupported("domains over domains")
	}
	if _, err := base.ArrowType(); err != nil {
		return nil, notSupported("domains over type %s", base.PGType)
	}
	if err := pc.typeNameFree(name); err != nil {
		return nil, err
	}
	dm := &DomainMeta{OID: pc.domainOID(name), Base: base.PGType}
	nullSet, notNullSet, defSet := false, false, false
	for _, n := range st.Constraints {
		con := n.GetConstraint()
		if con == nil {
			continue
		}
		switch con.Contype {
		case q.ConstrType_CONSTR_NOTNULL:
			if nullSet {
				return nil, errorf(CodeSyntaxError, "conflicting NULL/NOT NULL constraints")
			}
			notNullSet, dm.NotNull = true, true
		case q.ConstrType_CONSTR_NULL:
			if notNullSet {
				return nil, errorf(CodeSyntaxError, "conflicting NULL/NOT NULL constraints")
			}
			nullSet = true
		case q.ConstrType_CONSTR_DEFAULT:
			if defSet {
				return nil, errorf(CodeSyntaxError, "multiple default expressions")
			}
			defSet = true
			def, err := pc.domainDefault(con.RawExpr, base.PGType)
			if err != nil {
				return nil, err
			}
			dm.Default = def
		case q.ConstrType_CONSTR_CHECK:
			if err := pc.addDomainCheck(dm, name, con); err != nil {
				return nil, err
			}
		default:
			return nil, domainConstraintError(con)
		}
	}
	m := TableMeta{Version: metaVersionDomains, Relkind: RelDomain, Graph: GraphMeta{Kind: graph.RelationTable}, Domain: dm}
	exec.RegisterDomain(dm.OID, name, dm.Base.Exec())
	return []Change{&CreateTable{Name: TypeEntryPrefix + name, Kind: graph.RelationTable, Def: viewDef(m, 0), Meta: m}}, nil
}

// domainConstraintError is PostgreSQL's error for a constraint kind a
// domain cannot have.
func domainConstraintError(con *q.Constraint) error {
	switch con.Contype {
	case q.ConstrType_CONSTR_UNIQUE:
		return errorf(CodeSyntaxError, "unique constraints not possible for domains")
	case q.ConstrType_CONSTR_PRIMARY:
		return errorf(CodeSyntaxError, "primary key constraints not possible for domains")
	case q.ConstrType_CONSTR_EXCLUSION:
		return errorf(CodeSyntaxError, "exclusion constraints not possible for domains")
	case q.ConstrType_CONSTR_FOREIGN:
		return errorf(CodeSyntaxError, "foreign key constraints not possible for domains")
	case q.ConstrType_CONSTR_ATTR_DEFERRABLE, q.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE,
		q.ConstrType_CONSTR_ATTR_DEFERRED, q.ConstrType_CONSTR_ATTR_IMMEDIATE:
		return errorf(CodeFeatureNotSupported, "specifying constraint deferrability not supported for domains")
	}
	return errorf(CodeSyntaxError, "unrecognized constraint subtype")
}

// domainDefault validates a domain's DEFAULT (no column references or
// subqueries; its value must convert to the base type) and returns its
// SQL text ("" for DEFAULT NULL).
func (pc *planCtx) domainDefault(expr *q.Node, base PGType) (string, error) {
	sql, err := pc.defaultSQL(expr, func(string) bool { return false })
	if err != nil || sql == "" {
		return sql, err
	}
	if err := exec.CheckExprType("CAST(("+sql+") AS "+execTypeSQL(base)+")", nil, ""); err != nil {
		return "", execError(err)
	}
	return sql, nil
}

// addDomainCheck adds a CHECK constraint to dm (named <domain>_check,
// numbered when taken, unless named).
func (pc *planCtx) addDomainCheck(dm *DomainMeta, domain string, con *q.Constraint) error {
	if con.IsNoInherit {
		return errorf(CodeInvalidObjectDefinition, "check constraints for domains cannot be marked NO INHERIT")
	}
	taken := func(n string) bool {
		return slices.ContainsFunc(dm.Checks, func(c DomainCheckMeta) bool { return c.Name == n })
	}
	name := con.Conname
	if name == "" {
		name = domain + "_check"
		for i := 1; taken(name); i++ {
			name = fmt.Sprintf("%s_check%d", domain, i)
		}
	} else if taken(name) {
		return errorf(CodeDuplicateObject, "constraint \"%s\" for domain \"%s\" already exists", name, domain)
	}
	if hasNode(con.RawExpr, isSubquery) {
		return errorf(CodeFeatureNotSupported, "cannot use subquery in check constraint")
	}
	for _, ref := range columnRefs(con.RawExpr) {
		if ref != "value" {
			return errorf(CodeUndefinedColumn, "column \"%s\" does not exist", ref)
		}
	}
	expr, err := deparseExpr(con.RawExpr)
	if err != nil {
		return err
	}
	vd := &exec.DomainDef{Name: domain, Base: dm.Base.Exec()}
	if err := exec.CheckExprType(expr, vd, "CHECK"); err != nil {
		return execError(err)
	}
	dm.Checks = append(dm.Checks, DomainCheckMeta{Name: name, Expr: expr, Num: dm.NextNum, NotValid: con.SkipValidation})
	dm.NextNum++
	return nil
}

// domainColumns lists the table columns declared with the domain (or an
// array of it): table name, column name, whether the column holds arrays.
type domainColumn struct {
	table, column, kind string
	array               bool
}

func (pc *planCtx) domainColumns(oid uint32) ([]domainColumn, error) {
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, err
	}
	var out []domainColumn
	for i, e := range es {
		if ms[i].Relkind == RelEnum || ms[i].Relkind == RelDomain {
			continue
		}
		for _, c := range ms[i].Columns {
			if c.Domain == oid || c.Domain == oid+1 {
				kind := "table"
				if ms[i].Relkind == RelView {
					kind = "view"
				}
				out = append(out, domainColumn{table: e.Name, column: c.Name, kind: kind, array: c.Domain == oid+1})
			}
		}
	}
	return out, nil
}

// redefineDomain is the catalog-only change storing m for the domain's
// entry e (renamed when newName is not "").
func redefineDomain(e graph.TableEntry, m TableMeta, newName string) *AlterTable {
	a := redefineEnum(e, m, newName)
	a.CommandTag = "ALTER DOMAIN"
	return a
}

// alterDomain plans ALTER DOMAIN … {SET|DROP} DEFAULT, {SET|DROP} NOT
// NULL, ADD/DROP/VALIDATE CONSTRAINT.
func (pc *planCtx) alterDomain(st *q.AlterDomainStmt) ([]Change, error) {
	e, m, name, err := pc.existingDomain(st.TypeName)
	if err != nil {
		return nil, err
	}
	dm := m.Domain
	var validate []Validation
	checkColumns := func(kind, constraint string) error {
		cols, err := pc.domainColumns(dm.OID)
		if err != nil {
			return err
		}
		for _, c := range cols {
			if c.kind == "view" {
				continue
			}
			validate = append(validate, Validation{Kind: kind, Table: c.table, Columns: []string{c.column}, Constraint: constraint, Expr: name})
		}
		return nil
	}
	switch st.Subtype {
	case "T": // SET DEFAULT / DROP DEFAULT
		dm.Default = ""
		if st.Def != nil {
			def, err := pc.domainDefault(st.Def, dm.Base)
			if err != nil {
				return nil, err
			}
			dm.Default = def
		}
	case "N": // DROP NOT NULL
		dm.NotNull = false
	case "O": // SET NOT NULL
		if !dm.NotNull {
			dm.NotNull = true
			if err := checkColumns(ValidateDomainNotNull, ""); err != nil {
				return nil, err
			}
		}
	case "C": // ADD CONSTRAINT
		con := st.Def.GetConstraint()
		if con == nil {
			return nil, errorf(CodeSyntaxError, "ALTER DOMAIN … ADD without a constraint")
		}
		switch con.Contype {
		case q.ConstrType_CONSTR_CHECK:
		case q.ConstrType_CONSTR_NOTNULL, q.ConstrType_CONSTR_NULL:
			return nil, errorf(CodeSyntaxError, "use ALTER DOMAIN .. [ SET | DROP ] NOT NULL instead")
		default:
			return nil, domainConstraintError(con)
		}
		if err := pc.addDomainCheck(dm, name, con); err != nil {
			return nil, err
		}
		if !con.SkipValidation {
			if err := checkColumns(ValidateDomainCheck, dm.Checks[len(dm.Checks)-1].Name); err != nil {
				return nil, err
			}
		}
	case "X": // DROP CONSTRAINT
		i := slices.IndexFunc(dm.Checks, func(c DomainCheckMeta) bool { return c.Name == st.Name })
		if i < 0 {
			if st.MissingOk {
				return []Change{&NoOp{CommandTag: "ALTER DOMAIN", notes: notes{[]*pgerr.Error{
					notice(pgerr.SuccessfulCompletion, "constraint \"%s\" of domain \"%s\" does not exist, skipping", st.Name, name)}}}}, nil
			}
			return nil, errorf(CodeUndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist", st.Name, name)
		}
		dm.Checks = slices.Delete(dm.Checks, i, i+1)
	case "V": // VALIDATE CONSTRAINT
		i := slices.IndexFunc(dm.Checks, func(c DomainCheckMeta) bool { return c.Name == st.Name })
		if i < 0 {
			return nil, errorf(CodeUndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist", st.Name, name)
		}
		if dm.Checks[i].NotValid {
			dm.Checks[i].NotValid = false
			if err := checkColumns(ValidateDomainCheck, st.Name); err != nil {
				return nil, err
			}
		}
	default:
		return nil, notSupported("ALTER DOMAIN subcommand %q", st.Subtype)
	}
	a := redefineDomain(e, m, "")
	a.Validate = validate
	return []Change{a}, nil
}

// dropDomains plans DROP DOMAIN.
func (pc *planCtx) dropDomains(st *q.DropStmt) ([]Change, error) {
	var out []Change
	var ns []*pgerr.Error
	for _, o := range st.Objects {
		name, err := typeEntryName(o.GetTypeName().GetNames())
		if err != nil {
			return nil, err
		}
		_, m, ok, err := pc.domainType(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			if _, _, isEnum, _ := pc.enumType(name); isEnum {
				return nil, errorf(CodeWrongObjectType, "\"%s\" is not a domain", name)
			}
			if !st.MissingOk {
				return nil, errorf(CodeUndefinedObject, "type \"%s\" does not exist", name)
			}
			ns = append(ns, notice(pgerr.SuccessfulCompletion, "type \"%s\" does not exist, skipping", name))
			continue
		}
		cols, err := pc.domainColumns(m.Domain.OID)
		if err != nil {
			return nil, err
		}
		if len(cols) > 0 {
			if st.Behavior == q.DropBehavior_DROP_CASCADE {
				return nil, notSupported("DROP DOMAIN … CASCADE of a domain that columns use")
			}
			var deps []string
			for _, c := range cols {
				deps = append(deps, fmt.Sprintf("column %s of %s %s depends on type %s", c.column, c.kind, c.table, name))
			}
			return nil, errorf(CodeDependentObjects, "cannot drop type %s because other objects depend on it", name).
				WithDetail(strings.Join(deps, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		out = append(out, &DropTable{Name: TypeEntryPrefix + name, CommandTag: "DROP DOMAIN"})
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: "DROP DOMAIN", notes: notes{ns}}}, nil
	}
	if d, ok := out[0].(*DropTable); ok {
		d.Notice = ns
	}
	return out, nil
}

// renameDomain plans ALTER DOMAIN name RENAME TO new and ALTER DOMAIN
// name RENAME CONSTRAINT c TO new.
func (pc *planCtx) renameDomain(st *q.RenameStmt) ([]Change, error) {
	var names []*q.Node
	if l := st.Object.GetList(); l != nil {
		names = l.Items
	} else if tn := st.Object.GetTypeName(); tn != nil {
		names = tn.Names
	}
	e, m, name, err := pc.existingDomain(names)
	if err != nil {
		return nil, err
	}
	if st.RenameType == q.ObjectType_OBJECT_DOMCONSTRAINT {
		dm := m.Domain
		i := slices.IndexFunc(dm.Checks, func(c DomainCheckMeta) bool { return c.Name == st.Subname })
		if i < 0 {
			return nil, errorf(CodeUndefinedObject, "constraint \"%s\" for domain %s does not exist", st.Subname, name)
		}
		if slices.ContainsFunc(dm.Checks, func(c DomainCheckMeta) bool { return c.Name == st.Newname }) {
			return nil, errorf(CodeDuplicateObject, "constraint \"%s\" for domain %s already exists", st.Newname, name)
		}
		dm.Checks[i].Name = st.Newname
		return []Change{redefineDomain(e, m, "")}, nil
	}
	if err := pc.typeNameFree(st.Newname); err != nil {
		return nil, err
	}
	exec.RegisterDomain(m.Domain.OID, st.Newname, m.Domain.Base.Exec())
	return []Change{redefineDomain(e, m, st.Newname)}, nil
}

// commentOnDomain plans COMMENT ON DOMAIN.
func (pc *planCtx) commentOnDomain(st *q.CommentStmt) ([]Change, error) {
	e, m, _, err := pc.existingDomain(st.Object.GetTypeName().GetNames())
	if err != nil {
		return nil, err
	}
	m.Comment = st.Comment
	a := redefineDomain(e, m, "")
	a.CommandTag = "COMMENT"
	return []Change{a}, nil
}

// execError is an executor's error as a planning error (its SQLSTATE,
// message, detail and hint; no position: the text exec bound is not the
// statement's).
func execError(err error) error {
	var e *exec.Error
	if errors.As(err, &e) {
		return errorf(e.Code, "%s", e.Message).WithDetail(e.Detail).WithHint(e.Hint)
	}
	return err
}

// domainFillExpr computes a new column of a domain type for existing rows
// (ALTER TABLE … ADD COLUMN): the column's default, else the domain's,
// else NULL, cast to the domain, so the domain's constraints check the
// value as PostgreSQL does (a NOT NULL domain without a default: 23502).
func (pc *planCtx) domainFillExpr(c ColumnMeta) (string, error) {
	es, ms, err := pc.v.all()
	if err != nil {
		return "", err
	}
	for i, e := range es {
		dm := ms[i].Domain
		if dm == nil || dm.OID != c.Domain&^1 {
			continue
		}
		name, _ := TypeName(e.Name)
		expr := c.DefaultExpr()
		if expr == "" && c.Domain%2 == 0 {
			expr = dm.Default
		}
		if expr == "" {
			expr = "NULL"
		}
		typ := quoteIdent(name)
		if c.Domain%2 == 1 {
			typ += "[]"
		}
		return "CAST(" + expr + " AS " + typ + ")", nil
	}
	return fillExpr(c), nil
}
