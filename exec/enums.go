package exec

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/pgerr"
)

// User-defined enum types (CREATE TYPE … AS ENUM).
//
// An enum value is its label, held in a string slot (KStr) and stored as
// text; the type's OID says which enum it is. What the labels are and how
// they order is per catalog (a branch, a snapshot, a transaction's own
// ALTER TYPE), so the binder takes them from its catalog (EnumCatalog)
// when it binds input of the type (validation, 22P02) and comparisons or
// sorts (by declaration order, enumsortorder, as PostgreSQL's enum_cmp).
// Only the type's name and array type are process-global (enumTypes), so
// a bare Type prints and names itself anywhere (format_type, RowDescription
// lookups, error messages). Enum OIDs come from their own range
// (EnumOIDBase), chosen once when the type is created and stored with it,
// so an OID never names two different types.

// EnumOIDBase starts the OID range of enum types: an enum's OID is even,
// its array type's the next odd number.
const (
	EnumOIDBase uint32 = 0x5000_0000
	EnumOIDEnd  uint32 = 0x6000_0000
)

// IsEnumOID reports whether oid lies in the enum range (the type itself or
// its array type).
func IsEnumOID(oid uint32) bool { return oid >= EnumOIDBase && oid < EnumOIDEnd }

// EnumCatalog is an optional extension of Catalog for catalogs that hold
// enum types: pg_type, pg_enum, regtype, casts and comparisons see them.
type EnumCatalog interface {
	Enums() []*EnumDef
}

// EnumDef is one enum type.
type EnumDef struct {
	OID    uint32 // even, in the enum range; the array type is OID+1
	Schema string // "" = public
	Name   string
	Labels []string
	// Sorts are pg_enum.enumsortorder by label (same order as Labels,
	// which is declaration order only until ALTER TYPE … ADD VALUE
	// BEFORE/AFTER).
	Sorts []float32
	Owner uint32 // 0: the bootstrap superuser
	// ACL is typacl once someone granted or revoked on the type; nil is
	// PostgreSQL's default (PUBLIC and the owner hold USAGE).
	ACL     *access.TableACL
	Comment string
	// Uncommitted are labels ALTER TYPE … ADD VALUE added in the open
	// transaction: PostgreSQL refuses to store or compare them until
	// the transaction commits (55P04).
	Uncommitted map[string]bool
}

// check validates one label as input of the type (enum_in).
func (e *EnumDef) check(label string) error {
	if _, ok := e.sortOf(label); !ok {
		return errf(CodeInvalidTextRepr, "invalid input value for enum %s: %s", FormatType(e.OID, -1), quoteLiteralDouble(label))
	}
	if e.Uncommitted[label] {
		return &Error{Code: pgerr.UnsafeNewEnumValueUsage, Message: fmt.Sprintf("unsafe use of new value %s of enum type %s", quoteLiteralDouble(label), FormatType(e.OID, -1)),
			Hint: "New enum values must be committed before they can be used."}
	}
	return nil
}

// ArrayOID is the OID of the enum's array type.
func (e *EnumDef) ArrayOID() uint32 { return e.OID + 1 }

func (e *EnumDef) schema() string {
	if e.Schema == "" {
		return "public"
	}
	return e.Schema
}

// sortOf returns the sort position of label and whether it is a label of e.
func (e *EnumDef) sortOf(label string) (float32, bool) {
	for i, l := range e.Labels {
		if l == label {
			return e.Sorts[i], true
		}
	}
	return 0, false
}

// ordered returns the labels in sort order.
func (e *EnumDef) ordered() []string {
	idx := make([]int, len(e.Labels))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return e.Sorts[idx[a]] < e.Sorts[idx[b]] })
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = e.Labels[k]
	}
	return out
}

// enumTypes holds the typeInfo of every enum type (and array type) this
// process has seen, by OID.
var enumTypes sync.Map // uint32 → *typeInfo

// RegisterEnum makes an enum type's OID name itself (info, FormatType).
// Called whenever a catalog with the type is built; a rename replaces the
// name.
func RegisterEnum(oid uint32, name string) {
	if cur, ok := enumTypes.Load(oid); ok && cur.(*typeInfo).name == name {
		return
	}
	q := quoteIdent(name)
	enumTypes.Store(oid, &typeInfo{name: name, sqlName: q, kind: KStr, len: 4, array: oid + 1, cat: 'E'})
	enumTypes.Store(oid+1, &typeInfo{name: "_" + name, sqlName: q + "[]", kind: KArray, len: -1, elem: oid, cat: 'A'})
	rememberRegName(OIDRegtype, oid, q)
	rememberRegName(OIDRegtype, oid+1, q+"[]")
}

// enumInfo is the typeInfo of an enum-range OID (a placeholder name when
// no catalog has registered it).
func enumInfo(oid uint32) *typeInfo {
	if ti, ok := enumTypes.Load(oid); ok {
		return ti.(*typeInfo)
	}
	if oid%2 == 1 {
		return &typeInfo{name: fmt.Sprintf("_%d", oid-1), sqlName: "???[]", kind: KArray, len: -1, elem: oid - 1, cat: 'A'}
	}
	return &typeInfo{name: fmt.Sprintf("%d", oid), sqlName: "???", kind: KStr, len: 4, array: oid + 1, cat: 'E'}
}

// enums lists the user catalog's enum types.
func (c *catalogSet) enums() []*EnumDef {
	if ec, ok := c.user.(EnumCatalog); ok && c.user != nil {
		return ec.Enums()
	}
	return nil
}

// enumByOID returns the enum type oid (nil: not an enum of this catalog).
func (c *catalogSet) enumByOID(oid uint32) *EnumDef {
	if !IsEnumOID(oid) {
		return nil
	}
	for _, e := range c.enums() {
		if e.OID == oid {
			return e
		}
	}
	return nil
}

// enumByName resolves an enum type by name (schema "" or public).
func (c *catalogSet) enumByName(name string) *EnumDef {
	for _, e := range c.enums() {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// AddEnum registers an enum type in a MemCatalog.
func (c *MemCatalog) AddEnum(e *EnumDef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.enums = append(c.enums, e)
	RegisterEnum(e.OID, e.Name)
}

// Enums implements EnumCatalog.
func (c *MemCatalog) Enums() []*EnumDef {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]*EnumDef(nil), c.enums...)
}

// enumInput validates its argument's values as labels of an enum type
// (PostgreSQL's enum_in): unknown literals, parameters and explicit casts
// from text reach the type through it.
type enumInput struct {
	arg Expr
	def *EnumDef
	t   Type
}

func (e *enumInput) Type() Type     { return e.t }
func (e *enumInput) String() string { return "(" + e.arg.String() + ")::" + e.t.String() }

func (e *enumInput) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	v, err := e.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	out := NewVec(e.t, b.N)
	for _, i := range nonNull(b.N, sel, out, v) {
		s := v.S[i]
		if err := e.def.check(s); err != nil {
			return nil, err
		}
		out.S[i] = s
	}
	return out, nil
}

func quoteLiteralDouble(s string) string { return `"` + s + `"` }

// enumSortKey maps an enum value to its sort position (float8), so
// comparison operators and ORDER BY order by declaration, not by label.
type enumSortKey struct {
	arg Expr
	def *EnumDef
}

func (e *enumSortKey) Type() Type     { return TFloat8 }
func (e *enumSortKey) String() string { return e.arg.String() }

func (e *enumSortKey) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	v, err := e.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	out := NewVec(TFloat8, b.N)
	for _, i := range nonNull(b.N, sel, out, v) {
		s, ok := e.def.sortOf(v.S[i])
		if !ok {
			// a value written under a label since renamed or removed
			// in another version of the type: PostgreSQL cannot have
			// one; refuse rather than misorder
			return nil, errf(CodeInvalidTextRepr, "invalid internal value for enum: %s", quoteLiteralDouble(v.S[i]))
		}
		out.F[i] = float64(s)
	}
	return out, nil
}

// coerceEnum converts e to the enum type t (def: its catalog entry) under
// context cc: unknown literals and parameters always (validated), text
// types only explicitly (an I/O conversion, as in PostgreSQL), other types
// never.
func (b *binder) coerceEnum(e Expr, t Type, def *EnumDef, cc castContext, what string) (Expr, error) {
	from := e.Type()
	switch {
	case from.OID == OIDUnknown:
		orig, _ := e.(*constExpr)
		if p, ok := e.(*paramExpr); ok {
			p.setType(Type{OID: OIDText, Mod: -1})
		} else {
			var err error
			if e, err = b.coerce(e, TText, castImplicit, ""); err != nil {
				return nil, err
			}
		}
		in := &enumInput{arg: e, def: def, t: Type{OID: t.OID, Mod: -1}}
		if c, ok := e.(*constExpr); ok {
			out, err := in.Eval(&evalCtx{loc: b.cat.loc}, &Batch{N: 1}, nil)
			if err != nil && orig != nil {
				return nil, b.at(err, orig.loc-1)
			}
			if err != nil {
				return nil, err
			}
			return &foldedCast{constExpr: newConst(out), orig: &castExpr{arg: c, t: in.t, explicit: cc == castExplicit}}, nil
		}
		return in, nil
	case from.isString() && cc == castExplicit:
		return &enumInput{arg: e, def: def, t: Type{OID: t.OID, Mod: -1}}, nil
	}
	if cc == castExplicit {
		return nil, errf(CodeCannotCoerce, "cannot cast type %s to %s", from, t)
	}
	if what != "" {
		return nil, errf(CodeDatatypeMismatch, "%s must be type %s, not type %s", what, t, from)
	}
	return nil, errf(CodeDatatypeMismatch, "column is of type %s but expression is of type %s", t, from)
}

// coerceToEnum converts e to an enum type or an array of one: labels are
// validated against the binder's catalog.
func (b *binder) coerceToEnum(e Expr, t Type, cc castContext, what string) (Expr, error) {
	if def := b.cat.enumByOID(t.OID); def != nil {
		return b.coerceEnum(e, t, def, cc, what)
	}
	def := b.cat.enumByOID(t.Elem().OID)
	r, err := b.coerceBuiltin(e, t, cc, what)
	if err != nil || def == nil || !t.IsArray() {
		return r, err
	}
	in := &enumArrayInput{arg: r, def: def}
	if c, ok := e.(*constExpr); ok {
		out, err := in.Eval(&evalCtx{loc: b.cat.loc}, &Batch{N: 1}, nil)
		if err != nil {
			return nil, b.at(err, c.loc-1)
		}
		return &foldedCast{constExpr: newConst(out), orig: &castExpr{arg: c, t: t, explicit: cc == castExplicit}}, nil
	}
	return in, nil
}

// enumArrayInput validates the elements of an array of an enum type.
type enumArrayInput struct {
	arg Expr
	def *EnumDef
}

func (e *enumArrayInput) Type() Type     { return e.arg.Type() }
func (e *enumArrayInput) String() string { return e.arg.String() }

func (e *enumArrayInput) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	v, err := e.arg.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	var check func(items *Vec) error
	check = func(items *Vec) error {
		for k := 0; k < items.N; k++ {
			if items.IsNull(k) {
				continue
			}
			if items.T.IsArray() {
				if err := check(items.A[k].Items); err != nil {
					return err
				}
				continue
			}
			if err := e.def.check(items.S[k]); err != nil {
				return err
			}
		}
		return nil
	}
	rows := sel
	if rows == nil {
		rows = allRows(b.N)
	}
	for _, i := range rows {
		if v.IsNull(int(i)) || v.A[i] == nil {
			continue
		}
		if err := check(v.A[i].Items); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// enumSortKeyOf wraps an expression of an enum type in its sort key (nil
// when e is not of an enum type of the binder's catalog).
func (b *binder) enumSortKeyOf(e Expr) Expr {
	if def := b.cat.enumByOID(e.Type().OID); def != nil {
		return &enumSortKey{arg: e, def: def}
	}
	return nil
}

// enumLabelOID is a pg_enum row's OID, from a range of its own
// (0x6000_0000 and up): a block of 256 per type, numbered in sort order,
// because clients read the labels ordered by pg_enum.oid (SQLAlchemy's
// enum reflection), which PostgreSQL assigns in sort order at CREATE
// TYPE.
func enumLabelOID(typ uint32, rank int) uint32 {
	return 0x6000_0000 + ((typ-EnumOIDBase)/2%(1<<20))<<8 + uint32(rank%256)
}

// enumTypeRows are the pg_type rows of the enum types and their array
// types (PostgreSQL's values for an enum: 4 bytes by value, category E,
// enum_in/enum_out; the array as any array type).
func (c *catalogSet) enumTypeRows() [][]any {
	var rows [][]any
	in, out, recv, send := procOIDOr0("enum_in"), procOIDOr0("enum_out"), procOIDOr0("enum_recv"), procOIDOr0("enum_send")
	ain, aout, arecv, asend := procOIDOr0("array_in"), procOIDOr0("array_out"), procOIDOr0("array_recv"), procOIDOr0("array_send")
	sub, aan := procOIDOr0("array_subscript_handler"), procOIDOr0("array_typanalyze")
	for _, e := range c.enums() {
		ns, owner := c.nsOID(e.schema()), e.Owner
		if owner == 0 {
			owner = oidPostgresRole
		}
		rows = append(rows, []any{e.OID, e.Name, ns, owner, int16(4), true, "e", "E", false, true, ",", 0, 0, 0, e.ArrayOID(),
			in, out, recv, send, 0, 0, 0, "i", "p", false, 0, -1, 0, 0, nil, nil, c.typeACL(e.ACL)})
		rows = append(rows, []any{e.ArrayOID(), "_" + e.Name, ns, owner, int16(-1), false, "b", "A", false, true, ",", 0, sub, e.OID, 0,
			ain, aout, arecv, asend, 0, 0, aan, "i", "x", false, 0, -1, 0, 0, nil, nil, nil})
	}
	return rows
}

// enumRows are pg_enum's rows (oid, enumtypid, enumsortorder, enumlabel).
func (c *catalogSet) enumRows() [][]any {
	var rows [][]any
	for _, e := range c.enums() {
		for rank, l := range e.ordered() {
			s, _ := e.sortOf(l)
			rows = append(rows, []any{enumLabelOID(e.OID, rank), e.OID, float64(s), l})
		}
	}
	return rows
}

// IsBuiltinTypeName reports a built-in type's name (a user type may not
// take it).
func IsBuiltinTypeName(name string) bool {
	_, ok := typeNames[name]
	return ok
}

// qualifyEnumCasts spells the enum types an expression casts to with
// their schema when public is not on the search path (pg_dump runs with
// an empty one, and PostgreSQL's deparser then qualifies: 'ok'::public.mood),
// so a dump restores into PostgreSQL; with public on the path a cast
// written qualified (a restored dump's default) prints unqualified, as
// PostgreSQL's deparser prints it.
func (c *catalogSet) qualifyEnumCasts(expr string) string {
	if !strings.Contains(expr, "::") {
		return expr
	}
	for _, e := range c.enums() {
		expr = strings.ReplaceAll(expr, "::public."+quoteIdent(e.Name), "::"+quoteIdent(e.Name))
	}
	if c.searchPathSchemas()["public"] {
		return expr
	}
	for _, e := range c.enums() {
		name := "::" + quoteIdent(e.Name)
		var b strings.Builder
		rest := expr
		for {
			k := strings.Index(rest, name)
			if k < 0 {
				b.WriteString(rest)
				break
			}
			end := k + len(name)
			b.WriteString(rest[:k])
			if end == len(rest) || strings.ContainsRune(" )[,", rune(rest[end])) {
				b.WriteString("::public." + quoteIdent(e.Name))
			} else {
				b.WriteString(name)
			}
			rest = rest[end:]
		}
		expr = b.String()
	}
	return expr
}

// enumTypeName is format_type's spelling of an enum type (or array of
// one): schema-qualified when public is not on the search path.
func enumTypeName(ec *evalCtx, oid uint32, mod int32) string {
	s := FormatType(oid, mod)
	if ec == nil || ec.run == nil {
		return s
	}
	if (&catalogSet{setting: ec.run.settings, user_: ec.run.user}).searchPathSchemas()["public"] {
		return s
	}
	return "public." + s
}

// enum_first, enum_last and enum_range: the labels of the argument's enum
// type in sort order (the argument's value only bounds enum_range(a, b);
// NULL bounds are open), from the binder's catalog.
func init() {
	enumArg := func(b *binder, name string, args []Expr, n int) (*EnumDef, error) {
		if len(args) != n {
			return nil, noFunction(name, args)
		}
		var def *EnumDef
		for _, a := range args {
			if a.Type().OID == OIDUnknown {
				continue
			}
			d := b.cat.enumByOID(a.Type().OID)
			if d == nil || def != nil && d != def {
				return nil, noFunction(name, args)
			}
			def = d
		}
		if def == nil {
			return nil, noFunction(name, args)
		}
		for i, a := range args {
			if a.Type().OID == OIDUnknown {
				c, err := b.coerce(a, Type{OID: def.OID, Mod: -1}, castImplicit, "")
				if err != nil {
					return nil, err
				}
				args[i] = c
			}
		}
		return def, nil
	}
	firstLast := func(name string, last bool) {
		defCustom(name, func(b *binder, args []Expr) (Expr, error) {
			def, err := enumArg(b, name, args, 1)
			if err != nil {
				return nil, err
			}
			t := Type{OID: def.OID, Mod: -1}
			return &opExpr{name: name, t: t, args: args, k: func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
				labels := def.ordered()
				for _, i := range sel {
					if len(labels) == 0 {
						out.SetNull(int(i))
						continue
					}
					out.S[i] = labels[0]
					if last {
						out.S[i] = labels[len(labels)-1]
					}
				}
				return nil
			}}, nil
		})
	}
	firstLast("enum_first", false)
	firstLast("enum_last", true)
	defCustom("enum_range", func(b *binder, args []Expr) (Expr, error) {
		def, err := enumArg(b, "enum_range", args, len(args))
		if err != nil || len(args) < 1 || len(args) > 2 {
			return nil, noFunction("enum_range", args)
		}
		elem := Type{OID: def.OID, Mod: -1}
		t := Type{OID: def.ArrayOID(), Mod: -1}
		return &opExpr{name: "enum_range", t: t, args: args, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			labels := def.ordered()
			for _, i := range sel {
				lo, hi := 0, len(labels)-1
				if len(a) == 2 {
					for k, l := range labels {
						if !a[0].IsNull(int(i)) && l == a[0].S[i] {
							lo = k
						}
						if !a[1].IsNull(int(i)) && l == a[1].S[i] {
							hi = k
						}
					}
				}
				var pick []string
				if lo <= hi {
					pick = labels[lo : hi+1]
				}
				items := NewVec(elem, len(pick))
				copy(items.S, pick)
				out.A[i] = &Array{Elem: elem, Items: items}
			}
			return nil
		}}, nil
	})
}

// checkEnumParam validates a parameter declared as enum type e (or an
// array of it) as enum_in would read its labels.
func checkEnumParam(e *EnumDef, v *Vec) error {
	if v.IsNull(0) {
		return nil
	}
	if v.T.IsArray() {
		a := v.A[0]
		if a == nil {
			return nil
		}
		for k := 0; k < a.Items.N; k++ {
			if !a.Items.IsNull(k) {
				if err := e.check(a.Items.S[k]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return e.check(v.S[0])
}
