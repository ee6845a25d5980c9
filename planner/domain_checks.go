package planner

import (
	"slices"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Domain columns in the writer (planner/ddl/domain.go, exec/domains.go):
// a domain's constraints and default belong to the domain, not to the
// columns using it, so they are read from the statement's catalog when
// rows are written, and ALTER DOMAIN checks existing rows here.

// domainOf is the domain a column is declared with (nil: none, or an
// array of a domain when array).
func (w *writer) domainOf(cd exec.ColumnDef) (d *exec.DomainDef, array bool) {
	if cd.Domain == 0 {
		return nil, false
	}
	for _, x := range w.v.Domains() {
		if x.OID == cd.Domain&^1 {
			return x, cd.Domain%2 == 1
		}
	}
	return nil, false
}

// defaultFor is the default expression a column gets when a statement
// gives it no value: its own, else its domain's (PostgreSQL's
// build_column_default), else NULL — and NULL for sequence defaults,
// which the writer fills itself (sequences.go).
func (w *writer) defaultFor(cd exec.ColumnDef) string {
	if cd.Default == "" {
		if d, array := w.domainOf(cd); d != nil && !array && d.Default != "" {
			return d.Default
		}
	}
	return defaultFor(cd)
}

// checkDomains checks new rows' values of domain columns against their
// domains' NOT NULL and CHECK constraints (23502 "domain … does not allow
// null values", 23514 "value for domain … violates check constraint"),
// column by column. fill gives lazily built text vectors their strings.
func (w *writer) checkDomains(ti *tableInfo, rows []*exec.Vec, fill func()) error {
	filled := false
	for c, cd := range ti.def.Columns {
		d, array := w.domainOf(cd)
		if d == nil || c >= len(rows) {
			continue
		}
		if !filled {
			fill()
			filled = true
		}
		eng := &exec.Engine{Catalog: w.v, MemoryLimit: w.s.memLimit}
		if err := eng.DomainViolation(w.ctx, w.s.execSession(), d, rows[c], array); err != nil {
			return err
		}
	}
	return nil
}

// validateDomain checks a column's existing values against the
// constraint ALTER DOMAIN adds (v.Expr names the domain).
func (w *writer) validateDomain(v ddl.Validation) error {
	col, t := quoteIdent(v.Columns[0]), quoteIdent(v.Table)
	if v.Kind == ddl.ValidateDomainNotNull {
		rows, _, err := w.query("SELECT 1 FROM " + t + " WHERE " + col + " IS NULL LIMIT 1")
		if err != nil {
			return err
		}
		if len(rows) > 0 && rows[0].N > 0 {
			return wire.Errorf(pgerr.NotNullViolation, "column \"%s\" of table \"%s\" contains null values", v.Columns[0], v.Table)
		}
		return nil
	}
	var d *exec.DomainDef
	for _, x := range w.v.Domains() {
		if x.Name == v.Expr {
			d = x
		}
	}
	if d == nil {
		return nil
	}
	i := slices.IndexFunc(d.Checks, func(k exec.DomainCheck) bool { return k.Name == v.Constraint })
	if i < 0 {
		return nil
	}
	vecs, _, err := w.query("SELECT " + col + " FROM " + t)
	if err != nil {
		return err
	}
	if len(vecs) == 0 {
		return nil
	}
	var array bool
	if ti := w.v.base.tables[v.Table]; ti != nil {
		for _, cd := range ti.def.Columns {
			if cd.Name == v.Columns[0] {
				array = cd.Domain%2 == 1
			}
		}
	}
	eng := &exec.Engine{Catalog: w.v, MemoryLimit: w.s.memLimit}
	bad, err := eng.DomainCheckViolated(w.ctx, w.s.execSession(), d, d.Checks[i].Expr, vecs[0], array)
	if err != nil {
		return err
	}
	if bad {
		return wire.Errorf(pgerr.CheckViolation, "column \"%s\" of table \"%s\" contains values that violate the new constraint", v.Columns[0], v.Table)
	}
	return nil
}
