package ddl

import (
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// LookupFunction resolves a user function named with or without an
// argument list in cat, for statements the SQL layer plans itself
// (GRANT … ON FUNCTION, ALTER FUNCTION … OWNER TO): its entry and meta,
// or missing, PostgreSQL's error for a function that does not exist.
func LookupFunction(owa *q.ObjectWithArgs, cat Catalog) (e graph.TableEntry, m TableMeta, missing *pgerr.Error, err error) {
	pc := &planCtx{v: newView(cat)}
	e, m, _, _, missing, err = pc.lookupFunction(owa)
	return e, m, missing, err
}

// Functions lists cat's user functions: their entries and metas.
func Functions(cat Catalog) ([]graph.TableEntry, []TableMeta, error) {
	pc := &planCtx{v: newView(cat)}
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, nil, err
	}
	var oe []graph.TableEntry
	var om []TableMeta
	for i, e := range es {
		if _, ok := FuncName(e.Name); ok && ms[i].Function != nil {
			oe, om = append(oe, e), append(om, ms[i])
		}
	}
	return oe, om, nil
}
