package exec

import "unsafe"

// textBuilder accumulates a text value (string_agg's) in chunks instead of
// one buffer that doubles. A doubling buffer needs its old and new
// capacity at once when it grows — 1.5 GB for the last step towards
// PostgreSQL's 1 GB value limit — so a statement budget near 1 GB failed
// with 53200 long before the value reached the limit that PostgreSQL
// reports as 54000. Chunks are never copied while the value grows; the
// bytes held stay within one chunk of the value's length.
type textBuilder struct {
	chunks [][]byte
	// w is the chunk being written: the ones before it are full, or back
	// a string String handed out and must not be written again.
	w int
	n int
}

// maxTextChunk bounds one chunk: the slack past the value's end is at
// most this much.
const maxTextChunk = 16 << 20

func (b *textBuilder) Len() int { return b.n }

// reserve makes room for add more bytes and reports how many it
// allocated (0 when the chunks have room): the caller charges them to
// the statement's budget.
func (b *textBuilder) reserve(add int) int {
	free := 0
	for _, c := range b.chunks[b.w:] {
		free += cap(c) - len(c)
	}
	if free >= add {
		return 0
	}
	c := chunkSize(b.n, add-free)
	b.chunks = append(b.chunks, make([]byte, 0, c))
	return c
}

// chunkSize is the capacity of the next chunk of a value of n bytes that
// needs add more: a quarter of the value's size (the slack stays under a
// quarter of the value and the number of chunks grows logarithmically),
// small for short values, at most maxTextChunk unless one write is
// larger.
func chunkSize(n, add int) int {
	return max(add, min(max(n/4, 64), maxTextChunk))
}

func (b *textBuilder) WriteString(s string) {
	n := b.n
	b.n += len(s)
	for len(s) > 0 {
		if b.w == len(b.chunks) {
			b.chunks = append(b.chunks, make([]byte, 0, chunkSize(n, len(s))))
		}
		c := b.chunks[b.w]
		m := min(len(s), cap(c)-len(c))
		b.chunks[b.w] = append(c, s[:m]...)
		s, n = s[m:], n+m
		if len(s) > 0 {
			b.w++
		}
	}
}

// String returns the value. Chunks are joined into one (which then
// replaces them, so the old ones are garbage at once) and the result
// shares that chunk's bytes; later writes go to a new chunk.
func (b *textBuilder) String() string {
	if b.n == 0 {
		return ""
	}
	one := b.chunks[0]
	if len(b.chunks) > 1 {
		one = make([]byte, 0, b.n)
		for _, c := range b.chunks {
			one = append(one, c...)
		}
	}
	b.chunks, b.w = [][]byte{one}, 1
	return unsafe.String(&one[0], len(one))
}
