package exec

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Domains (CREATE DOMAIN name AS base [DEFAULT] [NOT NULL] [CHECK (…)]).
//
// A domain is its base type with constraints. Values of a domain are
// values of the base type: a column of a domain type stores and reads
// its base type (ColumnDef.Type) and names the domain in ColumnDef.Domain,
// so every operator, function and index of the base type applies to it
// unchanged, as PostgreSQL's parser reduces a domain to its base type for
// operator and function lookup. The domain shows where PostgreSQL shows
// it: pg_attribute.atttypid, format_type, information_schema, psql's \d,
// pg_typeof of a cast to the domain. A result column of a domain type is
// described by its base type and typmod in RowDescription, as PostgreSQL
// 15 does; but an array of a domain is a type of its own, named by its
// OID (domainArrayType). (pg_typeof of a domain column names the base
// type here.)
//
// Input reaching a domain — a cast, an INSERT, UPDATE or COPY into a
// domain column — is checked against the domain's NOT NULL (23502) and
// CHECK constraints (23514, in constraint name order as PostgreSQL checks
// them); the constraints are per catalog (a branch, a snapshot, the
// transaction's own ALTER DOMAIN), so a check binds them from its catalog.
// Only the name and base type are process-global (domainTypes): both are
// fixed when the domain is created (a rename replaces the name), and the
// OID, from its own range, never names another type.

// DomainOIDBase starts the OID range of domains: a domain's OID is even,
// its array type's the next odd number. DomainConstraintOIDBase starts
// the range of their CHECK constraints' pg_constraint OIDs.
const (
	DomainOIDBase           uint32 = 0x7000_0000
	DomainOIDEnd            uint32 = 0x7800_0000
	DomainConstraintOIDBase uint32 = 0x7800_0000
)

// IsDomainOID reports whether oid lies in the domain range (the domain or
// its array type).
func IsDomainOID(oid uint32) bool { return oid >= DomainOIDBase && oid < DomainOIDEnd }

// DomainConstraintOID is the pg_constraint OID of a domain's check
// number num (numbers are never reused within a domain).
func DomainConstraintOID(domain uint32, num int) uint32 {
	return DomainConstraintOIDBase + ((domain-DomainOIDBase)/2%(1<<20))<<6 + uint32(num%64)
}

// DomainCatalog is an optional extension of Catalog for catalogs that hold
// domains.
type DomainCatalog interface {
	Domains() []*DomainDef
}

// DomainDef is one domain.
type DomainDef struct {
	OID     uint32 // even, in the domain range; the array type is OID+1
	Schema  string // "" = public
	Name    string
	Base    Type // base type with its typmod
	NotNull bool
	Default string // SQL text, "" when none
	Checks  []DomainCheck
	Owner   uint32           // 0: the bootstrap superuser
	ACL     *access.TableACL // typacl; nil: PostgreSQL's default (type_privileges.go)
	Comment string
}

// DomainCheck is one CHECK constraint of a domain; Expr refers to the
// value as VALUE.
type DomainCheck struct {
	OID      uint32
	Name     string
	Expr     string
	NotValid bool
}

// ArrayOID is the OID of the domain's array type.
func (d *DomainDef) ArrayOID() uint32 { return d.OID + 1 }

func (d *DomainDef) schema() string {
	if d.Schema == "" {
		return "public"
	}
	return d.Schema
}

// byName is the domain's checks in the order PostgreSQL evaluates them.
func (d *DomainDef) byName() []DomainCheck {
	out := slices.Clone(d.Checks)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// valueTable is the one-column relation a domain's CHECK expressions are
// bound against: VALUE is the column "value" of the base type. Its Kind
// tells the constraint printer to spell the column VALUE.
func (d *DomainDef) valueTable() *TableDef {
	return &TableDef{Name: "value", Kind: domainValueKind, Columns: []ColumnDef{{Name: "value", Type: d.Base}}}
}

// domainValueKind marks valueTable's relation.
const domainValueKind = "domain"

type domainReg struct {
	name string
	base Type
}

// domainTypes holds the name and base type of every domain this process
// has seen, by OID.
var domainTypes sync.Map // uint32 → domainReg

// RegisterDomain makes a domain's OID name itself (FormatType, regtype)
// and describe its values (the base type's representation).
func RegisterDomain(oid uint32, name string, base Type) {
	if cur, ok := domainTypes.Load(oid); ok && cur.(domainReg).name == name {
		return
	}
	domainTypes.Store(oid, domainReg{name: name, base: base})
	q := quoteIdent(name)
	rememberRegName(OIDRegtype, oid, q)
	rememberRegName(OIDRegtype, oid+1, q+"[]")
}

// DomainBase is the base type of a domain OID (or of the array of one:
// an array of the base type), and whether oid names a registered domain.
func DomainBase(oid uint32) (Type, bool) {
	if !IsDomainOID(oid) {
		return Type{}, false
	}
	r, ok := domainTypes.Load(oid &^ 1)
	if !ok {
		return Type{}, false
	}
	base := r.(domainReg).base
	if oid%2 == 1 {
		a, ok := ArrayOf(base)
		return Type{OID: a.OID, Mod: base.Mod}, ok
	}
	return base, true
}

// domainInfo is the typeInfo of a domain-range OID: the base type's, named
// after the domain.
func domainInfo(oid uint32) *typeInfo {
	r, ok := domainTypes.Load(oid &^ 1)
	if !ok {
		return &typeInfo{name: fmt.Sprintf("%d", oid), sqlName: "???", kind: KStr, len: -1, cat: 'X'}
	}
	reg := r.(domainReg)
	if oid%2 == 1 {
		return &typeInfo{name: "_" + reg.name, sqlName: quoteIdent(reg.name) + "[]", kind: KArray, len: -1, elem: oid - 1, cat: 'A'}
	}
	ti := *info(reg.base.OID)
	ti.name, ti.sqlName, ti.array, ti.elem = reg.name, quoteIdent(reg.name), oid+1, 0
	return &ti
}

// domains lists the user catalog's domains.
func (c *catalogSet) domains() []*DomainDef {
	if dc, ok := c.user.(DomainCatalog); ok && c.user != nil {
		return dc.Domains()
	}
	return nil
}

// domainByOID returns the domain oid (nil: not a domain of this catalog).
func (c *catalogSet) domainByOID(oid uint32) *DomainDef {
	if !IsDomainOID(oid) {
		return nil
	}
	for _, d := range c.domains() {
		if d.OID == oid {
			return d
		}
	}
	return nil
}

// domainByName resolves a domain by name (schema "" or public).
func (c *catalogSet) domainByName(name string) *DomainDef {
	for _, d := range c.domains() {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// domainCheckExpr checks its argument's values (of the base type) against
// a domain's constraints: a cast to the domain.
type domainCheckExpr struct {
	arg    Expr
	def    *DomainDef
	checks []boundDomainCheck
	isArr  bool // the argument is an array of the base type: check each element
}

type boundDomainCheck struct {
	name string
	pred Expr
}

func (e *domainCheckExpr) Type() Type     { return e.arg.Type() }
func (e *domainCheckExpr) String() string { return e.arg.String() }

func (e *domainCheckExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	v, err := e.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	if e.isArr {
		rows := sel
		if rows == nil {
			rows = allRows(b.N)
		}
		for _, i := range rows {
			if v.IsNull(int(i)) || v.A[i] == nil {
				continue
			}
			if err := e.checkVec(ec, flatItems(v.A[i].Items), nil); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
	if err := e.checkVec(ec, v, sel); err != nil {
		return nil, err
	}
	return v, nil
}

// flatItems is an array's items with nested arrays' items flattened.
func flatItems(v *Vec) *Vec {
	if !v.T.IsArray() {
		return v
	}
	var parts []*Vec
	for k := 0; k < v.N; k++ {
		if !v.IsNull(k) && v.A[k] != nil {
			parts = append(parts, flatItems(v.A[k].Items))
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	n := 0
	for _, p := range parts {
		n += p.N
	}
	out := NewVec(parts[0].T, n)
	i := 0
	for _, p := range parts {
		for k := 0; k < p.N; k++ {
			out.copyRow(i, p, k)
			i++
		}
	}
	return out
}

// checkVec checks the rows sel of v (of the base type).
func (e *domainCheckExpr) checkVec(ec *evalCtx, v *Vec, sel []int32) error {
	preds := make([]*Vec, len(e.checks))
	bt := &Batch{N: v.N, Cols: []*Vec{v}}
	for k, c := range e.checks {
		p, err := c.pred.Eval(ec, bt, sel)
		if err != nil {
			return err
		}
		preds[k] = p
	}
	rows := sel
	if rows == nil {
		rows = allRows(v.N)
	}
	for _, i := range rows {
		if v.IsNull(int(i)) {
			if e.def.NotNull {
				return domainNullError(e.def)
			}
		}
		for k, c := range e.checks {
			if p := preds[k]; !p.IsNull(int(i)) && !p.B[i] {
				return domainCheckError(e.def, c.name)
			}
		}
	}
	return nil
}

func domainNullError(d *DomainDef) error {
	return errf(pgerr.NotNullViolation, "domain %s does not allow null values", FormatType(d.OID, -1))
}

func domainCheckError(d *DomainDef, name string) error {
	return errf(pgerr.CheckViolation, "value for domain %s violates check constraint \"%s\"", FormatType(d.OID, -1), name)
}

// bindDomainChecks binds a domain's CHECK expressions over VALUE (column
// 0 of the checked batch).
func (b *binder) bindDomainChecks(d *DomainDef) ([]boundDomainCheck, error) {
	var out []boundDomainCheck
	for _, c := range d.byName() {
		tree, err := q.Parse("SELECT " + c.Expr)
		if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
			return nil, errf(CodeSyntaxError, "bad CHECK expression of domain %s: %s", d.Name, c.Expr)
		}
		sc := newScope(nil)
		sc.cols = append(sc.cols, scopeCol{name: "value", t: d.Base, idx: 0})
		node := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
		pred, err := b.bindExprCtx(node, sc, "CHECK")
		if err != nil {
			return nil, err
		}
		if pred, err = b.coerceBool(pred, "CHECK"); err != nil {
			return nil, err
		}
		out = append(out, boundDomainCheck{name: c.Name, pred: pred})
	}
	return out, nil
}

// coerceToDomainFn is coerceToDomain, called through a variable because
// binding the checks reaches coerce again (an initialization cycle).
var coerceToDomainFn func(b *binder, e Expr, t Type, cc castContext, what string) (Expr, error)

func init() { coerceToDomainFn = (*binder).coerceToDomain }

// coerceToDomain converts e to the domain (or array of the domain) t: to
// the base type under cc, then through the domain's constraints.
func (b *binder) coerceToDomain(e Expr, t Type, cc castContext, what string) (Expr, error) {
	arr := t.OID%2 == 1
	def := b.cat.domainByOID(t.OID &^ 1)
	if def == nil {
		return nil, errf(CodeUndefinedObject, "type with OID %d does not exist", t.OID)
	}
	base := def.Base
	if arr {
		a, ok := ArrayOf(base)
		if !ok {
			return nil, unsupported("arrays of domain %s are not supported", def.Name)
		}
		base = Type{OID: a.OID, Mod: base.Mod}
	}
	r, err := b.coerce(e, base, cc, what)
	if err != nil {
		return nil, err
	}
	checks, err := b.bindDomainChecks(def)
	if err != nil {
		return nil, err
	}
	de := &domainCheckExpr{arg: r, def: def, checks: checks, isArr: arr}
	if c, ok := e.(*constExpr); ok && arr && c.t.OID == OIDUnknown {
		// an array literal's elements go through the domain's input
		// as the literal is parsed: PostgreSQL reports the literal's
		// position
		if err := evalConstCheck(b, de); err != nil {
			return nil, b.at(err, c.loc-1)
		}
	}
	return de, nil
}

// evalConstCheck checks a constant's values at bind time (nil when the
// checks need more than a bare evaluation context).
func evalConstCheck(b *binder, de *domainCheckExpr) (err error) {
	defer func() {
		if recover() != nil {
			err = nil // checked again when the statement runs
		}
	}()
	_, err = de.Eval(&evalCtx{loc: b.cat.loc}, &Batch{N: 1}, nil)
	return err
}

// DomainViolation checks a column's new values (of the domain's base type,
// or an array of it when array) against a domain's NOT NULL and CHECK
// constraints, value by value as PostgreSQL does: it returns the error of
// the first value that violates one (nil when none does).
func (e *Engine) DomainViolation(ctx context.Context, sess *Session, d *DomainDef, v *Vec, array bool) error {
	cs := &catalogSet{user: e.Catalog}
	if sess != nil {
		cs.db, cs.user_, cs.setting = sess.Database, sess.User, sess.Setting
		cs.rolesFn, cs.sessUser = sess.Roles, sess.sessionUser()
	}
	b := &binder{cat: cs}
	checks, err := b.bindDomainChecks(d)
	if err != nil {
		return err
	}
	ec, err := e.evalSetup(ctx, sess, b, nil)
	if err != nil {
		return err
	}
	de := &domainCheckExpr{def: d, checks: checks}
	if !array {
		return de.checkVec(ec, v, nil)
	}
	for i := 0; i < v.N; i++ {
		if !v.IsNull(i) && v.A[i] != nil {
			if err := de.checkVec(ec, flatItems(v.A[i].Items), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// DomainCheckViolated reports whether a value of v (of d's base type)
// makes the CHECK expression expr false: ALTER DOMAIN … ADD CONSTRAINT
// validating existing data.
func (e *Engine) DomainCheckViolated(ctx context.Context, sess *Session, d *DomainDef, expr string, v *Vec, array bool) (bool, error) {
	dd := *d
	dd.Checks = []DomainCheck{{Name: "new", Expr: expr}}
	dd.NotNull = false
	err := e.DomainViolation(ctx, sess, &dd, v, array)
	if err != nil && Code(err) == pgerr.CheckViolation {
		return true, nil
	}
	return false, err
}

// domainTypeRows are the pg_type rows of the domains and their array
// types (PostgreSQL's: typtype 'd', the base type's layout and output
// functions, domain_in/domain_recv for input).
func (c *catalogSet) domainTypeRows() [][]any {
	var rows [][]any
	in, recv := procOIDOr0("domain_in"), procOIDOr0("domain_recv")
	ain, aout, arecv, asend := procOIDOr0("array_in"), procOIDOr0("array_out"), procOIDOr0("array_recv"), procOIDOr0("array_send")
	sub, aan := procOIDOr0("array_subscript_handler"), procOIDOr0("array_typanalyze")
	var typeRows map[uint32][]any
	for _, d := range c.domains() {
		if typeRows == nil {
			typeRows = map[uint32][]any{}
			for _, r := range builtinTypeRows() {
				typeRows[r[0].(uint32)] = r
			}
		}
		base := typeRows[d.Base.OID]
		if base == nil {
			continue
		}
		ns, owner := c.nsOID(d.schema()), d.Owner
		if owner == 0 {
			owner = oidPostgresRole
		}
		var def any
		if d.Default != "" {
			def = d.Default
		}
		// oid typname typnamespace typowner typlen typbyval typtype
		// typcategory typispreferred typisdefined typdelim typrelid
		// typsubscript typelem typarray typinput typoutput typreceive
		// typsend typmodin typmodout typanalyze typalign typstorage
		// typnotnull typbasetype typtypmod typndims typcollation
		// typdefaultbin typdefault typacl
		ndims := 0
		if d.Base.IsArray() {
			ndims = 1
		}
		rows = append(rows, []any{d.OID, d.Name, ns, owner, base[4], base[5], "d", base[7], false, true, base[10], 0, 0, 0, d.ArrayOID(),
			in, base[16], recv, base[18], 0, 0, base[21], base[22], base[23], d.NotNull, d.Base.OID, d.Base.Mod, ndims, base[28], def, def, c.typeACL(d.ACL)})
		rows = append(rows, []any{d.ArrayOID(), "_" + d.Name, ns, owner, int16(-1), false, "b", "A", false, true, ",", 0, sub, d.OID, 0,
			ain, aout, arecv, asend, 0, 0, aan, base[22], "x", false, 0, -1, 0, base[28], nil, nil, nil})
	}
	return rows
}

// domainConstraintDef is pg_get_constraintdef of a domain's CHECK
// constraint oid ("" when oid is none).
func (c *catalogSet) domainConstraintDef(oid uint32, pretty bool) string {
	if oid < DomainConstraintOIDBase {
		return ""
	}
	for _, d := range c.domains() {
		for _, k := range d.Checks {
			if k.OID != oid {
				continue
			}
			e, ok := checkDefinition(k.Expr, d.valueTable(), pretty)
			if !ok {
				e = checkExprText(strings.ReplaceAll(k.Expr, "value", "VALUE"))
				if pretty && strings.HasPrefix(e, "(") {
					e = e[1 : len(e)-1]
				}
			}
			s := "CHECK (" + e + ")"
			if k.NotValid {
				s += " NOT VALID"
			}
			return s
		}
	}
	return ""
}

func init() {
	infoSchemaRels["domains"] = &sysRelation{13320, "domain_catalog sql_identifier, domain_schema sql_identifier, domain_name sql_identifier, data_type character_data, character_maximum_length cardinal_number, character_octet_length cardinal_number, character_set_catalog sql_identifier, character_set_schema sql_identifier, character_set_name sql_identifier, collation_catalog sql_identifier, collation_schema sql_identifier, collation_name sql_identifier, numeric_precision cardinal_number, numeric_precision_radix cardinal_number, numeric_scale cardinal_number, datetime_precision cardinal_number, interval_type character_data, interval_precision cardinal_number, domain_default character_data, udt_catalog sql_identifier, udt_schema sql_identifier, udt_name sql_identifier, scope_catalog sql_identifier, scope_schema sql_identifier, scope_name sql_identifier, maximum_cardinality cardinal_number, dtd_identifier sql_identifier", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, d := range c.domains() {
			t := d.Base
			dataType := FormatType(t.OID, -1)
			switch {
			case t.OID == OIDBpchar:
				dataType = "character"
			case t.IsArray():
				dataType = "ARRAY"
			}
			var charMax, octet, numPrec, radix, scale, dtp any
			switch t.OID {
			case OIDVarchar, OIDBpchar:
				if t.Mod >= 4 {
					charMax, octet = int64(t.Mod-4), int64((t.Mod-4)*4)
				} else {
					octet = int64(1073741824)
				}
			case OIDText:
				octet = int64(1073741824)
			case OIDInt2:
				numPrec, radix, scale = int64(16), int64(2), int64(0)
			case OIDInt4:
				numPrec, radix, scale = int64(32), int64(2), int64(0)
			case OIDInt8:
				numPrec, radix, scale = int64(64), int64(2), int64(0)
			case OIDFloat4:
				numPrec, radix = int64(24), int64(2)
			case OIDFloat8:
				numPrec, radix = int64(53), int64(2)
			case OIDNumeric:
				radix = int64(10)
				if t.Mod >= 4 {
					numPrec, scale = int64(((t.Mod-4)>>16)&0xffff), int64((t.Mod-4)&0xffff)
				}
			case OIDDate:
				dtp = int64(0)
			case OIDTimestamp, OIDTimestamptz, OIDTime:
				dtp = int64(6)
				if t.Mod >= 0 {
					dtp = int64(t.Mod)
				}
			}
			var collCat, collSchema, collName, def any
			if d.Default != "" {
				def = d.Default
			}
			udt := info(t.OID).name
			rows = append(rows, []any{c.database(), d.schema(), d.Name, dataType, charMax, octet, nil, nil, nil, collCat, collSchema, collName,
				numPrec, radix, scale, dtp, nil, nil, def, c.database(), "pg_catalog", udt, nil, nil, nil, nil, "1"})
		}
		return rows
	}}
	infoSchemaRels["domain_constraints"] = &sysRelation{13310, "constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, domain_catalog sql_identifier, domain_schema sql_identifier, domain_name sql_identifier, is_deferrable yes_or_no, initially_deferred yes_or_no", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, d := range c.domains() {
			for _, k := range d.Checks {
				rows = append(rows, []any{c.database(), d.schema(), k.Name, c.database(), d.schema(), d.Name, "NO", "NO"})
			}
		}
		return rows
	}}
}

// CheckExprType binds expr to find the errors PostgreSQL reports when a
// domain's DEFAULT or CHECK expression is defined: unknown functions or
// columns, type mismatches, malformed constants. With d, expr may refer
// to VALUE (of d's base type); what names the clause ("CHECK": the
// expression must be boolean).
func CheckExprType(expr string, d *DomainDef, what string) error {
	tree, err := q.Parse("SELECT " + expr)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return errf(CodeSyntaxError, "bad expression: %s", expr)
	}
	b := &binder{cat: &catalogSet{loc: time.UTC}}
	sc := newScope(nil)
	if d != nil {
		sc.cols = append(sc.cols, scopeCol{name: "value", t: d.Base, idx: 0})
	}
	node := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	e, err := b.bindExprCtx(node, sc, what)
	if err != nil {
		return err
	}
	if what == "CHECK" {
		_, err = b.coerceBool(e, "CHECK")
	}
	return err
}

// domainArrayType is the array-of-domain type a result column names in
// RowDescription: a plain column declared as one, or a cast to one (0:
// none).
func domainArrayType(e Expr, src *scopeCol) uint32 {
	if d, ok := e.(*domainCheckExpr); ok && d.isArr {
		return d.def.ArrayOID()
	}
	if src != nil && src.table_ != nil && src.attnum > 0 && int(src.attnum) <= len(src.table_.Columns) {
		if c := src.table_.Columns[src.attnum-1]; c.Domain%2 == 1 && c.Type == e.Type() {
			return c.Domain
		}
	}
	return 0
}
