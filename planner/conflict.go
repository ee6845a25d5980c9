package planner

import (
	"slices"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// onConflict splits INSERT's proposed rows by ON CONFLICT: rows without a
// conflict on an arbiter constraint are returned for insertion; DO
// NOTHING drops the others; DO UPDATE computes the updated versions of
// the existing rows they hit (SET over the target row and the proposed
// row as "excluded", filtered by WHERE) with one exec query.
//
// order gives each returned row's position among the proposed rows (the
// inserted rows first, then the updated ones), so RETURNING follows the
// proposal order, as in PostgreSQL.
func (w *writer) onConflict(ti *tableInfo, alias string, oc *sqlparse.OnConflictClause, rows []*exec.Vec) (ins []*exec.Vec, updAddrs []uint64, upd []*exec.Vec, order []int32, err error) {
	td := ti.def
	doUpdate := oc.Action == sqlparse.OnConflictAction_ONCONFLICT_UPDATE
	arbiters, err := arbiterKeys(td, oc.Infer, doUpdate)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	n := rows[0].N
	found := make([]map[string][]uint64, len(arbiters))
	for a, uk := range arbiters {
		if found[a], err = w.findKeys(td.Name, uk.cols, pick(rows, uk.cols)); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	seenNew := make([]map[string]bool, len(arbiters))
	for a := range seenNew {
		seenNew[a] = map[string]bool{}
	}
	hit := map[uint64]bool{}
	var keep, proposed []int32
	var targets []int64
	var kb []byte
	for i := 0; i < n; i++ {
		conflict := false
		var addr uint64
		hasAddr := false
		for a, uk := range arbiters {
			k, ok := keyOf(kb[:0], pick(rows, uk.cols), i)
			kb = k
			if !ok {
				continue
			}
			if seenNew[a][string(k)] {
				conflict = true
				if doUpdate {
					return nil, nil, nil, nil, cardinalityErr()
				}
			}
			if ad := found[a][string(k)]; len(ad) > 0 {
				conflict, addr, hasAddr = true, ad[0], true
				if doUpdate && addr&pendingAddrBit != 0 && addr&^pendingAddrBit >= w.conflictFrom {
					// inserted or updated by an earlier chunk of this
					// statement (insert.go, streamable)
					return nil, nil, nil, nil, cardinalityErr()
				}
			}
		}
		switch {
		case !conflict:
			keep = append(keep, int32(i))
			for a, uk := range arbiters {
				if k, ok := keyOf(kb[:0], pick(rows, uk.cols), i); ok {
					seenNew[a][string(k)] = true
				}
			}
		case doUpdate && hasAddr:
			if hit[addr] {
				return nil, nil, nil, nil, cardinalityErr()
			}
			hit[addr] = true
			proposed = append(proposed, int32(i))
			targets = append(targets, int64(addr))
		}
	}
	ins = gatherVecs(rows, keep)
	order = keep
	if !doUpdate || (len(proposed) == 0 && !w.describe) {
		return ins, nil, nil, order, nil
	}
	// excluded: the proposed rows with the address of the row they hit
	exCols := append(slices.Clip(td.Columns), exec.ColumnDef{Name: "_target", Type: exec.TInt8})
	tv := exec.NewVec(exec.TInt8, len(targets))
	copy(tv.I, targets)
	exVecs := append(gatherVecs(rows, proposed), tv)
	w.v.extra["excluded"] = &exec.TableDef{OID: td.OID, Schema: "public", Name: "excluded", Columns: exCols, Source: exec.MemTableFromVecs(exCols, exVecs)}
	defer delete(w.v.extra, "excluded")
	items, _, seqCols, err := w.setItems(td, alias, oc.TargetList)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := seqDefaultItems(td, items, seqCols); err != nil {
		return nil, nil, nil, nil, err
	}
	// SELECT alias._rowaddr, items FROM td alias JOIN excluded ON
	// alias._rowaddr = excluded._target [AND (WHERE condition)]
	proj := []*sqlparse.Node{resTarget(columnRef(alias, "_rowaddr"))}
	for _, it := range items {
		proj = append(proj, resTarget(it))
	}
	on := &sqlparse.Node{Node: &sqlparse.Node_AExpr{AExpr: &sqlparse.A_Expr{Kind: sqlparse.A_Expr_Kind_AEXPR_OP,
		Name: []*sqlparse.Node{pgString("=")}, Lexpr: columnRef(alias, "_rowaddr"), Rexpr: columnRef("excluded", "_target"), Location: -1}}}
	if oc.WhereClause != nil {
		on = &sqlparse.Node{Node: &sqlparse.Node_BoolExpr{BoolExpr: &sqlparse.BoolExpr{Boolop: sqlparse.BoolExprType_AND_EXPR,
			Args: []*sqlparse.Node{on, oc.WhereClause}, Location: -1}}}
	}
	tgt := rangeVarNode(&sqlparse.RangeVar{Relname: td.Name, Inh: true, Relpersistence: "p", Alias: aliasFor(td.Name, alias), Location: -1})
	join := &sqlparse.Node{Node: &sqlparse.Node_JoinExpr{JoinExpr: &sqlparse.JoinExpr{Jointype: sqlparse.JoinType_JOIN_INNER,
		Larg: tgt, Rarg: relationNode("excluded"), Quals: on}}}
	res, _, err := w.queryTree(selectTree(nil, proj, []*sqlparse.Node{join}, nil))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	updAddrs, upd = splitAddrs(res, td)
	at := map[int64]int32{}
	for k, a := range targets {
		at[a] = proposed[k]
	}
	for _, a := range updAddrs {
		order = append(order, at[int64(a)])
	}
	return ins, updAddrs, upd, order, nil
}

func aliasFor(table, alias string) *sqlparse.Alias {
	if alias == table {
		return nil
	}
	return &sqlparse.Alias{Aliasname: alias}
}

func cardinalityErr() error {
	return wire.Errorf(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
		WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
}

// arbiterKeys resolves ON CONFLICT's conflict target to unique keys.
func arbiterKeys(td *exec.TableDef, infer *sqlparse.InferClause, doUpdate bool) ([]uniqueKey, error) {
	keys := uniqueKeys(td)
	if infer == nil {
		if doUpdate {
			return nil, wire.Errorf(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
				WithHint("For example, ON CONFLICT (column_name).")
		}
		return keys, nil
	}
	if infer.Conname != "" {
		for _, k := range keys {
			if k.name == infer.Conname {
				return []uniqueKey{k}, nil
			}
		}
		return nil, wire.Errorf(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", infer.Conname, td.Name)
	}
	var want []int
	for _, e := range infer.IndexElems {
		name := e.GetIndexElem().GetName()
		c := slices.IndexFunc(td.Columns, func(cd exec.ColumnDef) bool { return cd.Name == name })
		if c < 0 {
			return nil, wire.Errorf(pgerr.UndefinedColumn, "column \"%s\" does not exist", name)
		}
		want = append(want, c)
	}
	slices.Sort(want)
	for _, k := range keys {
		have := slices.Clone(k.cols)
		slices.Sort(have)
		if slices.Equal(have, want) {
			return []uniqueKey{k}, nil
		}
	}
	return nil, wire.Errorf(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
}
