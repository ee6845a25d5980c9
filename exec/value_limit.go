package exec

import "fmt"

// maxValueBytes is the largest value the engine builds: PostgreSQL's
// MaxAllocSize (1 GB - 1), past which it answers 54000 instead of
// allocating. A variable so tests can lower it.
var maxValueBytes = 1<<30 - 1

// checkValueGrowth fails, as PostgreSQL's string buffers do, when a value
// of have bytes would grow by add past maxValueBytes.
func checkValueGrowth(have, add int) error {
	if have+add > maxValueBytes {
		e := errf(CodeProgramLimitExceeded, "out of memory")
		e.Detail = fmt.Sprintf("Cannot enlarge string buffer containing %d bytes by %d more bytes.", have, add)
		return e
	}
	return nil
}

// largeValue is the size from which a value built by an expression is
// checked against the statement's memory budget (smaller ones are not
// worth an atomic operation per row).
const largeValue = 64 << 10

// checkValueBudget fails with 53200 when a value of n bytes does not fit
// in what the statement's (and the server's) memory budget has left. The
// value is transient, so the bytes are given back at once: this bounds
// one huge value, not the sum of the values in flight.
func checkValueBudget(ec *evalCtx, n int64) error {
	if n < largeValue || ec == nil || ec.run == nil || ec.run.budget == nil {
		return nil
	}
	err := ec.run.budget.reserve(n)
	ec.run.budget.release(n)
	return err
}
