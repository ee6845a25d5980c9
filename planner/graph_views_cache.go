package planner

import (
	"sync"

	"github.com/pggraph/pggraph/exec"
)

// graphViewsCache shares the graph.* views of a branch's head (graph.
// commits, graph.tables, …) across the catalog builds of every commit:
// their definitions and sources depend only on the graph and the branch
// (each scan reads the current state), so building them again for each
// new manifest version only allocated. Views as of a snapshot
// (SET graph.as_of) name that snapshot and are built per catalog.
type graphViewsCache struct {
	m sync.Map // branch -> []*exec.TableDef (read-only once stored)
}

func (c *graphViewsCache) get(branch string, build func() []*exec.TableDef) []*exec.TableDef {
	if v, ok := c.m.Load(branch); ok {
		return v.([]*exec.TableDef)
	}
	v, _ := c.m.LoadOrStore(branch, build())
	return v.([]*exec.TableDef)
}
