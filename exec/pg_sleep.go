package exec

import (
	"math"
	"time"
)

// pg_sleep(seconds) waits, row by row, as PostgreSQL does; a cancel or
// statement_timeout ends the wait with 57014. NULL and negative or NaN
// durations do not wait.
func init() {
	void := Type{OIDVoid, -1}
	def("pg_sleep", sig(void, func(ec *evalCtx, a []*Vec, _ *Vec, sel []int32) error {
		ctx := ec.run.ctx
		for _, i := range sel {
			if a[0].IsNull(int(i)) {
				continue
			}
			secs := a[0].F[i]
			if math.IsNaN(secs) || secs <= 0 {
				continue
			}
			d := time.Duration(min(secs, float64(math.MaxInt64/int64(time.Second))) * float64(time.Second))
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return checkCancel(ctx)
			}
		}
		return nil
	}, TFloat8))
}
