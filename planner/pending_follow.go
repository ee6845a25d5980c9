package planner

import "slices"

// Followed pending rows. A pending insert's address (pendingAddrBit | its
// position among the table's pending inserts, as exec.WithOverlay
// numbers them) holds only within one statement: remove cuts rows out
// of the insert records and every later row's position shifts. A caller
// that must recognise one pending row across statements — the staged
// merge's conflict rows (merge_stage.go) — follows it: follow returns a
// stable handle, remove keeps the handle's position current, and reports
// the row gone once a statement deleted it or updated it (an UPDATE
// removes the old image and appends the new one).

// followGone marks a followed row that was removed.
const followGone = ^uint64(0)

// follow starts following the pending row at position seq and returns
// its handle.
func (p *pendingTable) follow(seq uint64) int {
	p.followed = append(p.followed, seq)
	return len(p.followed) - 1
}

// followedRow is the current position of a followed row, and whether it
// is still there.
func (p *pendingTable) followedRow(h int) (uint64, bool) {
	if h < 0 || h >= len(p.followed) || p.followed[h] == followGone {
		return 0, false
	}
	return p.followed[h], true
}

// shiftFollowed moves the followed rows past the removal of the pending
// positions in drop: a removed row is gone, the others move down by the
// removed rows before them.
func (p *pendingTable) shiftFollowed(drop *addrBits) {
	if len(p.followed) == 0 || drop.len() == 0 {
		return
	}
	gone := slices.Collect(drop.all()) // ascending
	for h, pos := range p.followed {
		if pos == followGone {
			continue
		}
		i, found := slices.BinarySearch(gone, pos)
		if found {
			p.followed[h] = followGone
			continue
		}
		p.followed[h] = pos - uint64(i)
	}
}
