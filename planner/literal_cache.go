package planner

import (
	"context"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// The literal cache: queries that differ only in their literals (a
// simple-protocol client's `SELECT ... WHERE id = 42`, then `= 43`)
// share one plan, bound once for the text with the literals as
// parameters (exec.NormalizeLiterals), so such a query is neither parsed
// nor bound again. It is the session's own cache, like the prepared
// statements it stands in for.
//
// A shape gets a plan at its second occurrence (one-off queries pay no
// extra binding), and keeps it only when the normalized statement's
// result columns (names, types, typmods) equal the literal statement's.
// A plan serves only the catalog and the settings it was bound under.
// When it fails before its first row the statement runs as written
// instead, so an error is the literal statement's own (its message and
// position).

// literalHits counts statements served by a shape's plan, literalBinds
// the bindings of normalized statements (tests).
var literalHits, literalBinds atomic.Int64

// literalShapes bounds the shapes a session remembers (cleared whole
// when full).
const literalShapes = 256

type literalShape struct {
	seen     int
	prep     *exec.Prepared // nil until the shape qualified
	key      catKey
	gen      uint64
	settings uint64
	tree     *sqlparse.Node // the normalized statement (its read set)
}

type literalUse struct {
	norm string // the normalized text
	key  string // norm and the literals' types: a shape's identity
	lits []exec.Literal
}

// shapeKey is a shape's identity: the text and the literals' types
// ('5' and 5 are different shapes).
func shapeKey(norm string, lits []exec.Literal) string {
	b := []byte(norm)
	for _, l := range lits {
		b = append(b, 0)
		b = strconv.AppendUint(b, uint64(l.OID), 10)
	}
	return string(b)
}

// literalPlan returns a plan for the query st served from the literal
// cache, or nil.
func (s *session) literalPlan(st *wire.Statement) *plan {
	if st.Kind != wire.KindQuery || s.info.Settings == nil {
		return nil
	}
	norm, lits, ok := exec.NormalizeLiterals(st.SQL)
	if !ok {
		return nil
	}
	use := &literalUse{norm: norm, key: shapeKey(norm, lits), lits: lits}
	sh := s.shapes[use.key]
	if sh == nil || sh.prep == nil || sh.settings != s.info.Settings.BindGeneration() {
		return &plan{sql: st.SQL, lit: use, litMiss: true}
	}
	return &plan{sql: st.SQL, kind: stmtQuery, readsFrom: sh.tree, lit: use, isCall: sh.tree.GetCallStmt() != nil}
}

// executeLiteral runs p through its shape's plan when the plan holds for
// the current catalog; ok=false means the statement must run as written.
func (s *session) executeLiteral(ctx context.Context, st *wire.Statement, p *plan) (wire.Result, bool) {
	sh := s.shapes[p.lit.key]
	if sh == nil || sh.prep == nil {
		return nil, false
	}
	key, cat, gen, err := s.readCatalog(ctx)
	if err != nil || key != sh.key || gen != sh.gen {
		return nil, false
	}
	if s.tx != nil && !s.tx.implicit {
		for _, t := range withViewReads(cat, p.readTables()) {
			s.tx.pend.markRead(t)
		}
	}
	params := make([]any, len(p.lit.lits))
	for i, l := range p.lit.lits {
		params[i] = l.Text
	}
	res, err := s.startResult(ctx, st, sh.prep, params)
	if err != nil {
		return nil, false
	}
	literalHits.Add(1)
	return res, true
}

// learnLiteral records a query that ran as written: at its shape's
// second occurrence the normalized statement is bound, and kept when its
// columns equal those of the literal statement (prep).
func (s *session) learnLiteral(ctx context.Context, p *plan, prep *exec.Prepared) {
	if p.lit == nil || p.kind != stmtQuery || p.locking || prep == nil || prep.Volatile() {
		return
	}
	if s.shapes == nil || len(s.shapes) >= literalShapes {
		s.shapes = map[string]*literalShape{}
	}
	sh := s.shapes[p.lit.key]
	if sh == nil {
		sh = &literalShape{}
		s.shapes[p.lit.key] = sh
	}
	sh.seen++
	if sh.seen < 2 {
		return
	}
	key, cat, gen, err := s.readCatalog(ctx)
	if err != nil {
		sh.prep = nil
		return
	}
	if sh.prep != nil && sh.key == key && sh.gen == gen && sh.settings == s.info.Settings.BindGeneration() {
		// the shape's plan still holds: a statement prepared once and
		// executed again and again (extended protocol, literals in its
		// text) would otherwise bind the normalized text at every
		// execution
		return
	}
	sh.prep = nil
	declared := make([]uint32, len(p.lit.lits))
	for i, l := range p.lit.lits {
		declared[i] = l.OID
	}
	literalBinds.Add(1)
	norm, err := (&exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}).PrepareFor(s.execSession(), p.lit.norm, declared)
	if err != nil || !slices.Equal(norm.Columns, prep.Columns) {
		return
	}
	tree, err := sqlparse.Parse(p.lit.norm)
	if err != nil || len(tree.Stmts) != 1 {
		return
	}
	sh.prep, sh.key, sh.gen, sh.settings, sh.tree = norm, key, gen, s.info.Settings.BindGeneration(), tree.Stmts[0].Stmt
}
