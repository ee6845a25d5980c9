package seq

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/pgerr"
)

// Prefix is where sequence blocks live in the graph root's store.
const Prefix = "sequences/"

// Block sizes: a claim starts at max(Cache, minBlock) values and doubles
// (up to maxBlock) while blocks are used up quickly, so bulk loads cost
// a few durable writes, not one per row.
const (
	minBlock  = 32
	maxBlock  = 1 << 16
	fastBlock = time.Second
	// hintEvery: the tail hint is refreshed every this many claims.
	hintEvery = 8
	// maxClaimRaces bounds lost PutIfAbsent races per call.
	maxClaimRaces = 10000
)

// block is one claimed range: Count values First, First+Inc, …; Next is
// the value the following block starts at, End says no value follows
// within the range that applied (exhausted unless cycling). A setval
// writes a block with Count 0 that only moves Next.
type block struct {
	First int64 `json:"first"`
	Count int64 `json:"count"`
	Inc   int64 `json:"inc"`
	Next  int64 `json:"next"`
	End   bool  `json:"end,omitempty"`
}

// Allocator hands out sequence values. Values come from blocks claimed
// durably with PutIfAbsent under sequences/<key>/<block number>: the
// process whose PutIfAbsent creates block k owns its values, so two
// processes (or allocators) never return the same value. Values of a
// block not handed out before the process ends are lost (gaps, as in
// PostgreSQL), never reused.
type Allocator struct {
	store objstore.Store
	now   func() time.Time
	mu    sync.Mutex
	seqs  map[string]*state
}

// state is the process-local view of one sequence.
type state struct {
	mu     sync.Mutex
	loaded bool
	tail   int64 // highest block number known to exist (-1: none)
	cursor int64 // value the next block starts at
	end    bool  // no value after the tail block (within its range)
	// the block this process owns and is handing out
	cur, left, inc int64
	size           int64
	claimedAt      time.Time
	claims         int64
}

// Open returns an allocator over store (normally the graph root's).
func Open(store objstore.Store) *Allocator {
	return &Allocator{store: store, now: time.Now, seqs: map[string]*state{}}
}

func (a *Allocator) state(key string) *state {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.seqs[key]
	if st == nil {
		st = &state{tail: -1}
		a.seqs[key] = st
	}
	return st
}

func blockKey(key string, n int64) string {
	return fmt.Sprintf("%s%s/%020d", Prefix, key, n)
}

func hintKey(key string) string { return Prefix + key + "/hint" }

// Next returns the sequence's next value (nextval).
func (a *Allocator) Next(ctx context.Context, s Spec) (int64, error) {
	if err := s.validate(); err != nil {
		return 0, err
	}
	st := a.state(s.Key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.left > 0 && st.inc == s.Increment && st.cur >= s.Min && st.cur <= s.Max {
		return st.take(), nil
	}
	st.left = 0
	if err := a.claim(ctx, s, st); err != nil {
		return 0, err
	}
	return st.take(), nil
}

func (st *state) take() int64 {
	v := st.cur
	st.left--
	if st.left > 0 {
		st.cur += st.inc
	}
	return v
}

// load finds the tail block: from the hint (or a listing) forward.
func (a *Allocator) load(ctx context.Context, s Spec, st *state) error {
	if st.loaded {
		return nil
	}
	st.tail, st.cursor, st.end = -1, s.Start, false
	from := int64(-1)
	if b, err := a.store.Get(ctx, hintKey(s.Key)); err == nil {
		if n, perr := strconv.ParseInt(string(b), 10, 64); perr == nil && n >= 0 {
			from = n
		}
	} else if !objstore.IsNotFound(err) {
		return err
	}
	if from < 0 {
		var err error
		if from, err = a.listTail(ctx, s.Key); err != nil {
			return err
		}
	}
	if from >= 0 {
		b, err := a.readBlock(ctx, s.Key, from)
		if objstore.IsNotFound(err) {
			// a hint never points past the tail; if it does, trust the listing
			if from, err = a.listTail(ctx, s.Key); err != nil {
				return err
			}
			if from >= 0 {
				b, err = a.readBlock(ctx, s.Key, from)
			}
		}
		if err != nil {
			return err
		}
		if from >= 0 {
			st.apply(from, b)
		}
	}
	st.loaded = true
	return a.catchUp(ctx, s, st)
}

// listTail finds the highest block number by listing (-1: none).
func (a *Allocator) listTail(ctx context.Context, key string) (int64, error) {
	infos, err := a.store.List(ctx, Prefix+key+"/")
	if err != nil {
		return -1, err
	}
	from := int64(-1)
	for _, in := range infos {
		base := in.Key[strings.LastIndexByte(in.Key, '/')+1:]
		if n, err := strconv.ParseInt(base, 10, 64); err == nil && len(base) == 20 && n > from {
			from = n
		}
	}
	return from, nil
}

// catchUp reads blocks after the known tail until none exists.
func (a *Allocator) catchUp(ctx context.Context, s Spec, st *state) error {
	for {
		b, err := a.readBlock(ctx, s.Key, st.tail+1)
		if objstore.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		st.apply(st.tail+1, b)
	}
}

func (st *state) apply(n int64, b block) {
	st.tail, st.cursor, st.end = n, b.Next, b.End
}

func (a *Allocator) readBlock(ctx context.Context, key string, n int64) (block, error) {
	raw, err := a.store.Get(ctx, blockKey(key, n))
	if err != nil {
		return block{}, err
	}
	var b block
	if err := json.Unmarshal(raw, &b); err != nil || b.Inc == 0 || b.Count < 0 {
		return block{}, fmt.Errorf("%w: %s", ErrCorrupt, blockKey(key, n))
	}
	return b, nil
}

// claim writes the next block and makes it the process's current one.
func (a *Allocator) claim(ctx context.Context, s Spec, st *state) error {
	if err := a.load(ctx, s, st); err != nil {
		return err
	}
	size := st.nextSize(s, a.now())
	for race := 0; race < maxClaimRaces; race++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := st.cursor
		if st.end || start < s.Min || start > s.Max {
			if !s.Cycle {
				return exhausted(s)
			}
			start = s.Min
			if s.Increment < 0 {
				start = s.Max
			}
		}
		n := fits(start, s.Increment, s.Min, s.Max, size)
		last := start + (n-1)*s.Increment
		next, ok := step(last, s.Increment, s.Min, s.Max)
		b := block{First: start, Count: n, Inc: s.Increment, Next: next, End: !ok}
		raw, _ := json.Marshal(b)
		err := a.store.PutIfAbsent(ctx, blockKey(s.Key, st.tail+1), raw)
		if objstore.IsExists(err) {
			if err := a.catchUp(ctx, s, st); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		st.apply(st.tail+1, b)
		st.cur, st.left, st.inc, st.size, st.claimedAt = b.First, b.Count, b.Inc, size, a.now()
		st.claims++
		if st.claims%hintEvery == 0 {
			// Advisory: a stale hint only costs a few extra reads.
			_ = a.store.Put(ctx, hintKey(s.Key), []byte(strconv.FormatInt(st.tail, 10)))
		}
		return nil
	}
	return ErrContended
}

// nextSize doubles the block size while blocks are used up within
// fastBlock, and falls back to the base size otherwise.
func (st *state) nextSize(s Spec, now time.Time) int64 {
	base := max(s.Cache, minBlock)
	switch {
	case st.size == 0 || now.Sub(st.claimedAt) > fastBlock:
		return base
	default:
		return min(max(st.size*2, base), max(maxBlock, base))
	}
}

func exhausted(s Spec) error {
	if s.Increment > 0 {
		return pgerr.Errorf(CodeSequenceLimit, "nextval: reached maximum value of sequence \"%s\" (%d)", s.Name, s.Max)
	}
	return pgerr.Errorf(CodeSequenceLimit, "nextval: reached minimum value of sequence \"%s\" (%d)", s.Name, s.Min)
}

// SetVal moves the sequence (setval): the next value handed out by any
// process that has no cached block is v when isCalled is false, the one
// after v when true. Like PostgreSQL with CACHE > 1, another process may
// still hand out values it had already claimed.
func (a *Allocator) SetVal(ctx context.Context, s Spec, v int64, isCalled bool) error {
	if err := s.validate(); err != nil {
		return err
	}
	if v < s.Min || v > s.Max {
		return pgerr.Errorf(CodeNumericOutOfRng, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)", v, s.Name, s.Min, s.Max)
	}
	st := a.state(s.Key)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := a.load(ctx, s, st); err != nil {
		return err
	}
	b := block{First: v, Count: 0, Inc: s.Increment, Next: v}
	if isCalled {
		next, ok := step(v, s.Increment, s.Min, s.Max)
		b.Next, b.End = next, !ok
	}
	raw, _ := json.Marshal(b)
	for race := 0; race < maxClaimRaces; race++ {
		err := a.store.PutIfAbsent(ctx, blockKey(s.Key, st.tail+1), raw)
		if objstore.IsExists(err) {
			if err := a.catchUp(ctx, s, st); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		st.apply(st.tail+1, b)
		st.left, st.size = 0, 0
		return nil
	}
	return ErrContended
}

// Forget drops the process cache of a sequence (after DROP SEQUENCE or
// a catalog change that replaced its key); unused cached values are lost.
func (a *Allocator) Forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.seqs, key)
}
