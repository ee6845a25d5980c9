package exec

// The arithmetic operators of the operator table (op_table.go): + - * /
// % ^ over the numeric types, as the promoted type of the two operands
// (promoteNumeric; ^ as double precision, or numeric when either side
// is); the bit operators & | # over the integers, and << >> by an int4
// shift count.

var (
	numericOIDs = []uint32{OIDInt2, OIDInt4, OIDInt8, OIDNumeric, OIDFloat4, OIDFloat8}
	intOIDs     = []uint32{OIDInt2, OIDInt4, OIDInt8}
)

func init() {
	for _, l := range numericOIDs {
		for _, r := range numericOIDs {
			lt, rt := Type{l, -1}, Type{r, -1}
			t := promoteNumeric(lt, rt)
			for _, op := range []string{"+", "-", "*", "/", "%"} {
				if op == "%" && (t.OID == OIDFloat4 || t.OID == OIDFloat8) {
					continue // no float modulo (OIDs: Kind's table fills in a later init)
				}
				defBinaryOp(op, []uint32{l}, []uint32{r}, binaryOpDef{left: t, right: t, result: t, kernel: arithKernel})
			}
			pt := TFloat8
			if l == OIDNumeric || r == OIDNumeric {
				pt = TNumeric
			}
			defBinaryOp("^", []uint32{l}, []uint32{r}, binaryOpDef{left: pt, right: pt, result: pt, kernel: arithKernel})
		}
	}
	for _, l := range intOIDs {
		for _, r := range intOIDs {
			t := promoteNumeric(Type{l, -1}, Type{r, -1})
			for _, op := range []string{"&", "|", "#"} {
				defBinaryOp(op, []uint32{l}, []uint32{r}, binaryOpDef{left: t, right: t, result: t, kernel: intArith})
			}
			for _, op := range []string{"<<", ">>"} {
				defBinaryOp(op, []uint32{l}, []uint32{r}, binaryOpDef{right: TInt4, result: Type{l, -1}, kernel: intArith})
			}
		}
	}
}

// arithKernel computes op in the representation of t's kind.
func arithKernel(op string, t Type) kernel {
	switch t.Kind() {
	case KInt:
		return intArith(op, t)
	case KFloat:
		return floatArith(op, t)
	}
	return numArith(op)
}
