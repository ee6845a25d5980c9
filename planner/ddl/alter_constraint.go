package ddl

import (
	"fmt"
	"slices"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// flush names the builder's pending constraints and records their
// validations.
func (a *alterState) flush() error {
	b := a.b
	b.addedKeys, b.addedChecks, b.addedFKs = nil, nil, nil
	if err := b.flush(); err != nil {
		return err
	}
	for _, k := range b.addedKeys {
		if k.primary {
			for _, c := range k.cols {
				a.addValidation(Validation{Kind: ValidateNotNull, Constraint: k.Name, Columns: []string{c}})
			}
		}
		a.addValidation(Validation{Kind: ValidateUnique, Constraint: k.Name, Columns: k.cols})
	}
	for _, c := range b.addedChecks {
		a.addValidation(Validation{Kind: ValidateCheck, Constraint: c.Name, Expr: c.Expr})
	}
	for _, f := range b.addedFKs {
		a.addValidation(Validation{Kind: ValidateForeignKey, Constraint: f.Name, Columns: f.Columns, RefTable: f.RefTable, RefColumns: f.RefColumns})
	}
	return nil
}
func (a *alterState) addConstraint(con *q.Constraint) error {
	b := a.b
	switch con.Contype {
	case q.ConstrType_CONSTR_NOTNULL:
		for _, k := range stringList(con.Keys) {
			c, err := a.column(k)
			if err != nil {
				return err
			}
			c.notNull = true
			a.addValidation(Validation{Kind: ValidateNotNull, Columns: []string{k}})
		}
		return nil
	case q.ConstrType_CONSTR_PRIMARY, q.ConstrType_CONSTR_UNIQUE:
		if con.Indexname != "" {
			return notSupported("ADD CONSTRAINT … USING INDEX")
		}
	}
	if con.Conname != "" && b.own[con.Conname] {
		return errorf(CodeDuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", con.Conname, b.name)
	}
	if err := b.addTableConstraint(con); err != nil {
		return err
	}
	return a.flush()
}
func (a *alterState) validateConstraint(name string) error {
	m := &a.b.meta
	for _, c := range m.Checks {
		if c.Name == name {
			a.addValidation(Validation{Kind: ValidateCheck, Constraint: c.Name, Expr: c.Expr})
			return nil
		}
	}
	for _, f := range m.ForeignKeys {
		if f.Name == name {
			a.addValidation(Validation{Kind: ValidateForeignKey, Constraint: f.Name, Columns: f.Columns, RefTable: f.RefTable, RefColumns: f.RefColumns})
			return nil
		}
	}
	if slices.Contains(m.constraintNames(), name) {
		return nil
	}
	return errorf(CodeUndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, a.b.name)
}

// dropConstraint removes a named constraint. A key referenced by other
// tables' foreign keys needs CASCADE (which drops those); an edge
// endpoint reference cannot be dropped.
func (a *alterState) dropConstraint(name string, missingOk, cascade bool) error {
	m := &a.b.meta
	switch {
	case m.PrimaryKey != nil && m.PrimaryKey.Name == name:
		if err := a.dropKeyDependents(name, m.PrimaryKey.Columns, cascade); err != nil {
			return err
		}
		m.PrimaryKey = nil
		m.Indexes = slices.DeleteFunc(m.Indexes, func(ix Index) bool { return ix.Name == name })
		return nil
	}
	for i, u := range m.Uniques {
		if u.Name == name {
			if err := a.dropKeyDependents(name, u.Columns, cascade); err != nil {
				return err
			}
			m.Uniques = slices.Delete(m.Uniques, i, i+1)
			m.Indexes = slices.DeleteFunc(m.Indexes, func(ix Index) bool { return ix.Name == name })
			return nil
		}
	}
	for i, c := range m.Checks {
		if c.Name == name {
			m.Checks = slices.Delete(m.Checks, i, i+1)
			return nil
		}
	}
	for i, f := range m.ForeignKeys {
		if f.Name == name {
			if m.isEndpointFK(f) {
				return errorf(CodeInvalidTableDefinition, "cannot drop constraint %s on table %s because it is the endpoint reference of an edge table", name, a.b.name).
					WithHint("Drop the edge table instead.")
			}
			m.ForeignKeys = slices.Delete(m.ForeignKeys, i, i+1)
			return nil
		}
	}
	if missingOk {
		a.notice("constraint \"%s\" of relation \"%s\" does not exist, skipping", name, a.b.name)
		return nil
	}
	return errorf(CodeUndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, a.b.name)
}

// dropKeyDependents handles foreign keys of other tables that rely on the
// key (cols) being dropped.
func (a *alterState) dropKeyDependents(keyName string, cols []string, cascade bool) error {
	deps, err := a.pc.v.referencing(a.entry.Name)
	if err != nil {
		return err
	}
	var hit []dependency
	for _, d := range deps {
		if sameSet(d.FK.RefColumns, cols) {
			hit = append(hit, d)
		}
	}
	// self-references
	for _, f := range a.b.meta.ForeignKeys {
		if f.RefTable == a.entry.Name && sameSet(f.RefColumns, cols) {
			hit = append(hit, dependency{Table: a.entry.Name, FK: f})
		}
	}
	if len(hit) == 0 {
		return nil
	}
	var lines []string
	for _, d := range hit {
		lines = append(lines, fmt.Sprintf("constraint %s on table %s depends on index %s", d.FK.Name, d.Table, keyName))
	}
	if !cascade {
		return errorf(CodeDependentObjects, "cannot drop constraint %s on table %s because other objects depend on it", keyName, a.entry.Name).
			WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, d := range hit {
		if d.Edge {
			return errorf(CodeDependentObjects, "cannot drop constraint %s on table %s because edge table %s references it", keyName, a.entry.Name, d.Table).
				WithDetail(fmt.Sprintf("constraint %s on table %s is an edge endpoint reference", d.FK.Name, d.Table)).
				WithHint("Drop the edge table first.")
		}
		o, err := a.other(d.Table)
		if err != nil {
			return err
		}
		fkName := d.FK.Name
		o.b.meta.ForeignKeys = slices.DeleteFunc(o.b.meta.ForeignKeys, func(f ForeignKey) bool { return f.Name == fkName })
		a.notice("drop cascades to constraint %s on table %s", d.FK.Name, d.Table)
	}
	return nil
}
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
