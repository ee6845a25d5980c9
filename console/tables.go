package console

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

type column struct {
	Name, Type string
	NotNull    bool
	Default    string
}

type tableInfo struct {
	Name, Kind              string
	Rows                    int64
	Version                 int64
	Fragments, DataFiles    int64
	DataBytes, PhysicalRows int64
	Deletions               int64
	Columns                 []column
	Indexes                 []string // CREATE INDEX statements
	// edge tables: the node tables their endpoint columns reference
	Source, Target       string
	SourceCol, TargetCol string
}

// loadTables reads the session branch's graph tables with their storage
// layout, columns, indexes and (edge tables) endpoints.
func loadTables(ctx context.Context, c *pgx.Conn) ([]tableInfo, error) {
	rows, err := c.Query(ctx, `SELECT t.name, t.kind, t.row_count, t.pinned_version,
		s.fragments, s.data_files, s.data_bytes, s.physical_rows, s.fragments_with_deletions
		FROM graph.tables t JOIN graph.table_storage s USING (name) ORDER BY t.name`)
	if err != nil {
		return nil, err
	}
	ts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (tableInfo, error) {
		var t tableInfo
		err := r.Scan(&t.Name, &t.Kind, &t.Rows, &t.Version, &t.Fragments, &t.DataFiles, &t.DataBytes, &t.PhysicalRows, &t.Deletions)
		return t, err
	})
	if err != nil {
		return nil, err
	}
	byName := map[string]*tableInfo{}
	for i := range ts {
		byName[ts[i].Name] = &ts[i]
	}
	rows, err = c.Query(ctx, `SELECT table_name, column_name, data_type, is_nullable = 'NO', coalesce(column_default, '')
		FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`)
	if err != nil {
		return nil, err
	}
	var tname string
	var col column
	if _, err := pgx.ForEachRow(rows, []any{&tname, &col.Name, &col.Type, &col.NotNull, &col.Default}, func() error {
		if t := byName[tname]; t != nil {
			t.Columns = append(t.Columns, col)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	rows, err = c.Query(ctx, `SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname`)
	if err != nil {
		return nil, err
	}
	var def string
	if _, err := pgx.ForEachRow(rows, []any{&tname, &def}, func() error {
		if t := byName[tname]; t != nil {
			t.Indexes = append(t.Indexes, def)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return ts, loadEndpoints(ctx, c, byName)
}

// loadEndpoints finds each edge table's source and target node tables:
// the tables its endpoint columns (graph.source / graph.target, by
// default src / dst) reference.
func loadEndpoints(ctx context.Context, c *pgx.Conn, byName map[string]*tableInfo) error {
	for _, t := range byName {
		if t.Kind == "edge" {
			t.SourceCol, t.TargetCol = "src", "dst"
		}
	}
	rows, err := c.Query(ctx, `SELECT relname, coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`)
	if err != nil {
		return err
	}
	var name, opts string
	if _, err := pgx.ForEachRow(rows, []any{&name, &opts}, func() error {
		t := byName[name]
		if t == nil || t.Kind != "edge" {
			return nil
		}
		for _, o := range strings.Split(opts, ",") {
			if v, ok := strings.CutPrefix(o, "graph.source="); ok {
				t.SourceCol = v
			}
			if v, ok := strings.CutPrefix(o, "graph.target="); ok {
				t.TargetCol = v
			}
		}
		return nil
	}); err != nil {
		return err
	}
	rows, err = c.Query(ctx, `SELECT c.conrelid::regclass::text, a.attname, c.confrelid::regclass::text
		FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1`)
	if err != nil {
		return err
	}
	var attname, ref string
	_, err = pgx.ForEachRow(rows, []any{&name, &attname, &ref}, func() error {
		t := byName[name]
		if t == nil || t.Kind != "edge" {
			return nil
		}
		switch attname {
		case t.SourceCol:
			t.Source = ref
		case t.TargetCol:
			t.Target = ref
		}
		return nil
	})
	return err
}
