package ddl

import "github.com/pggraph/pggraph/planner/seq"

// Spec is the allocator's view of the sequence.
func (s Sequence) Spec() seq.Spec {
	return seq.Spec{Key: s.Key, Name: s.Name, Options: seq.Options{
		Start: s.Start, Increment: s.Increment, Min: s.Min, Max: s.Max, Cache: s.Cache, Cycle: s.Cycle,
	}}
}
