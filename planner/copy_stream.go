package planner

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// copyReader turns the COPY data stream into validated Arrow records in
// the table's schema, one batch at a time, as the Load adapter reads
// them. Reading and decoding the client's rows runs on its own goroutine,
// one batch ahead of the conversion, validation and encoding the
// adapter's goroutine does in Next (two cores busy on one COPY). Its
// error (the validator's, with its SQLSTATE) is kept for the client;
// the adapter only sees that the stream failed.
type copyReader struct {
	w       *writer
	ti      *tableInfo
	targets []int
	rows    *copyRowReader
	cur     arrow.RecordBatch
	err     error
	n       int64
	done    bool

	started bool
	lazy    []bool // lazyStrings of the target columns
	batches chan copyParsed
	free    chan *copyRaw // converted raw batches, for the decoder to reuse
	stop    chan struct{}
	exited  chan struct{}
}

// copyParsed is one decoded batch (raw text/csv rows, or converted
// binary rows), or the decoder's error.
type copyParsed struct {
	raw *copyRaw
	b   *copyBatch
	err error
}

func newCopyReader(w *writer, ti *tableInfo, rows *copyRowReader, targets []int) *copyReader {
	return &copyReader{w: w, ti: ti, rows: rows, targets: targets, lazy: lazyStrings(ti, targets)}
}

func (r *copyReader) Retain()                        {}
func (r *copyReader) Release()                       {}
func (r *copyReader) Schema() *arrow.Schema          { return r.ti.schema }
func (r *copyReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *copyReader) Record() arrow.RecordBatch      { return r.cur }
func (r *copyReader) Err() error                     { return r.err }

// start runs the decoder: batches of copyBatchRows rows, the last one
// shorter (possibly empty), then the channel closes; an error ends it.
// Text and csv batches travel raw (converted in Next); their buffers
// come back through free for reuse. Binary rows are converted here.
func (r *copyReader) start() {
	r.started = true
	r.batches = make(chan copyParsed, 1)
	r.free = make(chan *copyRaw, 3)
	r.stop = make(chan struct{})
	r.exited = make(chan struct{})
	go func() {
		defer close(r.exited)
		defer close(r.batches)
		for {
			var p copyParsed
			last := false
			if r.rows.binary {
				p.b, p.err = r.rows.next(copyBatchRows)
				last = p.err != nil || p.b.n < copyBatchRows
			} else {
				var raw *copyRaw
				select {
				case raw = <-r.free:
				default:
				}
				p.raw = r.rows.nextRaw(copyBatchRows, raw)
				last = p.raw.err != nil || p.raw.eof
			}
			select {
			case r.batches <- p:
			case <-r.stop:
				return
			}
			if last {
				return
			}
		}
	}()
}

// close stops the decoder and waits for it (the CopyIn is the
// session's again afterwards). Safe when it never started.
func (r *copyReader) close() {
	if !r.started {
		return
	}
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	<-r.exited
}

func (r *copyReader) Next() bool {
	r.cur = nil
	if r.done || r.err != nil {
		return false
	}
	if !r.started {
		r.start()
	}
	for {
		p, ok := <-r.batches
		if !ok {
			r.done = true
			return false
		}
		if p.raw != nil {
			p.b, p.err = r.rows.convert(p.raw)
			select {
			case r.free <- p.raw:
			default:
			}
		}
		if p.err != nil {
			r.err = p.err
			return false
		}
		if p.b.n == 0 {
			continue
		}
		p.b.lazy = r.lazy
		vecs, err := r.w.copyVecs(r.ti, r.targets, p.b)
		if err == nil {
			r.w.copyAt = copyLinesOf(r.rows, p.b)
			err = r.w.checkCopyRows(r.ti, vecs, func() { p.b.fillStrings(vecs) })
			r.w.copyAt = nil
		}
		if err != nil {
			r.err = err
			return false
		}
		rec, err := copyRecord(r.ti, r.targets, p.b, vecs)
		if err != nil {
			r.err = err
			return false
		}
		r.n += int64(p.b.n)
		r.cur = rec
		return true
	}
}
