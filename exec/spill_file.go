package exec

// SpillFile is a spill file (spill.go) for results other packages hold
// past their memory budget: batches written in order, read back once
// from the start. Unlinked at creation and never fsynced, like every
// spill file; a full disk is 53100.
type SpillFile struct{ f *spillFile }

// NewSpillFile creates a spill file in SpillDir.
func NewSpillFile() (*SpillFile, error) {
	f, err := newSpillFile()
	if err != nil {
		return nil, err
	}
	return &SpillFile{f: f}, nil
}

// Write appends b's live rows.
func (s *SpillFile) Write(b *Batch) error { return s.f.write(b) }

// Rewind ends writing; Read then returns the batches from the first.
func (s *SpillFile) Rewind() error { return s.f.rewind() }

// Read returns the next batch, or nil after the last.
func (s *SpillFile) Read() (*Batch, error) { return s.f.read() }

// Bytes is the encoded size written.
func (s *SpillFile) Bytes() int64 { return s.f.bytes }

// Close closes (and so frees) the file.
func (s *SpillFile) Close() { s.f.close() }
