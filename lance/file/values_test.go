package file

import (
	"encoding/hex"
	"fmt"
	"math/rand"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// jsonValue renders value i of arr in the oracle's JSON convention (see
// internal/oracle/oracle.js), with numbers as float64.
func jsonValue(arr arrow.Array, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Int8:
		return float64(a.Value(i))
	case *array.Int16:
		return float64(a.Value(i))
	case *array.Int32:
		return float64(a.Value(i))
	case *array.Uint8:
		return float64(a.Value(i))
	case *array.Uint16:
		return float64(a.Value(i))
	case *array.Uint32:
		return float64(a.Value(i))
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return hex.EncodeToString(a.Value(i))
	case *array.LargeBinary:
		return hex.EncodeToString(a.Value(i))
	case *array.FixedSizeBinary:
		return hex.EncodeToString(a.Value(i))
	case *array.Date32:
		return float64(a.Value(i))
	case *array.Timestamp:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Decimal128:
		return a.Value(i).BigInt().String()
	case *array.FixedSizeList:
		n := int(a.DataType().(*arrow.FixedSizeListType).Len())
		out := make([]any, n)
		start := int(a.Offset()+i) * n
		for k := 0; k < n; k++ {
			out[k] = jsonValue(a.ListValues(), start+k)
		}
		return out
	case array.ListLike:
		s, e := a.ValueOffsets(i)
		out := make([]any, 0, e-s)
		for k := s; k < e; k++ {
			out = append(out, jsonValue(a.ListValues(), int(k)))
		}
		return out
	}
	panic(fmt.Sprintf("jsonValue: %T", arr))
}

// randomArray builds n values of dt, each null with probability nullP.
func randomArray(rng *rand.Rand, mem memory.Allocator, dt arrow.DataType, n int, nullP float64) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i := 0; i < n; i++ {
		if nullP > 0 && rng.Float64() < nullP {
			b.AppendNull()
			continue
		}
		appendRandom(rng, b, dt)
	}
	return b.NewArray()
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	rng.Read(b)
	return b
}

func appendRandom(rng *rand.Rand, b array.Builder, dt arrow.DataType) {
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.Append(int8(rng.Int()))
	case *array.Int16Builder:
		bb.Append(int16(rng.Int()))
	case *array.Int32Builder:
		bb.Append(int32(rng.Int()))
	case *array.Int64Builder:
		bb.Append(int64(rng.Uint64()))
	case *array.Uint8Builder:
		bb.Append(uint8(rng.Int()))
	case *array.Uint16Builder:
		bb.Append(uint16(rng.Int()))
	case *array.Uint32Builder:
		bb.Append(rng.Uint32())
	case *array.Uint64Builder:
		bb.Append(rng.Uint64())
	case *array.Float32Builder:
		bb.Append(rng.Float32()*2000 - 1000)
	case *array.Float64Builder:
		bb.Append(rng.NormFloat64() * 1e6)
	case *array.BooleanBuilder:
		bb.Append(rng.Intn(2) == 1)
	case *array.StringBuilder:
		bb.Append(string(randText(rng)))
	case *array.LargeStringBuilder:
		bb.Append(string(randText(rng)))
	case *array.BinaryBuilder:
		bb.Append(randBytes(rng, rng.Intn(40)))
	case *array.FixedSizeBinaryBuilder:
		bb.Append(randBytes(rng, dt.(*arrow.FixedSizeBinaryType).ByteWidth))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(rng.Int31n(40000) - 20000))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(rng.Int63() - rng.Int63()))
	case *array.Decimal128Builder:
		bb.Append(decimal128.FromI64(rng.Int63() - rng.Int63()).Mul(decimal128.FromI64(rng.Int63n(1000))))
	case *array.FixedSizeListBuilder:
		bb.Append(true)
		vb := bb.ValueBuilder()
		for k := 0; k < int(dt.(*arrow.FixedSizeListType).Len()); k++ {
			appendRandom(rng, vb, dt.(*arrow.FixedSizeListType).Elem())
		}
	case *array.ListBuilder:
		bb.Append(true)
		for k := rng.Intn(5); k > 0; k-- {
			if rng.Intn(6) == 0 {
				bb.ValueBuilder().AppendNull()
				continue
			}
			appendRandom(rng, bb.ValueBuilder(), dt.(*arrow.ListType).Elem())
		}
	case *array.LargeListBuilder:
		bb.Append(true)
		for k := rng.Intn(5); k > 0; k-- {
			appendRandom(rng, bb.ValueBuilder(), dt.(*arrow.LargeListType).Elem())
		}
	default:
		panic(fmt.Sprintf("appendRandom: %T", b))
	}
}

func randText(rng *rand.Rand) []byte {
	const alpha = "abcdefghijklmnopqrstuvwxyzé€😀 "
	r := []rune(alpha)
	out := make([]rune, rng.Intn(30))
	for i := range out {
		out[i] = r[rng.Intn(len(r))]
	}
	return []byte(string(out))
}
