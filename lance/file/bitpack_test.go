package file

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

func TestFastLanesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, T := range []int{8, 16, 32, 64} {
		for w := 0; w <= T; w++ {
			in := make([]uint64, flBlock)
			for i := range in {
				in[i] = rng.Uint64()
				if w < 64 {
					in[i] &= 1<<uint(w) - 1
				}
			}
			packed := packBlock(T, w, in)
			if len(packed) != packedBytes(T, w) {
				t.Fatalf("T=%d w=%d: %d bytes", T, w, len(packed))
			}
			out := make([]uint64, flBlock)
			unpackBlock(T, w, packed, out)
			for i := range in {
				if in[i] != out[i] {
					t.Fatalf("T=%d w=%d: value %d = %d, want %d", T, w, i, out[i], in[i])
				}
			}
		}
	}
}

// The FastLanes order is fixed: with T=16, W=1 the first packed word of
// lane 0 holds rows 0..15 of lane 0, i.e. elements 0,128,...,896 then
// 64,192,...,960.
func TestFastLanesLayout(t *testing.T) {
	in := make([]uint64, flBlock)
	in[0], in[128], in[64+7*128] = 1, 1, 1
	p := packBlock(16, 1, in)
	if got := binary.LittleEndian.Uint16(p); got != 1|1<<1|1<<15 {
		t.Fatalf("word 0 = %016b", got)
	}
}

func TestOutOfLineTail(t *testing.T) {
	vals := make([]uint64, flBlock)
	for i := range vals {
		vals[i] = uint64(i % 2)
	}
	block := packBlock(16, 1, vals)
	// 1030 levels: one packed block and a raw 6-value tail.
	buf := append([]byte{}, block...)
	for i := 0; i < 6; i++ {
		buf = binary.LittleEndian.AppendUint16(buf, uint16(i%2))
	}
	out, err := unpackOutOfLine("c", 16, 1, buf, 1030)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1030; i++ {
		if got := binary.LittleEndian.Uint16(out[2*i:]); got != uint16(i%2) {
			t.Fatalf("level %d = %d", i, got)
		}
	}
	// Same count with a packed (padded) tail block.
	buf = append(append([]byte{}, block...), block...)
	if _, err := unpackOutOfLine("c", 16, 1, buf, 1030); err != nil {
		t.Fatal(err)
	}
	if _, err := unpackOutOfLine("c", 16, 1, buf[:10], 1030); !IsCorrupt(err) {
		t.Fatalf("short buffer: %v", err)
	}
	// Inline: width word then one block.
	in := binary.LittleEndian.AppendUint16(nil, 1)
	in = append(in, block...)
	got, err := unpackInline("c", 16, in, 700)
	if err != nil || len(got) != 1400 || binary.LittleEndian.Uint16(got[2:]) != 1 {
		t.Fatalf("inline: %v", err)
	}
}
