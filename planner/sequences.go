package planner

import (
	"context"
	"errors"
	"fmt"
	"github.com/pggraph/pggraph/access"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/planner/seq"
	"github.com/pggraph/pggraph/wire"
)

// Column defaults of the form nextval('s'::regclass) (serial, identity)
// are not evaluated by exec: the rows that take such a default get a
// NULL placeholder in the query, and the planner fills them afterwards,
// row by row, from planner/seq's durable allocator (values are never
// handed out twice, by any process; gaps are allowed, and a rolled-back
// transaction does not return its values, as in PostgreSQL).

var seqDefaults sync.Map // default SQL text -> sequence name ("" = not a nextval default)

// seqDefault returns the sequence a column default draws from, "" when
// the default is something else.
func seqDefault(def string) string {
	if def == "" {
		return ""
	}
	if v, ok := seqDefaults.Load(def); ok {
		return v.(string)
	}
	name := ""
	if n, err := parseExpr(def); err == nil {
		if fc := n.GetFuncCall(); fc != nil && len(fc.Args) == 1 {
			if _, fn := funcName(fc); fn == "nextval" {
				arg := fc.Args[0]
				if tc := arg.GetTypeCast(); tc != nil {
					arg = tc.Arg
				}
				if k := arg.GetAConst(); k != nil && k.GetSval() != nil {
					if nm, err := ddl.ParseRegclass(k.GetSval().Sval); err == nil {
						name = nm
					}
				}
			}
		}
	}
	seqDefaults.Store(def, name)
	return name
}

// defaultFor is the SQL a row gets for a defaulted column in the query:
// the default itself, or a NULL placeholder for a sequence default.
func defaultFor(cd exec.ColumnDef) string {
	if seqDefault(cd.Default) != "" {
		return "NULL"
	}
	return defaultSQL(cd)
}

// sequence resolves a sequence by name in the transaction's catalog
// (standalone sequences and the ones serial/identity columns own).
func (w *writer) sequence(name string) (seq.Spec, error) {
	for _, e := range w.v.pend.ddlOverlay(w.v.root).Tables() {
		m, err := ddl.DecodeMeta(e.Name, e.Def)
		if err != nil {
			continue
		}
		if m.Sequence != nil && m.Sequence.Name == name {
			return m.Sequence.Spec(), nil
		}
		for _, c := range m.Columns {
			if c.Sequence != nil && c.Sequence.Name == name {
				return c.Sequence.Spec(), nil
			}
		}
	}
	return seq.Spec{}, wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", name)
}

// fillSequences sets the defaulted sequence columns of rows (table
// order): mask[c][r] marks the cells to fill (nil: every row of c).
func (w *writer) fillSequences(td *exec.TableDef, rows []*exec.Vec, fill map[int][]bool) error {
	if len(fill) == 0 || w.describe || len(rows) == 0 {
		return nil
	}
	specs := map[int]seq.Spec{}
	for c := range fill {
		name := seqDefault(td.Columns[c].Default)
		sp, err := w.sequence(name)
		if err != nil {
			return err
		}
		if err := w.checkDefaultSequence(name); err != nil {
			return err
		}
		specs[c] = sp
	}
	for r := 0; r < rows[0].N; r++ {
		for c := range td.Columns {
			mask, ok := fill[c]
			if !ok || (mask != nil && !mask[r]) {
				continue
			}
			v, err := w.s.seqSess.Nextval(w.ctx, w.s.seqs, specs[c])
			if err != nil {
				return seqError(err)
			}
			if rows[c].T.Kind() != exec.KInt {
				return wire.Errorf(wire.CodeFeatureNotSupported, "a sequence default on column \"%s\" of type %s is not supported", td.Columns[c].Name, rows[c].T)
			}
			rows[c].I[r] = v
			if rows[c].Nulls != nil {
				rows[c].Nulls[r] = false
			}
		}
	}
	return nil
}

// setSequence applies ALTER SEQUENCE … RESTART / TRUNCATE … RESTART
// IDENTITY at once (sequences are not transactional).
func (w *writer) setSequence(c *ddl.SetSequence) error {
	if w.describe {
		return nil
	}
	_, err := w.s.seqSess.Setval(w.ctx, w.s.seqs, c.Sequence.Spec(), c.Value, c.IsCalled)
	return seqError(err)
}

func seqError(err error) error {
	if err == nil {
		return nil
	}
	if we, ok := err.(*wire.Error); ok {
		return we
	}
	return storageFailed(err, "sequence allocation failed")
}

// sessionSequences answers exec's sequence functions (nextval, currval,
// setval, lastval anywhere an expression is allowed) for one statement
// of s: names resolve against the statement's catalog (the transaction's
// snapshot plus its DDL, else the branch head), values come from the
// durable allocator and the session's currval/lastval state. exec calls
// it from the query's coroutine while the connection goroutine waits;
// the mutex guards against plans that evaluate on several goroutines.
type sessionSequences struct {
	s     *session
	mu    sync.Mutex
	specs map[string]seq.Spec // resolved names (a statement sees one catalog)
	privs map[string]seqPriv  // their owners and ACLs (sequence_privileges.go)
}

// newStatement forgets the names resolved for the previous statement
// (a statement sees one catalog; the session keeps one sessionSequences).
func (q *sessionSequences) newStatement() {
	q.mu.Lock()
	clear(q.specs)
	clear(q.privs)
	q.mu.Unlock()
}

func (q *sessionSequences) spec(ctx context.Context, name string) (seq.Spec, error) {
	if sp, ok := q.specs[name]; ok {
		return sp, nil
	}
	rel, err := ddl.ParseRegclass(name)
	if err != nil {
		return seq.Spec{}, execErr(err)
	}
	root, pend, err := q.s.writeBase(ctx, nil)
	if err != nil {
		return seq.Spec{}, execErr(err)
	}
	v := newView(root, pend)
	w := &writer{s: q.s, v: v, ctx: ctx}
	var sp seq.Spec
	err = wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", rel)
	temp := ""
	if q.s.temp != nil {
		temp = q.s.temp.ns
	}
	for _, k := range ddl.SequenceCandidates(rel, q.s.lookupPath(), temp) {
		// the first relation of the name the path finds is the one
		// nextval means (a temporary sequence shadows a public one)
		if sp, err = w.sequence(k); err == nil {
			rel = k
			break
		}
		if _, ok := v.base.tables[k]; ok {
			return seq.Spec{}, &exec.Error{Code: pgerr.WrongObjectType, Message: fmt.Sprintf("\"%s\" is not a sequence", rel)}
		}
	}
	if err != nil {
		if _, ok := v.base.tables[rel]; ok {
			return seq.Spec{}, &exec.Error{Code: pgerr.WrongObjectType, Message: fmt.Sprintf("\"%s\" is not a sequence", rel)}
		}
		return seq.Spec{}, execErr(err)
	}
	if q.specs == nil {
		q.specs = map[string]seq.Spec{}
		q.privs = map[string]seqPriv{}
	}
	q.specs[name] = sp
	q.privs[name], _ = w.sequencePriv(rel)
	return sp, nil
}

func (q *sessionSequences) writable(fn string) error {
	if q.s.readOnly() {
		return &exec.Error{Code: pgerr.ReadOnlySQLTransaction, Message: fmt.Sprintf("cannot execute %s() in a read-only transaction", fn)}
	}
	return nil
}

// Nextval implements exec.SequenceFunctions.
func (q *sessionSequences) Nextval(ctx context.Context, name string) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	sp, err := q.spec(ctx, name)
	if err != nil {
		return 0, err
	}
	if err := q.checkSequence(ctx, name, access.PrivUsage|access.PrivUpdate); err != nil {
		return 0, err
	}
	if err := q.writable("nextval"); err != nil {
		return 0, err
	}
	v, err := q.s.seqSess.Nextval(ctx, q.s.seqs, sp)
	return v, execErr(seqError(err))
}

// Currval implements exec.SequenceFunctions.
func (q *sessionSequences) Currval(ctx context.Context, name string) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	sp, err := q.spec(ctx, name)
	if err != nil {
		return 0, err
	}
	if err := q.checkSequence(ctx, name, access.PrivUsage|access.PrivSelect); err != nil {
		return 0, err
	}
	v, err := q.s.seqSess.Currval(sp)
	return v, execErr(seqError(err))
}

// Setval implements exec.SequenceFunctions.
func (q *sessionSequences) Setval(ctx context.Context, name string, value int64, isCalled bool) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	sp, err := q.spec(ctx, name)
	if err != nil {
		return 0, err
	}
	if err := q.checkSequence(ctx, name, access.PrivUpdate); err != nil {
		return 0, err
	}
	if err := q.writable("setval"); err != nil {
		return 0, err
	}
	v, err := q.s.seqSess.Setval(ctx, q.s.seqs, sp, value, isCalled)
	return v, execErr(seqError(err))
}

// Lastval implements exec.SequenceFunctions.
func (q *sessionSequences) Lastval(ctx context.Context) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.checkLastval(ctx); err != nil {
		return 0, err
	}
	v, err := q.s.seqSess.Lastval()
	return v, execErr(seqError(err))
}

// execErr keeps a session error's code, message, detail and hint and
// drops the rest, its position above all: exec reports it at the
// sequence function's call in the statement.
func execErr(err error) error {
	var we *wire.Error
	if err != nil && errors.As(err, &we) {
		return &exec.Error{Code: we.Code, Message: we.Message, Detail: we.Detail, Hint: we.Hint}
	}
	return err
}

// writeBase is the snapshot catalog and pending state a session
// statement resolves names against.
func (s *session) writeBase(ctx context.Context, _ exec.Catalog) (*catalog, *pendingState, error) {
	if s.tx != nil && !s.tx.implicit {
		b, err := s.txBase(ctx)
		return b, s.tx.pend, err
	}
	_, b, err := s.head(ctx)
	return b, newPendingState(), err
}

// seqDefaultItems makes the SET col = DEFAULT items of sequence columns
// call the default itself (exec evaluates nextval per row), where the
// caller does not fill placeholders afterwards (ON CONFLICT DO UPDATE,
// MERGE … UPDATE).
func seqDefaultItems(td *exec.TableDef, items []*sqlparse.Node, seqCols []int) error {
	for _, c := range seqCols {
		n, err := castNode(td.Columns[c].Default, td.Columns[c].Type)
		if err != nil {
			return err
		}
		items[c] = n
	}
	return nil
}

// callsSequenceNode reports an expression that may call a sequence
// function (a cheap over-approximation: one of its names or strings
// mentions one).
func callsSequenceNode(n *sqlparse.Node) bool {
	found := false
	var walk func(protoreflect.Message)
	walk = func(msg protoreflect.Message) {
		msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case found:
				return false
			case fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap():
				l := strings.ToLower(v.String())
				found = strings.Contains(l, "nextval") || strings.Contains(l, "setval")
			case fd.Kind() != protoreflect.MessageKind || fd.IsMap():
			case fd.IsList():
				for i := 0; i < v.List().Len() && !found; i++ {
					walk(v.List().Get(i).Message())
				}
			default:
				walk(v.Message())
			}
			return !found
		})
	}
	walk(n.ProtoReflect())
	return found
}

// Sequences implements exec.SequenceCatalog for a snapshot: standalone
// sequences (CREATE SEQUENCE) and the ones serial and identity columns
// own, so pg_class, pg_sequence(s), information_schema.sequences,
// 's'::regclass, psql's \ds and JDBC's getTables see them.
func (c *catalog) Sequences(schema string) []*exec.SequenceDef {
	if schema != "public" || c.sn == nil {
		return nil
	}
	// ddlEntries: the session's temporary sequences too
	return sequenceDefs(c.ddlEntries().Tables(), c.store)
}

// Sequences implements exec.SequenceCatalog with the transaction's DDL.
func (v *view) Sequences(schema string) []*exec.SequenceDef {
	if schema != "public" || v.root == nil || v.root.sn == nil {
		return nil
	}
	if v.pend == nil {
		return v.root.Sequences(schema)
	}
	return sequenceDefs(v.pend.ddlOverlay(v.root).Tables(), v.root.store)
}

// Sequence OIDs: a standalone sequence is a table entry (its RelOID,
// as tables); an owned one gets a range of its own, apart from
// exec's constraint (1e6 + 64·table) and default (2³¹ + …) OIDs; one
// created in the open transaction (no id yet) a number from a third.
const (
	ownedSeqOIDBase   = 0x4000_0000
	pendingSeqOIDBase = 0x3F00_0000
)

// sequenceDefs describes the sequences of entries; store (nil: none) is
// where their values are claimed, which their size reports.
func sequenceDefs(entries []graph.TableEntry, store objstore.Store) []*exec.SequenceDef {
	var out []*exec.SequenceDef
	schemas := ddl.SchemaDefs(entries)
	hasSchema := func(n string) bool {
		return slices.ContainsFunc(schemas, func(d ddl.SchemaDef) bool { return d.Name == n })
	}
	def := func(oid uint32, s *ddl.Sequence) *exec.SequenceDef {
		schema, _ := ddl.SplitQualified(s.Name, hasSchema)
		d := &exec.SequenceDef{OID: oid, Schema: schema, Name: s.Name, Type: s.Type.Exec(), Start: s.Start,
			Increment: s.Increment, Min: s.Min, Max: s.Max, Cache: s.Cache, Cycle: s.Cycle}
		if store != nil && s.Key != "" {
			key := s.Key
			d.Storage = func(ctx context.Context) (int64, error) { return seq.StoredBytes(ctx, store, key) }
			spec := s.Spec()
			d.Position = func(ctx context.Context) (int64, bool, error) {
				// a fresh allocator reads the durable blocks only
				p, err := seq.Open(store).Peek(ctx, spec)
				if err != nil {
					return 0, false, err
				}
				if p.End { // exhausted: the bound was handed out
					if spec.Increment > 0 {
						return spec.Max, true, nil
					}
					return spec.Min, true, nil
				}
				// "next is p.Next" is setval(p.Next, false)
				return p.Next, false, nil
			}
		}
		return d
	}
	for i, e := range entries {
		m, err := ddl.DecodeMeta(e.Name, e.Def)
		if err != nil {
			continue
		}
		tableOID := e.RelOID()
		if e.ID == 0 {
			tableOID = uint32(pendingSeqOIDBase + i*64)
		}
		if m.Sequence != nil && m.Relkind == ddl.RelSequence {
			d := def(tableOID, m.Sequence)
			d.Owner, d.ACL, d.Checked = m.Owner, m.ACL, true
			out = append(out, d)
		}
		for c, col := range m.Columns {
			if col.Sequence != nil {
				oid := uint32(ownedSeqOIDBase) + tableOID*64 + uint32(c%64)
				if e.ID == 0 {
					oid = tableOID + 1 + uint32(c%63)
				}
				d := def(oid, col.Sequence)
				d.Owner, d.ACL, d.Checked = m.Owner, col.Sequence.ACL, true
				d.Identity = col.Identity != ""
				out = append(out, d)
			}
		}
	}
	return out
}
