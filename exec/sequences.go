package exec

import (
	"context"
	"errors"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/pgerr"
)

// SequenceCatalog is an optional extension of Catalog for catalogs that
// know sequences (serial/identity and CREATE SEQUENCE). When the Catalog
// implements it, sequences appear in pg_class (relkind 'S'), pg_sequence,
// pg_sequences and information_schema.sequences, resolve as ::regclass,
// and psql's \ds lists them.
type SequenceCatalog interface {
	// Sequences lists the sequences of a schema.
	Sequences(schema string) []*SequenceDef
}

// SequenceDef describes one sequence.
type SequenceDef struct {
	OID       uint32 // must not collide with table OIDs
	Schema    string // "" = public
	Name      string
	Type      Type // TInt2, TInt4 or TInt8 (default TInt8)
	Start     int64
	Increment int64
	Min, Max  int64
	Cache     int64
	Cycle     bool
	// Owner is the owning role (0: the role with OID 10); an owned
	// sequence has its table's owner, as in PostgreSQL.
	Owner uint32
	// ACL is relacl (nil: PostgreSQL's default for a sequence, the
	// owner holds USAGE, SELECT and UPDATE). Checked says reading the
	// sequence as a relation needs SELECT (reported as a RelationUse);
	// a sequence without its own grants (a serial column's) is not.
	ACL     *access.TableACL
	Checked bool
	// Identity says an identity column's sequence, which
	// information_schema.sequences leaves out (PostgreSQL lists only
	// sequences without an internal dependency).
	Identity bool
	// LastValue is the last value handed out (nil: never called).
	LastValue *int64
	// Storage reports the bytes the sequence's stored state occupies
	// (pg_relation_size); nil: nothing stored.
	Storage func(ctx context.Context) (int64, error)
	// Position reports where the sequence stands durably, as a sequence
	// relation's last_value and is_called (SELECT … FROM seq); nil: from
	// LastValue.
	Position func(ctx context.Context) (last int64, called bool, err error)
}

// relName is the sequence's name as SQL shows it (without the schema
// prefix of a created schema's storage name).
func (s *SequenceDef) relName() string {
	return (&TableDef{Schema: s.schema(), Name: s.Name}).RelName()
}

func (s *SequenceDef) schema() string {
	if s.Schema == "" {
		return "public"
	}
	return s.Schema
}

func (s *SequenceDef) typ() Type {
	if s.Type.OID == 0 {
		return TInt8
	}
	return s.Type
}

// sequences lists every sequence of the user catalog.
func (c *catalogSet) sequences() []*SequenceDef {
	sc, ok := c.user.(SequenceCatalog)
	if !ok || c.user == nil {
		return nil
	}
	var out []*SequenceDef
	for _, s := range c.user.Schemas() {
		out = append(out, sc.Sequences(s)...)
	}
	return out
}

// AddSequence registers a sequence in a MemCatalog (OID assigned when 0).
func (c *MemCatalog) AddSequence(s *SequenceDef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.Schema == "" {
		s.Schema = "public"
	}
	if s.OID == 0 {
		s.OID = c.nextOID
		c.nextOID++
	}
	if c.seqs == nil {
		c.seqs = map[string][]*SequenceDef{}
	}
	c.seqs[s.Schema] = append(c.seqs[s.Schema], s)
	rememberRegName(OIDRegclass, s.OID, quoteIdent(s.Name))
}

// Sequences implements SequenceCatalog.
func (c *MemCatalog) Sequences(schema string) []*SequenceDef {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]*SequenceDef(nil), c.seqs[schema]...)
}

func init() {
	pgCatalogRels["pg_sequence"] = &sysRelation{2224, "seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, seqmin int8, seqcache int8, seqcycle bool", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, s := range c.sequences() {
			rows = append(rows, []any{s.OID, s.typ().OID, s.Start, s.Increment, s.Max, s.Min, s.Cache, s.Cycle})
		}
		return rows
	}}
	pgCatalogRels["pg_sequences"] = &sysRelation{12048, "schemaname name, sequencename name, sequenceowner name, data_type regtype, start_value int8, min_value int8, max_value int8, increment_by int8, cycle bool, cache_size int8, last_value int8", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, s := range c.sequences() {
			var last any
			if s.LastValue != nil {
				last = *s.LastValue
			}
			rows = append(rows, []any{s.schema(), s.relName(), c.userName(), s.typ().OID, s.Start, s.Min, s.Max, s.Increment, s.Cycle, s.Cache, last})
		}
		return rows
	}}
	infoSchemaRels["sequences"] = &sysRelation{13386, "sequence_catalog sql_identifier, sequence_schema sql_identifier, sequence_name sql_identifier, data_type character_data, numeric_precision cardinal_number, numeric_precision_radix cardinal_number, numeric_scale cardinal_number, start_value character_data, minimum_value character_data, maximum_value character_data, increment character_data, cycle_option yes_or_no", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, s := range c.sequences() {
			if s.Identity {
				continue
			}
			prec := map[uint32]int{OIDInt2: 16, OIDInt4: 32, OIDInt8: 64}[s.typ().OID]
			rows = append(rows, []any{c.database(), s.schema(), s.relName(), info(s.typ().OID).sqlName, prec, 2, 0,
				itoa(s.Start), itoa(s.Min), itoa(s.Max), itoa(s.Increment), boolYN(s.Cycle)})
		}
		return rows
	}}
}

// SequenceFunctions answers nextval, currval, setval and lastval for the
// session a query runs in. The session layer owns sequences (durable
// allocation, the per-session currval/lastval state, read-only
// transactions); exec evaluates the arguments and calls it once per row,
// in row order, wherever an expression is allowed. name is the sequence
// as regclass input spells it ('s', 'public."S"'), or its OID's name.
// Errors keep their SQLSTATE when they are *Error (or carry a Code).
type SequenceFunctions interface {
	Nextval(ctx context.Context, name string) (int64, error)
	Currval(ctx context.Context, name string) (int64, error)
	Setval(ctx context.Context, name string, value int64, isCalled bool) (int64, error)
	Lastval(ctx context.Context) (int64, error)
}

func sequenceFunctions(ec *evalCtx) (SequenceFunctions, error) {
	if f := ec.run.seqs; f != nil {
		return f, nil
	}
	return nil, unsupported("sequence functions are not supported by this session")
}

// seqNameArg binds a sequence argument: 's'::regclass is used by its
// text (the session resolves names against its own catalog, which may
// hold sequences created earlier in the transaction), text stays text,
// and an OID is looked up by the name exec remembers for it.
func (b *binder) seqNameArg(fn string, args []Expr, e Expr) (Expr, error) {
	if op, ok := e.(*opExpr); ok && op.name == "reg" && len(op.args) == 1 {
		return op.args[0], nil
	}
	t := e.Type()
	if t.OID == OIDRegclass || t.OID == OIDOid || t.isInt() {
		return &opExpr{name: "regclass_name", t: TText, args: []Expr{e}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				n, ok := regName(OIDRegclass, uint32(a[0].I[i]))
				if !ok {
					return errf(CodeUndefinedTable, "could not open relation with OID %d", a[0].I[i])
				}
				out.S[i] = n
			}
			return nil
		}}, nil
	}
	if t.OID != OIDUnknown && !t.isString() {
		return nil, noFunction(fn, args)
	}
	if c, ok := e.(*constExpr); ok && t.OID == OIDUnknown && !c.isNull() {
		// the literal is a regclass in PostgreSQL, resolved while the
		// statement is analyzed: a missing relation fails there, pointing
		// at the literal
		if _, err := b.cat.regLookup(OIDRegclass, c.val.S[0]); Code(err) == CodeUndefinedTable || Code(err) == pgerr.InsufficientPrivilege {
			return nil, b.at(err, c.loc-1)
		}
	}
	return b.coerce(e, TText, castImplicit, "")
}

// seqError keeps the SQLSTATE of a session error (an *Error, or any
// error with a SQLState method, such as wire's and pgconn's).
func seqError(err error) error {
	var ee *Error
	if err == nil || errors.As(err, &ee) {
		return err
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		return &Error{Code: st.SQLState(), Message: err.Error()}
	}
	return err
}

func init() {
	one := func(fn string, call func(SequenceFunctions, context.Context, string) (int64, error)) {
		defCustom(fn, func(b *binder, args []Expr) (Expr, error) {
			if len(args) != 1 {
				return nil, noFunction(fn, args)
			}
			name, err := b.seqNameArg(fn, args, args[0])
			if err != nil {
				return nil, err
			}
			return &opExpr{name: fn, t: TInt8, args: []Expr{name}, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
				f, err := sequenceFunctions(ec)
				if err != nil {
					return err
				}
				for _, i := range sel {
					v, err := call(f, ec.run.ctx, a[0].S[i])
					if err != nil {
						return seqError(err)
					}
					out.I[i] = v
				}
				return nil
			}}, nil
		})
	}
	one("nextval", SequenceFunctions.Nextval)
	one("currval", SequenceFunctions.Currval)
	defCustom("setval", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 && len(args) != 3 {
			return nil, noFunction("setval", args)
		}
		name, err := b.seqNameArg("setval", args, args[0])
		if err != nil {
			return nil, err
		}
		v, err := b.coerce(args[1], TInt8, castImplicit, "")
		if err != nil {
			return nil, noFunction("setval", args)
		}
		bound := []Expr{name, v}
		if len(args) == 3 {
			c, err := b.coerce(args[2], TBool, castImplicit, "")
			if err != nil {
				return nil, noFunction("setval", args)
			}
			bound = append(bound, c)
		}
		return &opExpr{name: "setval", t: TInt8, args: bound, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			f, err := sequenceFunctions(ec)
			if err != nil {
				return err
			}
			for _, i := range sel {
				called := len(a) < 3 || a[2].B[i]
				r, err := f.Setval(ec.run.ctx, a[0].S[i], a[1].I[i], called)
				if err != nil {
					return seqError(err)
				}
				out.I[i] = r
			}
			return nil
		}}, nil
	})
	defCustom("lastval", func(_ *binder, args []Expr) (Expr, error) {
		if len(args) != 0 {
			return nil, noFunction("lastval", args)
		}
		return &opExpr{name: "lastval", t: TInt8, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			f, err := sequenceFunctions(ec)
			if err != nil {
				return err
			}
			for _, i := range sel {
				v, err := f.Lastval(ec.run.ctx)
				if err != nil {
					return seqError(err)
				}
				out.I[i] = v
			}
			return nil
		}}, nil
	})
}
