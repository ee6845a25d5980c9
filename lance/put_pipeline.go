package lance

import (
	"context"
	"sync"

	"github.com/pggraph/pggraph/objstore"
)

// putPipeline stores finished data files in the background while the
// caller builds the next one: putWorkers goroutines run the Puts (two,
// so one file's fsync overlaps the next file's write and fsync — on a
// busy disk an fsync waits mostly for the journal, not for bandwidth),
// the hand-off has no queue (put blocks while every worker is busy), so
// at most putWorkers+1 file buffers exist at a time — those being stored
// and the one being built — and they are reused from file to file, which
// keeps a long write from allocating (and zeroing) a fresh buffer per
// file. Data files are referenced by nothing until the commit, so the
// order in which they become durable does not matter, and each is
// created under its final name (objstore.PutNew: one durable round).
type putPipeline struct {
	ctx   context.Context
	store objstore.Store
	jobs  chan putJob
	free  chan *fileBuffer // buffers whose Put is done
	done  sync.WaitGroup   // the workers
	// largest is the biggest file so far: new buffers start at its size
	largest int
	made    int // buffers allocated (at most putWorkers+1)

	mu     sync.Mutex
	err    error // the first failed Put
	closed bool
}

type putJob struct {
	key string
	buf *fileBuffer
}

// putWorkers is how many Puts of data files run at once.
const putWorkers = 2

func newPutPipeline(ctx context.Context, store objstore.Store) *putPipeline {
	p := &putPipeline{ctx: ctx, store: store, jobs: make(chan putJob), free: make(chan *fileBuffer, putWorkers+1)}
	p.done.Add(putWorkers)
	for range putWorkers {
		go p.run()
	}
	return p
}

func (p *putPipeline) run() {
	defer p.done.Done()
	for j := range p.jobs {
		if p.failed() == nil {
			if err := objstore.PutNew(p.ctx, p.store, j.key, j.buf.b); err != nil {
				p.mu.Lock()
				if p.err == nil {
					p.err = err
				}
				p.mu.Unlock()
			}
		}
		j.buf.b, j.buf.expect = j.buf.b[:0], 0
		p.free <- j.buf
	}
}

func (p *putPipeline) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// buffer returns an empty buffer for the next file: a reused one when a
// Put has finished, else a new one of at least hint bytes.
func (p *putPipeline) buffer(hint int64) (*fileBuffer, error) {
	if err := p.failed(); err != nil {
		return nil, err
	}
	select {
	case b := <-p.free:
		return b, nil
	default:
	}
	p.made++
	// an eighth of headroom over the largest file so far, so a second
	// buffer of similar files does not have to grow
	return &fileBuffer{b: make([]byte, 0, max(int(hint), p.largest+p.largest/8, minFileBuffer))}, nil
}

// minFileBuffer is a new buffer's least capacity: small, because a
// 1-row write's file is a few KiB (a 1 MiB floor cost an allocation and
// zeroing of 1 MiB per commit, a 64 KiB one still a third of a 1-row
// INSERT's allocated bytes), and a growing buffer doubles, then jumps
// to the expected full-file size (fileBuffer.expect); a larger batch
// asks for twice its size up front (writeFragments).
const minFileBuffer = 8 << 10

// put hands a finished file to a worker; it blocks while every worker
// is busy and reports an earlier Put's failure.
func (p *putPipeline) put(key string, b *fileBuffer) error {
	if err := p.failed(); err != nil {
		return err
	}
	p.largest = max(p.largest, len(b.b))
	select {
	case p.jobs <- putJob{key, b}:
		return nil
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
}

// wait lets every handed-over file be stored and returns the first
// failure.
func (p *putPipeline) wait() error {
	p.close()
	return p.failed()
}

// close stops the workers after the files already handed over (it is
// safe to call more than once).
func (p *putPipeline) close() {
	if !p.closed {
		p.closed = true
		close(p.jobs)
	}
	p.done.Wait()
}

// fileBuffer is the contiguous in-memory image of one data file (the
// file writer's io.Writer). It at least doubles when it must grow, so
// building a file copies each byte about once more at worst; once the
// file holds an eighth of the expected size of a full file it grows
// straight to that size (a small write never reserves a full file).
type fileBuffer struct {
	b      []byte
	expect int64 // the expected size of a full file (a hint, 0 = none)
}

func (f *fileBuffer) Write(q []byte) (int, error) {
	if len(f.b)+len(q) > cap(f.b) {
		c := max(2*cap(f.b), len(f.b)+len(q))
		if e := int(f.expect); e > c && len(f.b) >= e/8 {
			c = e
		}
		nb := make([]byte, len(f.b), c)
		copy(nb, f.b)
		f.b = nb
	}
	f.b = append(f.b, q...)
	return len(q), nil
}
