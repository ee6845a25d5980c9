package planner

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// mergeDefaults evaluates the DEFAULT of columns a merge adds to rows it
// merges into a table re-columned on the other branch
// (adapters.SetMergeDefaults; docs/sql.md, "Merging across schema
// changes"): the columns the other branch added take the value its ALTER
// gave the existing rows, the default evaluated once over the target's
// catalog. A default drawing from a sequence would give every merged row
// the same value, so it is refused (0A000) rather than duplicated.
func (b *Backend) mergeDefaults(ctx context.Context, target *graph.Snapshot, e graph.TableEntry, cols []int) ([]arrow.Array, error) {
	td, ok := sqlTableDef(e)
	if !ok || len(td.Columns) != len(e.Def.Columns) {
		return nil, wire.Errorf(pgerr.InternalError, "table \"%s\" has an unreadable definition", e.Name)
	}
	exprs := make([]string, len(cols))
	defs := make([]exec.ColumnDef, len(cols))
	fields := make([]arrow.Field, len(cols))
	schema, err := e.Def.ArrowSchema()
	if err != nil {
		return nil, err
	}
	for i, c := range cols {
		cd := td.Columns[c]
		defs[i], fields[i] = cd, schema.Field(c)
		fields[i].Nullable = true
		exprs[i] = "NULL"
		if cd.Default != "" {
			if strings.Contains(strings.ToLower(cd.Default), "nextval(") {
				return nil, wire.Errorf(pgerr.FeatureNotSupported, "graph.merge of rows into table \"%s\" re-columned on the other branch: column \"%s\" takes its default from a sequence, which merged rows cannot draw one by one", e.Name, cd.Name)
			}
			exprs[i] = cd.Default
		}
	}
	cat, err := buildCatalog(ctx, b.Graph.Root, target, nil, &b.tables)
	if err != nil {
		return nil, err
	}
	w := &writer{s: &session{memLimit: b.MemoryLimit, info: wire.SessionInfo{Database: target.Branch}}, v: newView(cat, newPendingState()), ctx: ctx}
	vecs, _, err := w.query("SELECT " + strings.Join(exprs, ", "))
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(cols) {
		return nil, wire.Errorf(pgerr.InternalError, "defaults of \"%s\": %d values for %d columns", e.Name, len(vecs), len(cols))
	}
	for i := range vecs {
		vecs[i] = retype(vecs[i], defs[i].Type)
	}
	rec, err := recordFromVecs(arrow.NewSchema(fields, nil), defs, vecs)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	out := make([]arrow.Array, len(cols))
	for i := range out {
		out[i] = rec.Column(i)
		out[i].Retain()
	}
	return out, nil
}
