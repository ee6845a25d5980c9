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
