package exec

import (
	"context"
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"github.com/pggraph/pggraph/pgerr"
)

// Relation and database sizes (pg_relation_size, pg_table_size,
// pg_indexes_size, pg_total_relation_size, pg_database_size,
// pg_tablespace_size): the bytes a relation's storage occupies at the
// statement's pinned version, which is not PostgreSQL's count of 8 kB
// heap pages:
//   - a table's main fork (pg_relation_size) is the data files its
//     version's fragments reference; pg_table_size adds its deletion files
//     and the version's manifest (a TableSource reports them through
//     StorageSizer; one that does not, such as an in-memory table,
//     occupies 0 bytes);
//   - a sequence occupies what its SequenceDef.Storage reports (the
//     durable blocks its values are claimed in), 0 without one;
//   - indexes occupy 0 bytes: pggraph's indexes are built in memory per
//     table version on first use and never stored, so pg_indexes_size is
//     0 and pg_total_relation_size equals pg_table_size;
//   - the generated catalogs occupy 0 bytes (they are built per
//     statement);
//   - a database (a branch) is the sum of its tables and sequences at
//     the pinned version; the graph root's own manifest and other
//     branches' files are not counted. pg_tablespace_size('pg_default')
//     is the current database's size, pg_global's 0.
//
// An OID that names no relation answers NULL, as in PostgreSQL.

// StorageSizer is implemented by table sources that know the bytes their
// version occupies.
type StorageSizer interface {
	StorageSize(ctx context.Context) (StorageSize, error)
}

// StorageSize is one table version's storage.
type StorageSize struct {
	Data  int64 // the row data files (PostgreSQL's main fork)
	Other int64 // the rest: deletion files and the version's manifest
}

// relationSize is what the size functions know of one relation OID.
type relationSize struct {
	main, table int64 // pg_relation_size's main fork, pg_table_size
}

// relationSize looks oid up among the user tables, sequences, indexes
// and catalogs; ok is false for an OID that names no relation.
func (c *catalogSet) relationSize(ctx context.Context, oid uint32) (relationSize, bool, error) {
	for _, t := range c.userTables() {
		if t.OID != oid {
			continue
		}
		sz, ok := t.Source.(StorageSizer)
		if !ok {
			return relationSize{}, true, nil
		}
		s, err := sz.StorageSize(ctx)
		if err != nil {
			return relationSize{}, true, errf(CodeIOError, "could not read the size of relation \"%s\": %v", t.Name, err)
		}
		return relationSize{main: s.Data, table: s.Data + s.Other}, true, nil
	}
	for _, s := range c.sequences() {
		if s.OID != oid {
			continue
		}
		if s.Storage == nil {
			return relationSize{}, true, nil
		}
		n, err := s.Storage(ctx)
		if err != nil {
			return relationSize{}, true, errf(CodeIOError, "could not read the size of sequence \"%s\": %v", s.Name, err)
		}
		return relationSize{main: n, table: n}, true, nil
	}
	for _, k := range c.constraints() {
		if k.hasIndex() && k.index == oid {
			return relationSize{}, true, nil
		}
	}
	for _, r := range providedRelations() {
		if r.rel.oid == oid {
			return relationSize{}, true, nil
		}
	}
	return relationSize{}, false, nil
}

// databaseSize is the current database's size: its tables and sequences.
func (c *catalogSet) databaseSize(ctx context.Context) (int64, error) {
	var n int64
	for _, t := range c.userTables() {
		s, _, err := c.relationSize(ctx, t.OID)
		if err != nil {
			return 0, err
		}
		n += s.table
	}
	for _, sq := range c.sequences() {
		s, _, err := c.relationSize(ctx, sq.OID)
		if err != nil {
			return 0, err
		}
		n += s.table
	}
	return n, nil
}

// CodeIOError is 58030.
const CodeIOError = pgerr.IOError

// CodeUndefinedDatabase is 3D000.
const CodeUndefinedDatabase = pgerr.InvalidCatalogName

// sizeFn binds one of the relation size functions: f picks the size
// from what the relation occupies, fork is the fork argument (or "").
func sizeFn(name string, withFork bool, f func(s relationSize, fork string) (int64, error)) func(b *binder, args []Expr) (Expr, error) {
	return func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 && !(withFork && len(args) == 2) {
			return nil, noFunction(name, args)
		}
		rel, err := b.coerce(args[0], TRegclass, castImplicit, "")
		if err != nil {
			return nil, noFunction(name, args)
		}
		all := []Expr{rel}
		if len(args) == 2 {
			fork, err := b.coerce(args[1], TText, castImplicit, "")
			if err != nil {
				return nil, noFunction(name, args)
			}
			all = append(all, fork)
		}
		cs := b.cat
		return &opExpr{name: name, t: TInt8, args: all, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				s, ok, err := cs.relationSize(ec.run.ctx, uint32(a[0].I[i]))
				if err != nil {
					return err
				}
				if !ok {
					out.SetNull(int(i))
					continue
				}
				fork := "main"
				if len(a) == 2 {
					fork = a[1].S[i]
				}
				if out.I[i], err = f(s, fork); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	}
}

func init() {
	defCustom("pg_relation_size", sizeFn("pg_relation_size", true, func(s relationSize, fork string) (int64, error) {
		switch fork {
		case "main":
			return s.main, nil
		case "fsm", "vm", "init":
			return 0, nil // no free-space or visibility maps, no init forks
		}
		return 0, &Error{Code: CodeInvalidParameterValue, Message: "invalid fork name",
			Hint: `Valid fork names are "main", "fsm", "vm", and "init".`}
	}))
	defCustom("pg_table_size", sizeFn("pg_table_size", false, func(s relationSize, _ string) (int64, error) { return s.table, nil }))
	defCustom("pg_total_relation_size", sizeFn("pg_total_relation_size", false, func(s relationSize, _ string) (int64, error) { return s.table, nil }))
	defCustom("pg_indexes_size", sizeFn("pg_indexes_size", false, func(relationSize, string) (int64, error) { return 0, nil }))
	defCustom("pg_database_size", func(b *binder, args []Expr) (Expr, error) {
		arg, byName, err := nameOrOIDArg(b, "pg_database_size", args)
		if err != nil {
			return nil, err
		}
		cs := b.cat
		return &opExpr{name: "pg_database_size", t: TInt8, args: []Expr{arg}, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if byName && a[0].S[i] != cs.database() {
					return errf(CodeUndefinedDatabase, "database \"%s\" does not exist", a[0].S[i])
				}
				if !byName && a[0].I[i] != oidDatabase {
					out.SetNull(int(i))
					continue
				}
				n, err := cs.databaseSize(ec.run.ctx)
				if err != nil {
					return err
				}
				out.I[i] = n
			}
			return nil
		}}, nil
	})
	defCustom("pg_tablespace_size", func(b *binder, args []Expr) (Expr, error) {
		arg, byName, err := nameOrOIDArg(b, "pg_tablespace_size", args)
		if err != nil {
			return nil, err
		}
		cs := b.cat
		return &opExpr{name: "pg_tablespace_size", t: TInt8, args: []Expr{arg}, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				space := int64(0)
				switch {
				case byName && a[0].S[i] == "pg_default", !byName && a[0].I[i] == oidDefaultTablespace:
					space = oidDefaultTablespace
				case byName && a[0].S[i] == "pg_global", !byName && a[0].I[i] == oidGlobalTablespace:
					space = oidGlobalTablespace
				case byName:
					return errf(CodeUndefinedObject, "tablespace \"%s\" does not exist", a[0].S[i])
				default:
					out.SetNull(int(i))
					continue
				}
				out.I[i] = 0
				if space == oidDefaultTablespace {
					n, err := cs.databaseSize(ec.run.ctx)
					if err != nil {
						return err
					}
					out.I[i] = n
				}
			}
			return nil
		}}, nil
	})
}

// sizePrettyNumeric is pg_size_pretty(numeric) (what sum() of sizes
// yields): below 10 kB the value itself, else sizePretty's rounding on
// its integer part, for any magnitude.
func sizePrettyNumeric(d *apd.Decimal) string {
	abs := new(apd.Decimal).Abs(d)
	if abs.Cmp(apd.New(10*1024, 0)) < 0 {
		return formatNumeric(d) + " bytes"
	}
	var whole apd.Decimal
	_, _ = numCtx.RoundToIntegralValue(&whole, abs) // RoundHalfUp: truncate first
	if whole.Cmp(abs) > 0 {
		_, _ = numCtx.Sub(&whole, &whole, apd.New(1, 0))
	}
	n, ok := new(big.Int).SetString(whole.Text('f'), 10)
	if !ok {
		return formatNumeric(d) + " bytes"
	}
	units := []string{"kB", "MB", "GB", "TB", "PB"}
	v := new(big.Int).Rsh(n, 9)
	limit := big.NewInt(10 * 1024)
	one := big.NewInt(1)
	half := func(x *big.Int) *big.Int { return new(big.Int).Rsh(new(big.Int).Add(x, one), 1) }
	u := 0
	for u < len(units)-1 && half(v).Cmp(limit) >= 0 {
		v.Rsh(v, 10)
		u++
	}
	v = half(v)
	if d.Negative {
		v.Neg(v)
	}
	return v.String() + " " + units[u]
}

func init() {
	def("pg_size_pretty", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.S[i] = sizePrettyNumeric(&a[0].D[i])
		}
		return nil
	}, TNumeric))
}

// nameOrOIDArg binds the one argument of a function taking an object's
// name or its OID (pg_database_size, pg_tablespace_size): an integer or
// oid argument is the OID, anything else is coerced to name.
func nameOrOIDArg(b *binder, fn string, args []Expr) (arg Expr, byName bool, err error) {
	if len(args) != 1 {
		return nil, false, noFunction(fn, args)
	}
	arg = args[0]
	byName = !arg.Type().isInt() && arg.Type().OID != OIDOid
	if byName {
		arg, err = b.coerce(arg, TName, castImplicit, "")
	} else {
		arg, err = b.coerce(arg, TOid, castImplicit, "")
	}
	if err != nil {
		return nil, false, noFunction(fn, args)
	}
	return arg, byName, nil
}
