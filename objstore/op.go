package objstore

// Op names a Store operation, for wrappers that count, trace or fail
// operations by kind.
type Op uint8

// Store operations.
const (
	OpGet Op = iota + 1
	OpGetRange
	OpPut
	OpPutIfAbsent
	OpList
	OpDelete
	OpStat
)

// AllOps lists every operation kind in declaration order.
var AllOps = []Op{OpGet, OpGetRange, OpPut, OpPutIfAbsent, OpList, OpDelete, OpStat}

func (o Op) String() string {
	switch o {
	case OpGet:
		return "get"
	case OpGetRange:
		return "getrange"
	case OpPut:
		return "put"
	case OpPutIfAbsent:
		return "putifabsent"
	case OpList:
		return "list"
	case OpDelete:
		return "delete"
	case OpStat:
		return "stat"
	}
	return "unknown"
}

// IsWrite reports whether the operation changes durable state.
func (o Op) IsWrite() bool { return o == OpPut || o == OpPutIfAbsent || o == OpDelete }

// OpMask selects a set of operation kinds.
type OpMask uint16

// Common masks.
const (
	MaskAll    OpMask = 0xffff
	MaskWrites OpMask = 1<<OpPut | 1<<OpPutIfAbsent | 1<<OpDelete
	MaskReads  OpMask = 1<<OpGet | 1<<OpGetRange | 1<<OpList | 1<<OpStat
)

// MaskOf builds a mask from operation kinds.
func MaskOf(ops ...Op) OpMask {
	var m OpMask
	for _, o := range ops {
		m |= 1 << o
	}
	return m
}

// Has reports whether the mask selects o.
func (m OpMask) Has(o Op) bool { return m&(1<<o) != 0 }
