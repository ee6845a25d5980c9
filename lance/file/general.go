package file

import (
	"encoding/binary"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// General (block) compression of a mini-block chunk's first value buffer,
// used by Lance when a field asks for lance-encoding:compression=zstd.
// Lance frames a zstd buffer as a u64 uncompressed length followed by a
// zstd frame (older writers: a bare frame).

const (
	schemeLZ4  = 1
	schemeZstd = 2

	zstdMagic = 0xFD2FB528
	// maxGeneralBytes bounds one decompressed chunk buffer (a chunk is at
	// most 4096 values).
	maxGeneralBytes = 4 << 20
)

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
	zstdErr  error
)

func zstdDecoder() (*zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdDec, zstdErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
	})
	return zstdDec, zstdErr
}

func decompressGeneral(col string, scheme int, b []byte) ([]byte, error) {
	if scheme != schemeZstd {
		return nil, unsupported(col, "general compression scheme %d (only zstd)", scheme)
	}
	dec, err := zstdDecoder()
	if err != nil {
		return nil, unsupported(col, "zstd: %v", err)
	}
	var want uint64
	if len(b) >= 4 && binary.LittleEndian.Uint32(b) != zstdMagic {
		if len(b) < 8 {
			return nil, corrupt(col, "zstd buffer of %d bytes", len(b))
		}
		want = binary.LittleEndian.Uint64(b)
		b = b[8:]
		if want > maxGeneralBytes {
			return nil, corrupt(col, "zstd buffer claims %d bytes", want)
		}
	}
	out, err := dec.DecodeAll(b, make([]byte, 0, want))
	if err != nil {
		return nil, corrupt(col, "zstd: %v", err)
	}
	if want != 0 && uint64(len(out)) != want {
		return nil, corrupt(col, "zstd buffer decodes to %d bytes, header says %d", len(out), want)
	}
	if len(out) > maxGeneralBytes {
		return nil, corrupt(col, "zstd buffer decodes to %d bytes", len(out))
	}
	return out, nil
}
