package adapters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pggraph/pggraph/graph"
)

// Definition merges. A table whose catalog entry (name, column
// nullability, and the SQL layer's metadata in Def.Extra: constraints,
// defaults, indexes, triggers, comments, privileges) changed on both
// branches without a rewrite on either merges three ways: each part
// either side left as the base had takes the other side's value; a part
// both changed the same way is that value; named lists (columns'
// metadata, constraints, indexes, triggers) merge element by element by
// name, so two branches adding different constraints, or one renaming
// the table while the other adds an index, merge. A part both changed
// differently is a schema conflict, reported with its SQL name (the
// constraint, column, index or trigger, or "the table's name"). The
// merged definition is then validated against the merged rows by the
// merge checks, as every merge is (a CHECK or NOT NULL added on one
// side against rows the other added). Re-columned tables (a rewrite on
// either side) are merge_recolumn.go's; a rewrite on both is a conflict
// describing both sides' column changes.

// mergeDefinition merges the catalog entries s (source) and t (target)
// changed from base. ok false: conflicts lists the parts in conflict.
func mergeDefinition(base, s, t graph.TableEntry) (merged graph.TableEntry, conflicts []string) {
	merged = t
	switch {
	case s.Name == base.Name || s.Name == t.Name:
	case t.Name == base.Name:
		merged.Name = s.Name
	default:
		conflicts = append(conflicts, fmt.Sprintf("the table was renamed to %q on one branch and to %q on the other", s.Name, t.Name))
	}
	if s.Kind != t.Kind {
		if t.Kind == base.Kind {
			merged.Kind = s.Kind
		} else if s.Kind != base.Kind {
			conflicts = append(conflicts, "its kind changed on both branches")
		}
	}
	if !samePhysical(s.Def, t.Def) || !samePhysical(base.Def, t.Def) {
		return merged, append(conflicts, "its columns differ between the branches")
	}
	merged.Def = t.Def
	merged.Def.Columns = append([]graph.ColumnDef(nil), t.Def.Columns...)
	merged.Def.PrimaryKey = append([]string(nil), t.Def.PrimaryKey...)
	for i := range merged.Def.Columns {
		b, sc := base.Def.Columns[i], s.Def.Columns[i]
		if merged.Def.Columns[i].Nullable == b.Nullable {
			merged.Def.Columns[i].Nullable = sc.Nullable
		} else if sc.Nullable != b.Nullable && sc.Nullable != merged.Def.Columns[i].Nullable {
			conflicts = append(conflicts, fmt.Sprintf("column %q: NOT NULL changed differently", sc.Name))
		}
	}
	if !equalStrings(s.Def.PrimaryKey, t.Def.PrimaryKey) {
		switch {
		case equalStrings(t.Def.PrimaryKey, base.Def.PrimaryKey):
			merged.Def.PrimaryKey = append([]string(nil), s.Def.PrimaryKey...)
		case !equalStrings(s.Def.PrimaryKey, base.Def.PrimaryKey):
			conflicts = append(conflicts, "its primary key changed differently on both branches")
		}
	}
	extra, cs, err := mergeExtra(base.Def.Extra, s.Def.Extra, t.Def.Extra)
	if err != nil {
		return merged, append(conflicts, "its definitions cannot be read: "+err.Error())
	}
	merged.Def.Extra = extra
	return merged, append(conflicts, cs...)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// missing marks a key or element a side does not have.
type missingT struct{}

var missing = missingT{}

func decodeJSON(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return missing, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func jsonEqual(a, b any) bool {
	if a == missing || b == missing {
		return a == b
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// mergeExtra merges the SQL layer's metadata three ways (see above).
func mergeExtra(base, s, t json.RawMessage) (json.RawMessage, []string, error) {
	bv, err := decodeJSON(base)
	if err != nil {
		return nil, nil, err
	}
	sv, err := decodeJSON(s)
	if err != nil {
		return nil, nil, err
	}
	tv, err := decodeJSON(t)
	if err != nil {
		return nil, nil, err
	}
	var conflicts []string
	m := merge3(nil, bv, sv, tv, &conflicts)
	if m == missing {
		return nil, conflicts, nil
	}
	out, err := json.Marshal(m)
	return out, conflicts, err
}

// merge3 merges one value three ways; path names where it is (for
// conflicts).
func merge3(path []string, b, s, t any, conflicts *[]string) any {
	switch {
	case jsonEqual(s, b) || jsonEqual(s, t):
		return t
	case jsonEqual(t, b):
		return s
	}
	sm, sok := s.(map[string]any)
	tm, tok := t.(map[string]any)
	if sok && tok {
		bm, _ := b.(map[string]any)
		out := map[string]any{}
		keys := map[string]bool{}
		for _, m := range []map[string]any{bm, sm, tm} {
			for k := range m {
				keys[k] = true
			}
		}
		ks := make([]string, 0, len(keys))
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if v := merge3(append(path, k), get(bm, k), get(sm, k), get(tm, k), conflicts); v != missing {
				out[k] = v
			}
		}
		return out
	}
	sa, sok := named(s)
	ta, tok := named(t)
	if sok && tok {
		ba, _ := named(b)
		return mergeNamed(path, ba, sa, ta, conflicts)
	}
	*conflicts = append(*conflicts, describePath(path)+" changed differently on both branches")
	return t
}

func get(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return missing
}

// named reads a list whose elements are objects with a string "name"
// (columns, constraints, indexes, triggers) or identified by grantee and
// grantor (ACL items); ok false otherwise.
type namedElem struct {
	name string
	v    any
}

func named(v any) ([]namedElem, bool) {
	if v == missing || v == nil {
		return nil, true
	}
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]namedElem, len(a))
	for i, e := range a {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		n, ok := m["name"].(string)
		if !ok {
			// an ACL item is identified by its grantee and grantor
			ge, gok := m["grantee"].(json.Number)
			gr, rok := m["grantor"].(json.Number)
			if !gok || !rok {
				return nil, false
			}
			n = "grantee " + ge.String() + " by " + gr.String()
		}
		out[i] = namedElem{n, e}
	}
	return out, true
}

// mergeNamed merges named lists element by element: the target's order,
// then the source's new elements in its order.
func mergeNamed(path []string, b, s, t []namedElem, conflicts *[]string) any {
	find := func(l []namedElem, n string) any {
		for _, e := range l {
			if e.name == n {
				return e.v
			}
		}
		return missing
	}
	var out []any
	seen := map[string]bool{}
	emit := func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		if v := merge3(append(path, n), find(b, n), find(s, n), find(t, n), conflicts); v != missing {
			out = append(out, v)
		}
	}
	for _, e := range t {
		emit(e.name)
	}
	for _, e := range s {
		emit(e.name)
	}
	for _, e := range b {
		emit(e.name) // deleted on one side, changed on the other: a conflict
	}
	if out == nil {
		return []any{}
	}
	return out
}

// describePath names a part of a table's metadata in SQL terms.
func describePath(path []string) string {
	if len(path) == 0 {
		return "its definition"
	}
	what := map[string]string{"columns": "column", "uniques": "constraint", "checks": "constraint",
		"foreign_keys": "constraint", "indexes": "index", "triggers": "trigger"}
	if w, ok := what[path[0]]; ok && len(path) > 1 {
		s := fmt.Sprintf("%s %q", w, path[1])
		if len(path) > 2 {
			s += " (" + strings.Join(path[2:], ".") + ")"
		}
		return s
	}
	switch path[0] {
	case "primary_key":
		return "the primary key"
	case "comment":
		return "the table's comment"
	case "acl", "owner":
		return "the table's privileges or owner"
	}
	return "the table's " + strings.Join(path, ".")
}
