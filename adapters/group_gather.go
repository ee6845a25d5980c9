package adapters

import (
	"time"
)

// Gathering a group (docs/architecture.md, "Group commit"). The runner
// takes whatever is queued when the previous group has committed. Under
// load that alone splits the writers into two alternating groups: the
// members of a large group are acknowledged together and all come back
// with their next statement a moment later, but by then the runner has
// already started committing the few writes that arrived while the large
// group was in flight. Each group then costs a full commit (its ordered
// durable rounds) for a handful of members, and the large set of writers
// waits for it: closed-loop throughput halves.
//
// So when fewer writes are queued than were active around the previous
// group (its own and those that queued while it committed), the runner
// waits for the rest — until as many are queued, or until one commit
// duration of the previous group (capped by Options.GroupGatherMax) has
// passed since it ended, whichever comes first. A lone
// writer (previous group of one) never waits, nor does a write that
// finds the runner idle after a quiet period with a group of one behind
// it, so single-client latency is unchanged. The wait only ever delays
// writes that would otherwise have waited for a whole commit of a small
// group anyway, which is what PostgreSQL's commit_delay/commit_siblings
// trade, sized from the measured commit instead of a fixed setting.

// On object storage gathering is off by default (Open): with 30 ms per
// request the writers of a group come back spread over 65–200 ms (each
// statement's own reads are requests, and many clients share the CPU),
// and letting the writes queued meanwhile commit at once measured as
// fast or faster (BenchmarkS3Commits +30 ms, 64 clients, interleaved
// with the build without gathering: 117, 127, 100, 157, 133, 192
// commits/s with it against 142–189 without).

// defaultGroupGatherMax bounds the gather wait when Options does not: a
// local-disk commit takes milliseconds, so the commit-duration rule binds
// there; on object storage (tens of milliseconds per request) this cap
// does.
const defaultGroupGatherMax = 100 * time.Millisecond

// lastGroup is what the runner remembers of a branch's previous group.
type lastGroup struct {
	// writers were active: the writes the group took from the queue
	// and those queued while it committed
	writers int
	took    time.Duration // how long committing the group took
	ended   time.Time
	// back is how long after the end of a group the first write came
	// (of this group once backSeen, else of an earlier one)
	back     time.Duration
	backSeen bool
}

// gatherWait is how long the runner waits for more writes when queued
// are waiting, the previous group was last and ended since ago (0:
// commit at once). The wait ends at most one commit duration (capped by
// limit) after the end of the previous group: its writers come back
// after their client's round trip and their next statement's reads
// (about two storage requests on object storage, a fraction of a
// millisecond on local disk), and writers that have not come back
// within a whole commit are not waited for — a burst long past costs
// nothing. Nor does the runner wait when writers came back late last
// time (more than a quarter of a commit after its end: on object
// storage a statement's own reads take a few requests, and many clients
// share two cores): the writes queued meanwhile then form the next group
// while the others prepare their statements, which overlaps the two
// better than one group that waits for everyone.
func gatherWait(queued int, last lastGroup, limit, since time.Duration) time.Duration {
	if limit <= 0 || queued >= last.writers || last.back > last.took/4 {
		return 0
	}
	return max(0, min(last.took, limit)-since)
}

// gather waits until at least want writes are queued for key, or for d.
func (g *Graph) gather(key string, want int, d time.Duration) {
	q := &g.groups
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		q.mu.Lock()
		n, ch := len(q.queue[key]), q.arrivals(key)
		q.mu.Unlock()
		if n >= want {
			return
		}
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

// arrivals is key's arrival signal (q.mu held): one pending wake-up,
// sent by every enqueue; the waiter re-reads the queue.
func (q *groupQueue) arrivals(key string) chan struct{} {
	ch := q.arrived[key]
	if ch == nil {
		ch = make(chan struct{}, 1)
		q.arrived[key] = ch
	}
	return ch
}
