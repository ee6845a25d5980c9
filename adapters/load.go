package adapters

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/protocol"
)

// The Load adapter (registry kind "load"): COPY FROM. Rows arrive as a
// one-shot stream (the client's COPY data) and are written straight into
// staged Lance data files of the target table — cut every
// WriteOptions.MaxRowsPerFile rows or MaxBytesPerFile bytes, each file
// stored as soon as it is full — so memory is about one data file
// whatever the row count, there is no row cap, and any number of rows is
// one staged Append and one graph commit. The stream is read in Apply,
// after revalidation, with the sidecar durable and the table's gate
// held (mutation.go stageLate): a read-set change before that
// re-prepares transparently, and in-process writers of the table wait.
// Effects, recovery and first touch on a branch are Mutation's (staged
// Lance transaction per table, exact commit at pin+1; armed intents roll
// back, confirmed ones roll forward). The source cannot be replayed, so
// a read-set change found after it was consumed answers 40001 (the
// client retries the statement), and an error while streaming is final.

// DefaultLoadBytesPerFile cuts a load's data files at about 32 MB of
// Arrow data (unless WriteOptions.MaxBytesPerFile says otherwise): a
// file is built in memory before its one Put, so this bounds a COPY's
// memory whatever its row width.
const DefaultLoadBytesPerFile = 32 << 20

// Load stages the rows of a COPY FROM into a table (existing, created or
// rewritten in this stage). src is read once; see Graph.Load. A stage
// whose only row changes are loads (probes allowed) commits with writer
// kind Load.
func (s *Stage) Load(table string, src Source) error {
	b, err := s.resolve(table)
	if err != nil {
		return err
	}
	if b.pending != nil {
		b.pending.ops.inserts = append(b.pending.ops.inserts, src)
		b.pending.ops.loads++
		return nil
	}
	if err := s.Insert(table, src); err != nil {
		return err
	}
	s.ops[b.key].loads++
	return nil
}

// Load runs a COPY FROM into table as one graph commit: the rows of src
// (read exactly once, streamed in bounded memory) are appended through
// the Load adapter. When the write must be re-prepared after src was
// consumed, it fails with 40001 (protocol.IsReadSetChanged) and nothing
// is written. validate, when not nil, runs in the staging function
// before the rows are staged (register probes there: s.Probe).
func (g *Graph) Load(ctx context.Context, o WriteOptions, table string, src Source, validate StageFunc) (*protocol.Receipt, error) {
	if o.MaxBytesPerFile == 0 {
		o.MaxBytesPerFile = DefaultLoadBytesPerFile
	}
	once := OnceSource(src)
	return g.Write(ctx, o, func(ctx context.Context, s *Stage) error {
		if validate != nil {
			if err := validate(ctx, s); err != nil {
				return err
			}
		}
		return s.Load(table, once)
	})
}

// OnceSource wraps a one-shot stream as a Source: the first call returns
// it, a later one (a re-prepare after the stream was consumed) fails
// with 40001, so the statement is retried by its client rather than
// written with missing rows.
func OnceSource(src Source) Source {
	var mu sync.Mutex
	used := false
	return func(ctx context.Context) (array.RecordReader, error) {
		mu.Lock()
		defer mu.Unlock()
		if used {
			return nil, protocol.Errorf(protocol.KindReadSetChanged, nil,
				"the table changed while the COPY data was being written; the COPY must be run again")
		}
		used = true
		return src(ctx)
	}
}
