package pgq

import (
	"slices"
	"strings"
)

// elementFunction is the SQL for LABELS(v) or PROPERTY_NAMES(v) in the
// arm being built: a text[] constant, since an arm binds v to one
// element table. LABELS lists the table's labels, PROPERTY_NAMES the
// properties its labels expose (each once); both sorted by name, as the
// element has them as a set. Outside an arm (the checks that only walk
// the expressions) the text does not matter.
func (r *rewriter) elementFunction(fn string, v *variable) string {
	t := r.armCombo[v]
	if t == nil {
		return "NULL::text[]"
	}
	var names []string
	if fn == "labels" {
		names = slices.Clone(t.Labels)
	} else {
		for p := range t.Props {
			names = append(names, p)
		}
		for p := range t.Exprs {
			if _, ok := t.Props[p]; !ok {
				names = append(names, p)
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + strings.ReplaceAll(n, "'", "''") + "'"
	}
	return "(ARRAY[" + strings.Join(quoted, ", ") + "]::text[])"
}
