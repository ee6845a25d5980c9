package planner

import (
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/planner/ddl"
)

// storedExprsBefore notes, before a DDL statement's changes apply, the
// column defaults of the tables it alters, and returns the check to run
// once they have applied: the CHECK constraints and defaults of each table
// it creates, and each default it sets or changes, are bound (not
// evaluated) against the table as it then is. PostgreSQL analyzes these
// expressions when the DDL runs, so a misspelled function or a default of
// the wrong type fails the migration that wrote it, not every INSERT
// after it (docs/sql.md, row 8). Constraints ALTER TABLE adds are already
// bound by their validation query; defaults the statement leaves alone
// are not bound again.
func (w *writer) storedExprsBefore(changes []ddl.Change) func() error {
	type target struct {
		name   string
		checks bool              // a new table: its CHECK constraints too
		before map[string]string // altered table: column → default before
	}
	var targets []target
	for _, ch := range changes {
		switch c := ch.(type) {
		case *ddl.CreateTable:
			if c.Meta.Relkind == ddl.RelTable {
				targets = append(targets, target{name: c.Name, checks: true})
			}
		case *ddl.AlterTable:
			before := map[string]string{}
			if td := w.v.Table("public", c.Name); td != nil {
				for _, col := range td.Columns {
					before[col.Name] = col.Default
				}
			}
			name := c.Name
			if c.NewName != "" {
				name = c.NewName
			}
			targets = append(targets, target{name: name, before: before})
		}
	}
	return func() error {
		if len(targets) == 0 {
			return nil
		}
		w.v.refresh()
		eng := &exec.Engine{Catalog: w.v, MemoryLimit: w.s.memLimit}
		sess := w.s.execSession()
		for _, t := range targets {
			td := w.v.Table("public", t.name)
			if td == nil {
				continue
			}
			for i, col := range td.Columns {
				if col.Identity != 0 || (t.before != nil && t.before[col.Name] == col.Default) {
					continue
				}
				if err := eng.BindDefault(sess, td, i); err != nil {
					return err
				}
			}
			if t.checks {
				for _, ck := range td.Checks {
					if err := eng.BindCheck(sess, td, ck.Expr); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
}
