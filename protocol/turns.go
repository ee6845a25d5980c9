package protocol

// Retry turns: a process-local queue for writers that lost arbitration.
//
// Without it, N autocommit writers of one table in this process behave
// like this: all prepare against head h; one commits h+1; the other N-1
// find their read set changed at revalidation and immediately re-prepare
// — all of them, against h+1 — and again only one wins. Each commit then
// costs N-1 futile prepares (statement evaluation, validation, staged
// files), and on a small machine that CPU slows the winner's commit.
//
// With turns, a writer whose attempt failed with a read-set change (or
// live-writer contention) on tables it writes takes the retry turn of
// each of those tables (sorted, exclusive) before preparing again, and
// keeps it until its Commit returns. Retrying writers of a table
// therefore prepare one at a time, each against a head no other retrier
// is about to move; a writer's first attempt stays optimistic and never
// waits for a turn.
//
// Why this keeps the write protocol's invariants: a turn is not a gate of
// docs/write-protocol.md §4.3 and
// protects nothing — it only decides when a retry starts. The retry
// runs the whole state machine unchanged (barrier, fresh base, Prepare
// without gates, the ordered gates, revalidation of the complete read
// set, one CAS); invariant 7 explicitly allows process-local queues as
// an optimization. Deadlock freedom: turns are acquired only while no
// gate is held, all at once in sorted order, and a turn holder's gate
// waits are on writers that already hold their gates (which never wait
// for a turn).

import "github.com/pggraph/pggraph/graph"

// TurnGate is the retry turn of a (branch, table).
func TurnGate(branch string, t graph.TableKey) GateKey {
	return GateKey{Class: GateTurn, Key: branch + "\x00" + t.String()}
}

// turnKeys are the retry turns a failed attempt of pw asks for: one per
// table it writes.
func turnKeys(pw *PreparedWrite) []GateKey {
	if pw == nil {
		return nil
	}
	var keys []GateKey
	for _, m := range pw.ReadSet.Tables {
		if m.Written {
			keys = append(keys, TurnGate(pw.Base.Branch, m.Table))
		}
	}
	return SortGates(keys)
}

// sameKeys reports whether a and b (both sorted) name the same keys.
func sameKeys(a, b []GateKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Class != b[i].Class || a[i].Key != b[i].Key {
			return false
		}
	}
	return true
}
