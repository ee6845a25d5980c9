package lance

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/objstore"
)

// ThroughputReport is what MeasureThroughput measured in one run: the
// dataset write next to a raw sequential write+fsync of the same byte
// count, and a full-scan decode from the page cache.
type ThroughputReport struct {
	Rows      int64 `json:"rows"`
	Columns   int   `json:"columns"`
	Files     int   `json:"data_files"`
	DataBytes int64 `json:"data_file_bytes"` // bytes of the data files written
	// ArrowBytes is the in-memory Arrow size of the rows (what a scan
	// decodes into).
	ArrowBytes int64 `json:"arrow_bytes"`

	WriteSeconds    float64 `json:"write_seconds"`
	WriteRowsPerSec float64 `json:"write_rows_per_sec"`
	WriteMBPerSec   float64 `json:"write_mb_per_sec"` // data file bytes
	RawWriteSeconds float64 `json:"raw_write_fsync_seconds"`
	RawMBPerSec     float64 `json:"raw_write_fsync_mb_per_sec"`
	// WriteVsRaw is the write rate as a share of the raw rate (target ≥ 0.5).
	WriteVsRaw float64 `json:"write_vs_raw"`
	// WriteCPUSeconds and ScanCPUSeconds are the process's CPU time
	// (user+sys, all threads) during the write and the scan: on a shared
	// machine they say how much work was done even when wall time says
	// more about the neighbours.
	WriteCPUSeconds float64 `json:"write_cpu_seconds"`
	RawCPUSeconds   float64 `json:"raw_write_fsync_cpu_seconds"`

	ScanSeconds float64 `json:"scan_seconds"`
	// ScanMBPerSec is decoded Arrow bytes per second (target ≥ 1000).
	ScanMBPerSec   float64 `json:"scan_decoded_mb_per_sec"`
	ScanRows       int64   `json:"scan_rows"`
	ScanCPUSeconds float64 `json:"scan_cpu_seconds"`

	// PeakHeapBytes is the highest Go heap in use sampled while writing
	// (bounded by about one data file, not by the table).
	PeakHeapBytes uint64 `json:"peak_heap_bytes_while_writing"`
	MaxBytesFile  int64  `json:"max_bytes_per_file"`
}

// throughputSchema is the 6-column table of the benchmark.
var throughputSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "src", Type: arrow.PrimitiveTypes.Int64},
	{Name: "dst", Type: arrow.PrimitiveTypes.Int64},
	{Name: "weight", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
}, nil)

// repeatReader hands out one prebuilt batch until rows are produced, so
// the measurement times the writer, not data generation.
type repeatReader struct {
	rec       arrow.RecordBatch
	left      int64
	cur       arrow.RecordBatch
	refs      int64
	batchRows int64
}

func (r *repeatReader) Retain()                        { r.refs++ }
func (r *repeatReader) Release()                       { r.refs-- }
func (r *repeatReader) Schema() *arrow.Schema          { return r.rec.Schema() }
func (r *repeatReader) Record() arrow.RecordBatch      { return r.cur }
func (r *repeatReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *repeatReader) Err() error                     { return nil }
func (r *repeatReader) Next() bool {
	if r.cur != nil && r.cur != r.rec {
		r.cur.Release()
	}
	r.cur = nil
	if r.left <= 0 {
		return false
	}
	n := min(r.left, r.batchRows)
	r.left -= n
	if n == r.batchRows {
		r.cur = r.rec
	} else {
		r.cur = r.rec.NewSlice(0, n)
	}
	return true
}

func throughputBatch(rows int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, throughputSchema)
	defer b.Release()
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Int64Builder).Append(int64(i * 7919 % 1000003))
		b.Field(2).(*array.Int64Builder).Append(int64(i * 104729 % 1000003))
		if i%10 == 0 {
			b.Field(3).AppendNull()
			b.Field(4).AppendNull()
		} else {
			b.Field(3).(*array.Float64Builder).Append(float64(i) / 3)
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("label-%d", i%5000))
		}
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)))
	}
	return b.NewRecordBatch()
}

// MeasureThroughput writes a rows-row, 6-column table (int64 ×3,
// float64, utf8, timestamp; 10% nulls) as a new dataset in a scratch
// directory under dir, writes the same number of bytes raw (sequential
// write + fsync) in the same run, then scans the table back, and
// reports rates and their ratios. maxBytesPerFile 0 uses the default.
// The scratch directory is removed.
func MeasureThroughput(ctx context.Context, dir string, rows int64, maxBytesPerFile int64) (*ThroughputReport, error) {
	scratch, err := os.MkdirTemp(dir, ".lance-throughput-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	if err := os.Mkdir(filepath.Join(scratch, "store"), 0o755); err != nil {
		return nil, err
	}
	store, err := objstore.NewLocal(filepath.Join(scratch, "store"))
	if err != nil {
		return nil, err
	}
	if maxBytesPerFile <= 0 {
		maxBytesPerFile = DefaultMaxBytesPerFile
	}
	const batchRows = 64 << 10
	batch := throughputBatch(batchRows)
	defer batch.Release()
	rep := &ThroughputReport{Rows: rows, Columns: throughputSchema.NumFields(), MaxBytesFile: maxBytesPerFile}

	// sample the heap while writing
	runtime.GC()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			rep.PeakHeapBytes = max(rep.PeakHeapBytes, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	start, cpu := time.Now(), processCPU()
	ds := New(store, "t.lance", Options{})
	st, err := ds.StageOverwrite(ctx, &repeatReader{rec: batch, left: rows, batchRows: batchRows}, StageOptions{MaxBytesPerFile: maxBytesPerFile})
	if err == nil {
		ds, err = st.Commit(ctx, CommitOptions{Mode: CommitExact})
	}
	rep.WriteSeconds, rep.WriteCPUSeconds = time.Since(start).Seconds(), processCPU()-cpu
	close(stop)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	for _, fr := range ds.Fragments() {
		for _, f := range fr.Files {
			rep.DataBytes += int64(f.FileSizeBytes)
			rep.Files++
		}
	}

	// the raw floor: the same bytes, sequentially written and fsynced
	raw := make([]byte, 4<<20)
	for i := range raw {
		raw[i] = byte(i * 31)
	}
	start, cpu = time.Now(), processCPU()
	if err := rawSequentialWrite(filepath.Join(scratch, "raw.bin"), raw, rep.DataBytes); err != nil {
		return nil, err
	}
	rep.RawWriteSeconds, rep.RawCPUSeconds = time.Since(start).Seconds(), processCPU()-cpu

	// full scan from the page cache
	start, cpu = time.Now(), processCPU()
	sc, err := ds.Scan(ctx, ScanOptions{BatchRows: batchRows})
	if err != nil {
		return nil, err
	}
	for {
		rec, err := sc.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			sc.Close()
			return nil, err
		}
		rep.ScanRows += rec.NumRows()
		rec.Release()
	}
	sc.Close()
	rep.ScanSeconds, rep.ScanCPUSeconds = time.Since(start).Seconds(), processCPU()-cpu
	// the decoded size is the input's Arrow size (scan batches may be
	// slices of larger pages, which would overcount)
	rep.ArrowBytes = approxBytes(batch) * rows / batchRows
	if rep.ScanRows != rows {
		return nil, fmt.Errorf("lance: throughput scan returned %d rows, wrote %d", rep.ScanRows, rows)
	}

	const mb = 1 << 20
	rep.WriteRowsPerSec = float64(rows) / rep.WriteSeconds
	rep.WriteMBPerSec = float64(rep.DataBytes) / mb / rep.WriteSeconds
	rep.RawMBPerSec = float64(rep.DataBytes) / mb / rep.RawWriteSeconds
	rep.WriteVsRaw = rep.WriteMBPerSec / rep.RawMBPerSec
	rep.ScanMBPerSec = float64(rep.ArrowBytes) / mb / rep.ScanSeconds
	return rep, nil
}

// rawSequentialWrite writes n bytes (chunk repeated) to a new file and
// fsyncs it and its directory, like a durable Put.
func rawSequentialWrite(path string, chunk []byte, n int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for n > 0 {
		c := chunk[:min(int64(len(chunk)), n)]
		if _, err := f.Write(c); err != nil {
			f.Close()
			return err
		}
		n -= int64(len(c))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// processCPU is the process's user+system CPU time in seconds (0 where
// getrusage is unavailable).
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
