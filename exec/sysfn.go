package exec

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/pggraph/pggraph/pgerr"
)

// ServerVersion is what version() and server_version report.
const ServerVersion = "15.0"

// VersionString is PostgreSQL-shaped so tools that parse it work.
const VersionString = "PostgreSQL 15.0 (pggraph) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"

// regNames maps reg* OIDs to names for text output; filled from the
// catalogs the engine has generated (OIDs are stable per catalog version).
var regNames sync.Map // key: [2]uint32{kind, oid} → string

func regName(kind, oid uint32) (string, bool) {
	if v, ok := regNames.Load([2]uint32{kind, oid}); ok {
		return v.(string), true
	}
	return "", false
}

func rememberRegName(kind, oid uint32, name string) { regNames.Store([2]uint32{kind, oid}, name) }

// regCast binds x::regclass / ::regtype / ::regnamespace.
func (b *binder) regCast(arg Expr, t Type) (Expr, error) {
	at := arg.Type()
	if at.isInt() || at.OID == OIDOid || at.OID == t.OID || isOIDType(at) && canCast(at, t, castExplicit) {
		return &castExpr{arg: arg, t: t, explicit: true}, nil
	}
	if at.OID != OIDUnknown && !at.isString() {
		return nil, errf(CodeCannotCoerce, "cannot cast type %s to %s", at, t)
	}
	if at.OID == OIDUnknown {
		arg, _ = b.coerce(arg, TText, castImplicit, "")
	}
	cs := b.cat
	return &opExpr{name: "reg", t: t, args: []Expr{arg}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			oid, err := cs.regLookup(t.OID, a[0].S[i])
			if err != nil {
				return err
			}
			out.I[i] = int64(oid)
		}
		return nil
	}}, nil
}

// regLookup resolves a name for a reg* input.
func (c *catalogSet) regLookup(kind uint32, name string) (uint32, error) {
	n := strings.TrimSpace(name)
	if n != "" && n[0] >= '0' && n[0] <= '9' {
		v, err := parseInt(n, TOid)
		return uint32(v), err
	}
	switch kind {
	case OIDRegtype:
		parts := splitQualified(strings.TrimSuffix(n, "[]"))
		if len(parts) == 2 && parts[0] == "public" && !c.schemaUsable("public") {
			return 0, errSchemaUsage("public")
		}
		if len(parts) == 1 && c.schemaUsable("public") || len(parts) == 2 && parts[0] == "public" {
			if e := c.enumByName(parts[len(parts)-1]); e != nil { // a user type (enums.go)
				if strings.HasSuffix(n, "[]") {
					return e.ArrayOID(), nil
				}
				return e.OID, nil
			}
			if d := c.domainByName(parts[len(parts)-1]); d != nil { // domains.go
				if strings.HasSuffix(n, "[]") {
					return d.ArrayOID(), nil
				}
				return d.OID, nil
			}
		}
		// a schema qualifier and a type modifier do not change the OID:
		// 'pg_catalog.text', 'character varying(10)'
		if rest, ok := strings.CutPrefix(strings.ToLower(n), "pg_catalog."); ok {
			n = n[len(n)-len(rest):]
		}
		// quoted names ('"pg_catalog"."int4"', TypeORM's udt_schema and
		// udt_name): the identifiers, unquoted
		if strings.Contains(n, `"`) && !strings.Contains(n, "(") {
			parts := splitQualified(n)
			if len(parts) == 2 && parts[0] == "pg_catalog" || len(parts) == 1 {
				n = parts[len(parts)-1]
				// a quoted name keeps its case, and built-in type names
				// are lower case
				if n != strings.ToLower(n) {
					return 0, errf(CodeUndefinedObject, "type \"%s\" does not exist", n)
				}
			}
		}
		if k, j := strings.IndexByte(n, '('), strings.IndexByte(n, ')'); k > 0 && j > k {
			n = strings.Join(strings.Fields(n[:k]+" "+n[j+1:]), " ")
			n = strings.ReplaceAll(n, " []", "[]")
		}
		if oid, ok := typeNames[strings.ToLower(n)]; ok {
			return oid, nil
		}

		if strings.HasSuffix(n, "[]") {
			if oid, ok := typeNames[strings.ToLower(strings.TrimSuffix(n, "[]"))]; ok {
				return info(oid).array, nil
			}
		}
		for oid, ti := range typeInfos {
			if ti.name == n || ti.sqlName == n {
				return oid, nil
			}
		}
		return 0, errf(CodeUndefinedObject, "type \"%s\" does not exist", n)
	case OIDRegprocedure:
		return regprocedureLookup(n)
	case OIDRegoperator:
		return regoperatorLookup(n)
	case OIDRegproc:
		name := unquoteIdent(n)
		if k := strings.Index(n, "."); k >= 0 && unquoteIdent(n[:k]) == "pg_catalog" {
			name = unquoteIdent(n[k+1:])
		}
		if oid, ok := procOID(name); ok {
			return oid, nil
		}
		return 0, errf(CodeUndefinedFunction, "function \"%s\" does not exist", n)
	case OIDRegnamespace:
		for _, ns := range c.namespaces() {
			if ns.name == n {
				return ns.oid, nil
			}
		}
		return 0, errf(CodeUndefinedObject, "schema \"%s\" does not exist", n)
	}
	// [database.][schema.]relation: tools build the three-part form from
	// information_schema's table_catalog (TypeORM's column query), which
	// PostgreSQL accepts when it names the current database.
	schema, rel := "", ""
	switch parts := splitQualified(n); len(parts) {
	case 1:
		rel = parts[0]
	case 2:
		schema, rel = parts[0], parts[1]
	case 3:
		if parts[0] != c.database() {
			return 0, errf(CodeFeatureNotSupported, "cross-database references are not implemented: %s", n)
		}
		schema, rel = parts[1], parts[2]
	default:
		return 0, errf(CodeSyntaxError, "improper relation name (too many dotted names): %s", n)
	}
	if (schema == "public" || schema == "") && !c.schemaUsable("public") {
		// schema_usage.go: public is off the role's search path
		if schema != "" {
			return 0, errSchemaUsage(schema)
		}
		if td := c.table("", rel); td != nil && !isPublicUserRelation(td) {
			rememberRegName(OIDRegclass, td.OID, quoteIdent(td.Name))
			return td.OID, nil
		}
		return 0, errf(CodeUndefinedTable, "relation \"%s\" does not exist", n)
	}
	if td := c.table(schema, rel); td != nil {
		rememberRegName(OIDRegclass, td.OID, regclassText(td.Schema, td.RelName()))
		return td.OID, nil
	}
	// indexes and sequences are relations too
	for _, k := range c.constraints() {
		if k.hasIndex() && k.name == rel && (schema == "" || schema == k.table.Schema) {
			rememberRegName(OIDRegclass, k.index, quoteIdent(k.name))
			return k.index, nil
		}
	}
	if s := c.sequenceByName(schema, rel); s != nil {
		rememberRegName(OIDRegclass, s.OID, regclassText(s.schema(), s.relName()))
		return s.OID, nil
	}
	return 0, errf(CodeUndefinedTable, "relation \"%s\" does not exist", n)
}

// isRegNameType reports the OID alias types whose input is an object
// name (looked up in the catalogs).
func isRegNameType(t Type) bool {
	switch t.OID {
	case OIDRegclass, OIDRegtype, OIDRegnamespace, OIDRegproc, OIDRegprocedure, OIDRegoperator:
		return true
	}
	return false
}

// regprocedureLookup resolves 'name(type, ...)' (schema-qualified or
// not) to the pg_proc row with exactly those argument types.
func regprocedureLookup(s string) (uint32, error) {
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open <= 0 || close < open {
		return 0, errf(CodeInvalidTextRepr, "expected a left parenthesis")
	}
	parts := splitQualified(strings.TrimSpace(s[:open]))
	name := parts[len(parts)-1]
	var want []uint32
	if args := strings.TrimSpace(s[open+1 : close]); args != "" {
		for _, a := range strings.Split(args, ",") {
			oid, err := (&catalogSet{}).regLookup(OIDRegtype, strings.TrimSpace(a))
			if err != nil {
				return 0, err
			}
			want = append(want, oid)
		}
	}
	for _, f := range catalogProcs().byName[name] {
		if len(parts) == 2 && parts[0] != f.nsp {
			continue
		}
		if slices.Equal(f.args, want) || len(f.args) == 0 && len(want) == 0 {
			return f.oid, nil
		}
	}
	return 0, errf(CodeUndefinedFunction, "function \"%s\" does not exist", s)
}

// regoperatorLookup resolves 'op(type, type)' (NONE for a prefix
// operator's missing left operand) to the pg_operator row.
func regoperatorLookup(s string) (uint32, error) {
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open <= 0 || close < open {
		return 0, errf(CodeInvalidTextRepr, "expected a left parenthesis")
	}
	name := strings.TrimPrefix(strings.TrimSpace(s[:open]), "pg_catalog.")
	args := strings.Split(s[open+1:close], ",")
	if len(args) != 2 {
		return 0, errf(CodeInvalidTextRepr, "expected two type names")
	}
	var types [2]uint32
	for i, a := range args {
		a = strings.TrimSpace(a)
		if strings.EqualFold(a, "none") {
			continue
		}
		oid, err := (&catalogSet{}).regLookup(OIDRegtype, a)
		if err != nil {
			return 0, err
		}
		types[i] = oid
	}
	for _, o := range catalogOperators() {
		if o.name == name && o.left == types[0] && o.right == types[1] {
			return o.oid, nil
		}
	}
	return 0, errf(CodeUndefinedFunction, "operator does not exist: %s", s)
}

func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

type nsInfo struct {
	oid  uint32
	name string
}

// Namespace OIDs: PostgreSQL's fixed ones, then user schemas from 2200.
const (
	oidPgCatalog         = 11
	oidPublic            = 2200
	oidInformationSchema = 13207
	oidPgToast           = 99
)

func (c *catalogSet) namespaces() []nsInfo {
	out := []nsInfo{{oidPgCatalog, "pg_catalog"}, {oidPgToast, "pg_toast"}, {oidPublic, "public"}, {oidInformationSchema, "information_schema"}}
	if c.user != nil {
		created := map[string]uint32{}
		for _, d := range c.schemaDefs() {
			created[d.Name] = d.OID
		}
		i := 0
		for _, s := range c.user.Schemas() {
			if s == "public" {
				continue
			}
			if oid, ok := created[s]; ok {
				out = append(out, nsInfo{oid, s})
				continue
			}
			// built-in schemas besides public (graph) keep the OIDs
			// they had before schemas could be created
			out = append(out, nsInfo{uint32(16000 + i), s})
			i++
		}
	}
	return out
}

func constText(name string, f func(ec *evalCtx) string) {
	defCustom(name, func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 0 {
			return nil, noFunction(name, args)
		}
		t := TText
		if name == "current_user" || name == "current_database" || name == "getdatabaseencoding" || name == "current_schema" || name == "session_user" || name == "user" {
			t = TName
		}
		return &opExpr{name: name, t: t, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			s := f(ec)
			for _, i := range sel {
				out.S[i] = s
			}
			return nil
		}}, nil
	})
}

func init() {
	constText("version", func(*evalCtx) string { return VersionString })
	constText("current_database", func(ec *evalCtx) string {
		if ec.run.database == "" {
			return "main"
		}
		return ec.run.database
	})
	constText("current_user", func(ec *evalCtx) string {
		if ec.run.user == "" {
			return "postgres"
		}
		return ec.run.user
	})
	constText("session_user", func(ec *evalCtx) string {
		if ec.run.sessionUser == "" {
			return "postgres"
		}
		return ec.run.sessionUser
	})
	defCustom("current_schema", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 0 {
			return nil, noFunction("current_schema", args)
		}
		cat := b.cat
		return &opExpr{name: "current_schema", t: TName, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			s, ok := cat.currentSchema()
			for _, i := range sel {
				if ok {
					out.S[i] = s
				} else {
					out.SetNull(int(i))
				}
			}
			return nil
		}}, nil
	})
	defCustom("pg_backend_pid", func(b *binder, args []Expr) (Expr, error) {
		return &opExpr{name: "pg_backend_pid", t: TInt4, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.I[i] = int64(ec.run.pid)
			}
			return nil
		}}, nil
	})
	defCustom("pg_typeof", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 {
			return nil, noFunction("pg_typeof", args)
		}
		oid := args[0].Type().OID
		if d, ok := args[0].(*domainCheckExpr); ok {
			oid = d.def.OID // a cast to a domain (domains.go)
			if d.isArr {
				oid = d.def.ArrayOID()
			}
		}
		return &opExpr{name: "pg_typeof", t: TRegtype, args: args, k: func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.I[i] = int64(oid)
			}
			return nil
		}}, nil
	})
	def("format_type", fnSig{args: []Type{TOid, TInt4}, ret: TText, nonStrict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if a[0].IsNull(int(i)) {
				out.SetNull(int(i))
				continue
			}
			mod := int32(-1)
			if !a[1].IsNull(int(i)) {
				mod = int32(a[1].I[i])
			} else if uint32(a[0].I[i]) == OIDBpchar {
				out.S[i] = "character" // no typmod given: PostgreSQL's bpchar spelling
				continue
			}
			if IsEnumOID(uint32(a[0].I[i])) {
				out.S[i] = enumTypeName(ec, uint32(a[0].I[i]), mod)
				continue
			}
			out.S[i] = FormatType(uint32(a[0].I[i]), mod)
		}
		return nil
	}})
	defCustom("current_schemas", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 {
			return nil, noFunction("current_schemas", args)
		}
		a, err := b.coerce(args[0], TBool, castImplicit, "")
		if err != nil {
			return nil, err
		}
		return &opExpr{name: "current_schemas", t: Type{1003, -1}, args: []Expr{a}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				names := []string{"public"}
				if a[0].B[i] {
					names = []string{"pg_catalog", "public"}
				}
				items := NewVec(TName, len(names))
				copy(items.S, names)
				out.A[i] = &Array{Elem: TName, Items: items}
			}
			return nil
		}}, nil
	})
	// has_table_privilege and the column functions: syscat_privileges.go;
	// has_sequence_privilege: sequence_privileges.go
	// has_schema_privilege: schema_privileges.go
	// has_function_privilege: function_privileges.go
	defCustom("pg_table_is_visible", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 {
			return nil, noFunction("pg_table_is_visible", args)
		}
		a, err := b.coerce(args[0], TOid, castImplicit, "")
		if err != nil {
			return nil, err
		}
		cat := b.cat
		return &opExpr{name: "pg_table_is_visible", t: TBool, args: []Expr{a}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			visible := cat.relationVisibility() // once per batch: plans may run concurrently
			for _, i := range sel {
				out.B[i] = visible(uint32(a[0].I[i]))
			}
			return nil
		}}, nil
	})
	def("pg_type_is_visible", sig(TBool, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			// information_schema is not on the search path
			b, _ := infoDomainBase(uint32(a[0].I[i]))
			out.B[i] = b == 0
		}
		return nil
	}, TOid))
}

// catalog lookup functions close over the statement's catalog set.
func init() {
	oidArg := func(b *binder, e Expr) (Expr, error) { return b.coerce(e, TOid, castImplicit, "") }
	defCustom("pg_get_constraintdef", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 1 || len(args) > 2 {
			return nil, noFunction("pg_get_constraintdef", args)
		}
		a, err := oidArg(b, args[0])
		if err != nil {
			return nil, err
		}
		all := []Expr{a}
		if len(args) == 2 {
			p, err := b.coerce(args[1], TBool, castImplicit, "")
			if err != nil {
				return nil, err
			}
			all = append(all, p)
		}
		cs := b.cat
		return &opExpr{name: "pg_get_constraintdef", t: TText, args: all, strict: true, k: func(_ *evalCtx, x []*Vec, out *Vec, sel []int32) error {
			cons := cs.constraints()
			for _, i := range sel {
				out.SetNull(int(i))
				pretty := len(x) == 2 && x[1].B[i]
				for _, k := range cons {
					if k.oid != 0 && int64(k.oid) == x[0].I[i] {
						out.Nulls[i] = false
						out.S[i] = cs.constraintDef(k, pretty)
					}
				}
				if d := cs.domainConstraintDef(uint32(x[0].I[i]), pretty); d != "" {
					out.Nulls[i], out.S[i] = false, d
				}
			}
			return nil
		}}, nil
	})
	defCustom("pg_get_indexdef", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 && len(args) != 3 {
			return nil, noFunction("pg_get_indexdef", args)
		}
		a, err := oidArg(b, args[0])
		if err != nil {
			return nil, err
		}
		cs := b.cat
		all := []Expr{a}
		if len(args) == 3 {
			col, err := b.coerce(args[1], TInt4, castImplicit, "")
			if err != nil {
				return nil, err
			}
			p, err := b.coerce(args[2], TBool, castImplicit, "")
			if err != nil {
				return nil, err
			}
			all = append(all, col, p)
		}
		return &opExpr{name: "pg_get_indexdef", t: TText, args: all, strict: true, k: func(ec *evalCtx, x []*Vec, out *Vec, sel []int32) error {
			var cv, pv *Vec
			if len(x) > 2 {
				cv, pv = x[1], x[2]
			}
			cons := cs.constraints()
			for _, i := range sel {
				out.SetNull(int(i))
				for _, k := range cons {
					if k.hasIndex() && int64(k.index) == x[0].I[i] {
						out.Nulls[i] = false
						out.S[i] = cs.indexDef(k, pv != nil && pv.B[i])
						if cv != nil && !cv.IsNull(int(i)) && cv.I[i] > 0 {
							n := int(cv.I[i]) - 1
							if n < len(k.cols) {
								out.S[i] = k.keyText(n, pv != nil && pv.B[i])
							} else {
								out.S[i] = ""
							}
						}
					}
				}
			}
			return nil
		}}, nil
	})
	defCustom("pg_get_expr", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 2 || len(args) > 3 {
			return nil, noFunction("pg_get_expr", args)
		}
		a, err := b.coerce(args[0], TText, castImplicit, "")
		if err != nil {
			return nil, err
		}
		return &opExpr{name: "pg_get_expr", t: TText, args: []Expr{a}, strict: true, k: func(_ *evalCtx, x []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.S[i] = x[0].S[i]
			}
			return nil
		}}, nil
	})
	describe := func(name string, col bool) {
		defCustom(name, func(b *binder, args []Expr) (Expr, error) {
			if len(args) < 1 || len(args) > 2 {
				return nil, noFunction(name, args)
			}
			a, err := oidArg(b, args[0])
			if err != nil {
				return nil, err
			}
			ex := []Expr{a}
			if len(args) == 2 {
				want := TText // obj_description(oid, catalog name)
				if col {
					want = TInt4
				}
				n, err := b.coerce(args[1], want, castImplicit, "")
				if err != nil {
					return nil, err
				}
				ex = append(ex, n)
			}
			cs := b.cat
			return &opExpr{name: name, t: TText, args: ex, strict: true, k: func(_ *evalCtx, x []*Vec, out *Vec, sel []int32) error {
				tables := cs.userTables()
				for _, i := range sel {
					out.SetNull(int(i))
					class := uint32(0)
					if !col && len(x) == 2 {
						class = catalogRelOID(x[1].S[i])
						if class == 0 {
							continue // not a catalog: no description
						}
					}
					if d, ok := builtinDescription(uint32(x[0].I[i]), class); ok && !col {
						out.Nulls[i] = false
						out.S[i] = d
						continue
					}
					if !col && (class == 0 || class == oidPgTypeRel) {
						if e := cs.enumByOID(uint32(x[0].I[i])); e != nil && e.Comment != "" {
							out.Nulls[i] = false
							out.S[i] = e.Comment
							continue
						}
						if d := cs.domainByOID(uint32(x[0].I[i])); d != nil && d.Comment != "" {
							out.Nulls[i], out.S[i] = false, d.Comment // domains.go
							continue
						}
					}
					if class != 0 && class != oidPgClassRel {
						continue // user comments are on relations and enum types only
					}
					for _, t := range tables {
						if int64(t.OID) != x[0].I[i] {
							continue
						}
						s := t.Comment
						if col {
							n := int(x[1].I[i])
							s = ""
							if n >= 1 && n <= len(t.Columns) {
								s = t.Columns[n-1].Comment
							}
						}
						if s != "" {
							out.Nulls[i] = false
							out.S[i] = s
						}
					}
				}
				return nil
			}}, nil
		})
	}
	describe("obj_description", false)
	describe("col_description", true)
	describe("shobj_description", false)
	zero := func(name string) {
		defCustom(name, func(b *binder, args []Expr) (Expr, error) {
			if len(args) < 1 {
				return nil, noFunction(name, args)
			}
			return &opExpr{name: name, t: TInt8, args: args[:1], strict: true, k: func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
				return nil
			}}, nil
		})
	}
	// access statistics are not kept: 0 (pg_stat_get_numscans is what
	// DBeaver's index list reads); sizes are in syscat_size.go
	zero("pg_stat_get_numscans")
	// no partitioned tables: pg_get_partkeydef is NULL for every relation
	def("pg_get_partkeydef", sig(TText, nullKernel, TOid))
}

// pgvector's functions on vector(n): dimensions, norm and distances
// (float4 accumulation as pgvector does; 22000 for vectors of different
// dimensions).
func init() {
	tv := Type{OIDVector, -1}
	def("vector_dims", sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.I[i] = int64(a[0].A[i].Items.N)
		}
		return nil
	}, tv))
	def("vector_norm", sig(TFloat8, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			var n float64
			for _, x := range a[0].A[i].Items.F {
				n += x * x
			}
			out.F[i] = math.Sqrt(n)
		}
		return nil
	}, tv))
	distance := func(f func(x, y []float64) float64) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				x, y := a[0].A[i].Items.F, a[1].A[i].Items.F
				if len(x) != len(y) {
					return errf(pgerr.DataException, "different vector dimensions %d and %d", len(x), len(y))
				}
				out.F[i] = f(x, y)
			}
			return nil
		}
	}
	def("l2_distance", sig(TFloat8, distance(func(x, y []float64) float64 {
		var d float32
		for k := range x {
			diff := float32(x[k]) - float32(y[k])
			d += diff * diff
		}
		return math.Sqrt(float64(d))
	}), tv, tv))
	def("l1_distance", sig(TFloat8, distance(func(x, y []float64) float64 {
		var d float32
		for k := range x {
			d += float32(math.Abs(float64(float32(x[k]) - float32(y[k]))))
		}
		return float64(d)
	}), tv, tv))
	def("inner_product", sig(TFloat8, distance(func(x, y []float64) float64 {
		var d float32
		for k := range x {
			d += float32(x[k]) * float32(y[k])
		}
		return float64(d)
	}), tv, tv))
	def("vector_negative_inner_product", sig(TFloat8, distance(func(x, y []float64) float64 {
		var d float32
		for k := range x {
			d += float32(x[k]) * float32(y[k])
		}
		return -float64(d)
	}), tv, tv))
	def("cosine_distance", sig(TFloat8, distance(func(x, y []float64) float64 {
		var d, na, nb float32
		for k := range x {
			d += float32(x[k]) * float32(y[k])
			na += float32(x[k]) * float32(x[k])
			nb += float32(y[k]) * float32(y[k])
		}
		sim := float64(d) / math.Sqrt(float64(na)*float64(nb))
		if math.IsNaN(sim) {
			return sim
		}
		return 1 - max(-1, min(1, sim))
	}), tv, tv))
}

// vectorOperators are pgvector's distance operators and their functions.
var vectorOperators = map[string]string{
	"<->": "l2_distance", "<=>": "cosine_distance", "<+>": "l1_distance", "<#>": "vector_negative_inner_product",
}

// vectorOperator binds l op r for pgvector's distance operators when an
// operand is a vector (an unknown literal on the other side reads as a
// vector); ok is false otherwise.
func (b *binder) vectorOperator(op string, l, r Expr) (Expr, bool, error) {
	fn, isOp := vectorOperators[op]
	if !isOp || (l.Type().OID != OIDVector && r.Type().OID != OIDVector) {
		return nil, false, nil
	}
	e, err := b.funcByName(fn, []Expr{l, r})
	if err != nil {
		return nil, true, opNotExist(op, l.Type(), r.Type())
	}
	return e, true, nil
}
