package seq

import "context"

// Position is where a sequence stands durably: the value the next
// unclaimed block starts at. Values of blocks some process claimed but has
// not handed out yet lie before it (PostgreSQL's last_value likewise
// counts values cached by sessions as used), so restoring a sequence to
// its Position never hands out a value twice.
type Position struct {
	Used bool  // some block was claimed or setval called
	Next int64 // the next block's first value (Spec.Start when !Used)
	End  bool  // no value after the last block (a bound without CYCLE)
}

// Peek reads a sequence's durable position without claiming anything.
func (a *Allocator) Peek(ctx context.Context, s Spec) (Position, error) {
	st := a.state(s.Key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := a.load(ctx, s, st); err != nil {
		return Position{}, err
	}
	if err := a.catchUp(ctx, s, st); err != nil {
		return Position{}, err
	}
	if st.tail < 0 {
		return Position{Next: s.Start}, nil
	}
	return Position{Used: true, Next: st.cursor, End: st.end}, nil
}
