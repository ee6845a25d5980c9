package graphsql

import (
	"context"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/exec"
)

// TestConcurrentCallsAndScans: racing creates of one name give exactly
// one success (the rest 42710), and one set of views scanned from many
// goroutines while writes land stays consistent (run under -race).
func TestConcurrentCallsAndScans(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)
	insertPeople(t, g, "main", "1", 1)
	views, _ := Tables(ctx, g, "main")
	cat := WithViews(exec.NewMemCatalog(), views)

	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, errs[i] = Call(ctx, g, Env{}, "create_branch", []any{"same"})
		}(i)
	}
	scans := make([][]string, n)
	scanErrs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			scans[i], scanErrs[i] = tryQuery(cat, "SELECT count(*) >= 3, bool_and(manifest_version >= 1) FROM graph.commits")
		}(i)
	}
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, writeErr = tryInsertPeople(g, "main", "2", 2)
	}()
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		wantCode(t, err, CodeDuplicateObject)
	}
	if ok != 1 {
		t.Fatalf("%d of %d racing creates succeeded: %v", ok, n, errs)
	}
	for i := range scans {
		if scanErrs[i] != nil || len(scans[i]) != 1 || scans[i][0] != "t|t" {
			t.Fatalf("scan %d: %q %v", i, scans[i], scanErrs[i])
		}
	}
}
