package exec

import (
	"sync"
)

// prefetchNode runs its input (a scan, possibly under filters) in a
// second goroutine so decoding and filtering overlap with the consumer's
// work (aggregation, top-N): a two-stage pipeline on two cores. Batches
// are immutable once emitted, so handing them across is safe; the input
// touches no per-query state that is not safe to share (see prefetchable).
type prefetchNode struct {
	input plan
}

// prefetchDepth bounds the batches in flight between the two stages.
const prefetchDepth = 8

func (p *prefetchNode) columns() []colInfo { return p.input.columns() }

func (p *prefetchNode) run(ec *evalCtx, emit func(*Batch) error) error {
	batches := make(chan *Batch, prefetchDepth)
	done := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(done) }) }
	// also on a panic in the consumer: the producer must not stay blocked
	defer stop()
	result := make(chan error, 1)
	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = internalPanic(r)
			}
			close(batches)
			result <- err
		}()
		err = p.input.run(ec, func(b *Batch) error {
			select {
			case batches <- b:
				return nil
			case <-done:
				return errStop
			}
		})
	}()
	var consumerErr error
	for b := range batches {
		if consumerErr != nil {
			continue // drain until the producer notices done
		}
		if err := emit(b); err != nil {
			consumerErr = err
			stop()
		}
	}
	producerErr := <-result
	if consumerErr != nil {
		return consumerErr
	}
	if producerErr == errStop {
		return nil
	}
	return producerErr
}

// prefetchable reports whether p may run in another goroutine: a table
// scan (not a key lookup) under filters built only from expressions that
// touch no shared per-query state (no subqueries, outer references or
// catalog lookups).
func prefetchable(p plan) bool {
	switch x := p.(type) {
	case *scanNode:
		// a key lookup reads the few rows of its keys: handing them to
		// another goroutine costs a wake-up (a thread switch, scheduling
		// latency on a busy machine) and overlaps nothing
		return len(x.keyVals) == 0
	case *filterNode:
		return plainExpr(x.pred) && prefetchable(x.input)
	}
	return false
}

// plainExpr reports whether e is made of columns, constants, parameters,
// boolean logic, NULL tests, IN lists, casts and comparison or arithmetic
// operators only.
func plainExpr(e Expr) bool {
	ok := true
	walkExpr(e, func(x Expr) {
		switch y := x.(type) {
		case *colRef, *constExpr, *foldedCast, *paramExpr, *boolExpr, *nullTest, *boolTest, *inListExpr, *castExpr, *coalesceExpr:
		case *opExpr:
			if _, cmp := cmpOps[y.name]; !cmp && !arithOps[y.name] {
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok
}

// arithOps are the arithmetic operators plainExpr accepts.
var arithOps = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true}

// withPrefetch wraps p in a prefetchNode when that is safe.
func withPrefetch(p plan) plan {
	if prefetchable(p) {
		return &prefetchNode{input: p}
	}
	return p
}
