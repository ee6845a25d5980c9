package exec

// The date/time arithmetic operators of the operator table
// (op_table.go), with PostgreSQL's operand and result types: date ±
// integer, date - date, timestamp ± interval (date as timestamp), time ±
// interval, time - time, date + time, timestamp - timestamp, interval ±
// interval, interval * / number, and the commuted forms.

var (
	timestampOIDs = []uint32{OIDDate, OIDTimestamp, OIDTimestamptz}
	plusMinus     = []string{"+", "-"}
)

func init() {
	for _, op := range plusMinus {
		defBinaryOp(op, []uint32{OIDDate}, intOIDs, binaryOpDef{right: TInt4, lax: true, result: TDate, kernel: dateIntKernel})
		defBinaryOp(op, []uint32{OIDDate}, []uint32{OIDInterval}, binaryOpDef{left: TTimestamp, result: TTimestamp, kernel: timestampIntervalKernel})
		for _, t := range []uint32{OIDTimestamp, OIDTimestamptz} {
			defBinaryOp(op, []uint32{t}, []uint32{OIDInterval}, binaryOpDef{result: Type{t, -1}, kernel: timestampIntervalKernel})
		}
		defBinaryOp(op, []uint32{OIDTime}, []uint32{OIDInterval}, binaryOpDef{result: TTime, kernel: timeIntervalKernel})
		defBinaryOp(op, []uint32{OIDInterval}, []uint32{OIDInterval}, binaryOpDef{result: TInterval, kernel: intervalAddKernel})
	}
	defCommuted("+", intOIDs, []uint32{OIDDate})
	defCommuted("+", []uint32{OIDInterval}, []uint32{OIDDate, OIDTimestamp, OIDTimestamptz, OIDTime})
	defCommuted("+", []uint32{OIDTime}, []uint32{OIDDate})
	defBinaryOp("-", []uint32{OIDDate}, []uint32{OIDDate}, binaryOpDef{result: TInt4, kernel: dateDiffKernel})
	defBinaryOp("-", []uint32{OIDTime}, []uint32{OIDTime}, binaryOpDef{result: TInterval, kernel: timeDiffKernel})
	defBinaryOp("+", []uint32{OIDDate}, []uint32{OIDTime}, binaryOpDef{left: TTimestamp, lax: true, result: TTimestamp, kernel: dateTimeKernel})
	for _, l := range timestampOIDs {
		for _, r := range timestampOIDs {
			if l == OIDDate && r == OIDDate {
				continue // date - date is a day count
			}
			t := TTimestamp
			if l == OIDTimestamptz || r == OIDTimestamptz {
				t = TTimestamptz
			}
			defBinaryOp("-", []uint32{l}, []uint32{r}, binaryOpDef{left: t, right: t, result: TInterval, kernel: timestampDiffKernel})
		}
	}
	for _, op := range []string{"*", "/"} {
		defBinaryOp(op, []uint32{OIDInterval}, numericOIDs, binaryOpDef{right: TFloat8, result: TInterval, kernel: intervalScaleKernel})
	}
	defCommuted("*", numericOIDs, []uint32{OIDInterval})
}

func dateIntKernel(op string, _ Type) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if !dateFinite(a[0].I[i]) { // date_pli: infinity stays
				out.I[i] = a[0].I[i]
				continue
			}
			if op == "+" {
				out.I[i] = a[0].I[i] + a[1].I[i]
			} else {
				out.I[i] = a[0].I[i] - a[1].I[i]
			}
			if !dateInRange(out.I[i]) {
				return errDateRange()
			}
		}
		return nil
	}
}

func dateDiffKernel(string, Type) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if !dateFinite(a[0].I[i]) || !dateFinite(a[1].I[i]) {
				return errf(CodeDatetimeFieldOverflow, "cannot subtract infinite dates")
			}
			out.I[i] = a[0].I[i] - a[1].I[i]
		}
		return nil
	}
}

func timestampIntervalKernel(op string, t Type) kernel {
	tz := t.OID == OIDTimestamptz
	return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if !tsFinite(a[0].I[i]) { // timestamp_pl_interval: infinity stays
				out.I[i] = a[0].I[i]
				continue
			}
			iv := a[1].V[i]
			if op == "-" {
				iv = Interval{-iv.Months, -iv.Days, -iv.Micros}
			}
			out.I[i] = addInterval(a[0].I[i], iv, tz, ec.loc)
			if !tsInRange(out.I[i]) {
				return errTSRange()
			}
		}
		return nil
	}
}

func timeIntervalKernel(op string, _ Type) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			us := a[1].V[i].Micros
			if op == "-" {
				us = -us
			}
			v := (a[0].I[i] + us) % usPerDay
			if v < 0 {
				v += usPerDay
			}
			out.I[i] = v
		}
		return nil
	}
}

func timeDiffKernel(string, Type) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.V[i] = Interval{Micros: a[0].I[i] - a[1].I[i]}
		}
		return nil
	}
}

func dateTimeKernel(string, Type) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.I[i] = a[0].I[i]
			if tsFinite(a[0].I[i]) {
				out.I[i] += a[1].I[i]
			}
		}
		return nil
	}
}

func timestampDiffKernel(string, Type) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if !tsFinite(a[0].I[i]) || !tsFinite(a[1].I[i]) {
				return errf(CodeDatetimeFieldOverflow, "cannot subtract infinite timestamps")
			}
			out.V[i] = subTimestamps(a[0].I[i], a[1].I[i])
		}
		return nil
	}
}

func intervalAddKernel(op string, _ Type) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			x, y := a[0].V[i], a[1].V[i]
			if op == "-" {
				y = Interval{-y.Months, -y.Days, -y.Micros}
			}
			v, err := addIntervals(x, y)
			if err != nil {
				return err
			}
			out.V[i] = v
		}
		return nil
	}
}

func intervalScaleKernel(op string, _ Type) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			f := a[1].F[i]
			if op == "/" {
				if f == 0 {
					return errDivZero()
				}
				if !scaleFits(a[0].V[i], 1/f) {
					return errIntervalRange()
				}
				out.V[i] = divideInterval(a[0].V[i], f)
				continue
			}
			if !scaleFits(a[0].V[i], f) {
				return errIntervalRange()
			}
			out.V[i] = scaleInterval(a[0].V[i], f)
		}
		return nil
	}
}
