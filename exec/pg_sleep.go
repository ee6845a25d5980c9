package exec

import (
	"context"
	"math"
	"time"
)

// pg_sleep(seconds), pg_sleep_for(interval) and pg_sleep_until(timestamp
// with time zone) wait, row by row, as PostgreSQL's do; a cancel or
// statement_timeout ends the wait with 57014. NULL, negative, NaN and
// past durations do not wait.
func init() {
	void := Type{OIDVoid, -1}
	def("pg_sleep", sig(void, sleepKernel(func(a []*Vec, i int32) time.Duration {
		return secondsDuration(a[0].F[i])
	}), TFloat8))
	def("pg_sleep_for", sig(void, sleepKernel(func(a []*Vec, i int32) time.Duration {
		e, err := extractInterval("epoch", a[0].V[i])
		if err != nil {
			return 0
		}
		f, _ := e.Float64()
		return secondsDuration(f)
	}), TInterval))
	def("pg_sleep_until", sig(void, sleepKernel(func(a []*Vec, i int32) time.Duration {
		return time.Until(time.UnixMicro(a[0].I[i]))
	}), TTimestamptz))
}

// sleepKernel waits, for each row whose argument is not NULL, the
// duration wait gives (nothing when it is not positive).
func sleepKernel(wait func(a []*Vec, i int32) time.Duration) kernel {
	return func(ec *evalCtx, a []*Vec, _ *Vec, sel []int32) error {
		for _, i := range sel {
			if a[0].IsNull(int(i)) {
				continue
			}
			if err := sleepCtx(ec.run.ctx, wait(a, i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// secondsDuration converts seconds to a duration (0 for NaN and
// negatives; capped at the longest duration).
func secondsDuration(secs float64) time.Duration {
	if math.IsNaN(secs) || secs <= 0 {
		return 0
	}
	return time.Duration(min(secs, float64(math.MaxInt64/int64(time.Second))) * float64(time.Second))
}

// sleepCtx waits d unless ctx ends first (57014).
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return checkCancel(ctx)
	}
}
