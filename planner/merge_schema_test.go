package planner

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMergeAcrossSchemaChanges pins the semantics of merges across
// schema changes (docs/sql.md, "Merging across schema changes"): tables
// created, dropped and re-columned on one branch merge when the other
// branch left them alone; rows changed on one branch merge into a table
// re-columned on the other, in both directions
// (TestMergeIntoRecolumned has the details); the same name created or
// rewritten on both branches, or a table dropped on one and changed on
// the other, is a conflict (40001) described in SQL names.
func TestMergeAcrossSchemaChanges(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table pets (id int8 primary key, name text)"},
		{sql: "insert into pets values (1, 'rex')"},
		{sql: "call graph.create_branch('cols')"},
		{sql: "call graph.create_branch('rows')"},
		{sql: "call graph.create_branch('tables')"},
		{sql: "call graph.create_branch('both')"},
		// cols: people re-columned and its new column filled
		{sql: "set graph.branch = 'cols'"},
		{sql: "alter table people add column age int"},
		{sql: "update people set age = 40 where id = 1"},
		// rows: people's rows changed
		{sql: "set graph.branch = 'rows'"},
		{sql: "insert into people values (9, 'rows9', 9)"},
		// tables: a table created, one dropped
		{sql: "set graph.branch = 'tables'"},
		{sql: "create table toys (id int8 primary key, owner int8)"},
		{sql: "insert into toys values (1, 1)"},
		{sql: "drop table pets"},
		// both: people re-columned differently, a toys table of its own
		{sql: "set graph.branch = 'both'"},
		{sql: "alter table people add column height int"},
		{sql: "create table toys (id int8 primary key)"},
		{sql: "set graph.branch = 'main'"},
		// re-columned on cols, unchanged on main: merges
		{sql: "call graph.merge('cols')", tag: "CALL"},
		{sql: "select id, name, age from people order by id", rows: "1|ada|40;2|<nil>|<nil>;3|bob|<nil>"},
		// rows changed on rows, people re-columned on main since: the row
		// merges into the new columns (age NULL: no default)
		{sql: "call graph.merge('rows')", tag: "CALL"},
		{sql: "select id, name, age from people order by id", rows: "1|ada|40;2|<nil>|<nil>;3|bob|<nil>;9|rows9|<nil>"},
		// and the other way round: rows takes in main's columns
		{sql: "call graph.merge('main', 'rows')", tag: "CALL"},
		{sql: "set graph.branch = 'rows'"},
		{sql: "select id, name, age from people order by id", rows: "1|ada|40;2|<nil>|<nil>;3|bob|<nil>;9|rows9|<nil>"},
		{sql: "set graph.branch = 'main'"},
		// created and dropped on tables: merges
		{sql: "call graph.merge('tables')", tag: "CALL"},
		{sql: "select * from toys", rows: "1|1"},
		{sql: "select count(*) from pets", code: "42P01", msg: "pets"},
		// toys created on both: 40001 naming it
		{sql: "call graph.merge('both')", code: "40001", msg: "conflicts on toys (a different table of that name was created on main)"},
		// people re-columned on both merges into one table with both
		// sides' columns (merge_recolumn_both.go)
		{sql: "set graph.branch = 'both'"},
		{sql: "drop table toys"},
		{sql: "update people set height = 170 where id = 3"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('both')", tag: "CALL"},
		{sql: "select id, name, age, height from people order by id", rows: "1|ada|40|<nil>;2|<nil>|<nil>|<nil>;3|bob|<nil>|170;9|rows9|<nil>|<nil>"},
	})
	// a table dropped on one branch and changed on the other
	runScript(t, c, []step{
		{sql: "call graph.create_branch('dropper')"},
		{sql: "set graph.branch = 'dropper'"},
		{sql: "drop table toys"},
		{sql: "set graph.branch = 'main'"},
		{sql: "insert into toys values (2, 2)"},
		{sql: "call graph.merge('dropper')", code: "40001", msg: "toys (dropped on dropper but changed on main)"},
	})
}
