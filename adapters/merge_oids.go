package adapters

import "github.com/pggraph/pggraph/graph"

// assignOIDs gives every table the merge brings to the target (an id no
// live target table has) whose OID a live target table, or another table
// of the merge, already has a fresh OID from the allocator, above both
// sides' counters. Table ids are the merge identity (a table created off
// main has a random id, graph.BranchID); OIDs are counter values each
// branch draws from its copy of the allocator, so a table each side
// created after the fork can carry the same OID. The OID is only the
// target catalog's name for the table: the source keeps its own, and
// later merges still match the two by id (docs/architecture.md, merges).
func (p *mergePlan) assignOIDs() {
	regs := p.pw.Delta.Registrations
	arriving := make([]bool, len(regs))
	used := map[uint32]bool{}
	for _, e := range p.target.State.Tables {
		if e.State == graph.Live {
			used[e.RelOID()] = true
		}
	}
	for i, r := range regs {
		if arriving[i] = !liveWithID(&p.target.State, r.ID); !arriving[i] {
			used[r.RelOID()] = true
		}
	}
	next := max(p.source.State.Schema.NextID, p.target.State.Schema.NextID, p.pw.Delta.NextID)
	for i := range regs {
		if !arriving[i] {
			continue
		}
		if used[regs[i].RelOID()] {
			for used[uint32(graph.FirstUserOID+next)] {
				next++
			}
			regs[i].OID = uint32(graph.FirstUserOID + next)
			next++
			p.pw.Delta.NextID = next
		}
		used[regs[i].RelOID()] = true
	}
}
