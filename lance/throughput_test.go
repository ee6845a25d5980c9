package lance

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// TestMeasureThroughput runs the throughput measurement on a small table
// (LANCE_THROUGHPUT_ROWS overrides the row count, e.g. 10000000 for the
// issue's 10M-row figure; LANCE_THROUGHPUT_MAX_BYTES the file size cap,
// 0 = the default) and checks the report is complete.
func TestMeasureThroughput(t *testing.T) {
	rows := int64(200_000)
	if s := os.Getenv("LANCE_THROUGHPUT_ROWS"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		rows = n
	}
	maxBytes := int64(2 << 20) // several files even for the small default
	if s := os.Getenv("LANCE_THROUGHPUT_MAX_BYTES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		maxBytes = n // 0 = DefaultMaxBytesPerFile
	}
	rep, err := MeasureThroughput(context.Background(), t.TempDir(), rows, maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	t.Logf("%s", b)
	if rep.ScanRows != rows || rep.Columns != 6 || rep.Files < 1 || rep.DataBytes <= 0 || rep.ArrowBytes <= 0 {
		t.Fatalf("incomplete report %s", b)
	}
	for name, v := range map[string]float64{"write": rep.WriteMBPerSec, "raw": rep.RawMBPerSec, "scan": rep.ScanMBPerSec, "ratio": rep.WriteVsRaw} {
		if !(v > 0) {
			t.Fatalf("%s rate %v", name, v)
		}
	}
}
