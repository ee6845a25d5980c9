package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Incoming message memory. A message header announces a length; nothing
// is reserved for it. Messages that fit the connection's read buffer
// (readBufferSize) pass through it; a larger one is assembled in a buffer
// that grows only as its bytes arrive, and is handed to the decoder once
// complete. What a connection holds is therefore bounded by what the
// client actually sent: the read buffer plus, at most, one message of
// Config.MaxMessageSize (the per-connection cap). The assembled bytes are
// charged to the server's Config.MaxBufferedBytes (the server-wide cap).
//
// A message over MaxMessageSize, or one that would pass the server-wide
// cap, is read through without being kept and its statement fails with
// 54000 or 53200; the connection stays in step and usable, as after any
// statement error. (Ending the connection instead would lose the error
// for clients such as libpq, which report only "server closed the
// connection unexpectedly" after a FATAL error; reading on also means the
// client, still sending, is not reset.)
//
// A message that has begun must keep arriving: every wait for more of
// its bytes is bounded by Config.MessageTimeout, so a client that sends
// half a message and stops is disconnected (FATAL 08P01) instead of
// holding its buffer forever.

// readBufferSize is the per-connection read buffer; larger messages are
// assembled separately.
const readBufferSize = 64 << 10

// messageReader reads the connection for the pgproto3 decoder. It never
// hands out bytes past the end of the current message, so the bytes of
// the messages after it stay in br, where aheadExecute (pipeline.go) scans
// them.
type messageReader struct {
	br   *bufio.Reader
	left int // bytes of the current message not handed out yet

	// A message larger than br: assembled in msg (len = bytes arrived,
	// total = 1+length) before its first byte is handed out.
	msg        []byte
	total      int
	typ        byte
	assembling bool
	held       int64 // bytes of budget reserved for msg

	maxBody int         // the decoder rejects larger bodies (54000)
	budget  *byteBudget // server-wide; nil = unlimited
	// arm bounds the next wait for bytes of a message that has begun
	// (false: a wake-up is pending, leave the deadline alone); disarm ends
	// that bound once the message is complete.
	arm    func() bool
	disarm func()
	armed  bool
	inMsg  bool // a message's first byte has arrived, its last not yet
}

func newMessageReader(r io.Reader) *messageReader {
	m := &messageReader{maxBody: -1}
	m.br = bufio.NewReaderSize(&progressReader{r: r, m: m}, readBufferSize)
	return m
}

// progressReader is the connection under br: while a message is in
// progress, every read of it is bounded by the message timeout (re-armed
// per read, so a slow but steady client is not cut off).
type progressReader struct {
	r io.Reader
	m *messageReader
}

func (p *progressReader) Read(b []byte) (int, error) {
	if p.m.inMsg && p.m.arm != nil && p.m.arm() {
		p.m.armed = true
	}
	return p.r.Read(b)
}

// errIncompleteMessage: the client stopped sending in the middle of a
// message for longer than the message timeout.
var errIncompleteMessage = errors.New("wire: incomplete message")

// droppedError is a message read through and discarded: over the
// message size limit (tooBig) or the server-wide buffer budget.
type droppedError struct {
	msgType byte
	size    int // the message length, type byte excluded (as announced)
	tooBig  bool
}

func (e *droppedError) Error() string { return "wire: incoming message dropped" }

// pgError is the statement error the client receives for it.
func (e *droppedError) pgError(maxMessage int, budget int64) *Error {
	if e.tooBig {
		return &Error{Severity: SeverityError, Code: CodeProgramLimitExceeded,
			Message: fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes", e.size-4, maxMessage)}
	}
	return &Error{Severity: SeverityError, Code: CodeOutOfMemory, Message: "out of memory",
		Detail: fmt.Sprintf("A message of %d bytes did not fit in the server's %d bytes for incoming messages.", e.size-4, budget)}
}

func (m *messageReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if m.left == 0 && !m.assembling {
		if err := m.header(); err != nil {
			return 0, err
		}
	}
	if m.assembling {
		if err := m.assemble(); err != nil {
			return 0, err
		}
	}
	if m.msg != nil {
		n := copy(p, m.msg[m.total-m.left:])
		m.left -= n
		if m.left == 0 {
			m.release()
			m.done()
		}
		return n, nil
	}
	if len(p) > m.left {
		p = p[:m.left]
	}
	n, err := m.br.Read(p)
	m.left -= n
	if m.left == 0 {
		m.done()
	}
	return n, m.mapErr(err)
}

// header waits for the next message's header and decides how its body
// travels.
func (m *messageReader) header() error {
	// The first byte may take as long as the session is allowed to idle;
	// from then on the message has begun.
	if _, err := m.br.Peek(1); err != nil {
		return err
	}
	m.inMsg = true
	hdr, err := m.br.Peek(5)
	if err != nil {
		// a short or failed header: hand out what there is and let the
		// decoder report it (unless the client stopped sending it)
		if err = m.mapErr(err); len(hdr) == 0 || errors.Is(err, errIncompleteMessage) {
			return err
		}
		m.left = len(hdr)
		return nil
	}
	n := int(binary.BigEndian.Uint32(hdr[1:5]))
	if n < 4 || n > 1<<31-1 {
		n = 4 // malformed: the decoder rejects the header
	}
	m.left = 1 + n
	if m.maxBody >= 0 && n-4 > m.maxBody {
		m.total, m.typ, m.msg = m.left, hdr[0], nil
		return m.discard(true)
	}
	if m.left > m.br.Size() {
		m.total, m.typ, m.assembling = m.left, hdr[0], true
		m.msg = nil
	}
	return nil
}

// assemble reads the rest of a large message into msg, growing it as
// bytes arrive.
func (m *messageReader) assemble() error {
	for len(m.msg) < m.total {
		if len(m.msg) == cap(m.msg) {
			grow := min(m.total, max(2*cap(m.msg), m.br.Size()))
			if !m.budget.reserve(int64(grow) - m.held) {
				return m.discard(false)
			}
			nb := make([]byte, len(m.msg), grow)
			copy(nb, m.msg)
			m.msg = nb
			m.held = int64(grow)
		}
		k, err := m.br.Read(m.msg[len(m.msg):cap(m.msg)])
		m.msg = m.msg[:len(m.msg)+k]
		if err != nil {
			if errors.Is(err, io.EOF) {
				// The stream ends inside the message: the client is gone.
				// Handing the partial bytes to the decoder would make it
				// reserve the announced length (up to MaxMessageSize) only
				// to report a truncation nobody receives.
				m.release()
				m.assembling, m.left, m.inMsg = false, 0, false
				return io.ErrUnexpectedEOF
			}
			// (resumable: a cancelled COPY reads on later)
			return m.mapErr(err)
		}
	}
	m.assembling = false
	return nil
}

// discard reads the rest of a message that cannot be held and drops it,
// keeping the stream in step.
func (m *messageReader) discard(tooBig bool) error {
	typ, size := m.typ, m.total-1
	rest := m.total - len(m.msg)
	m.release()
	for rest > 0 {
		k, err := m.br.Discard(min(rest, max(m.br.Buffered(), 1)))
		rest -= k
		if err != nil {
			// the connection is unusable; the decoder sees the end
			m.assembling, m.left, m.inMsg = false, 0, false
			return m.mapErr(err)
		}
	}
	m.assembling, m.left = false, 0
	m.done()
	return &droppedError{msgType: typ, size: size, tooBig: tooBig}
}

// release gives back the assembled message's memory and budget.
func (m *messageReader) release() {
	m.budget.release(m.held)
	m.held, m.msg, m.total = 0, nil, 0
}

// drop releases everything when the connection ends.
func (m *messageReader) drop() {
	m.release()
	m.assembling, m.left, m.inMsg = false, 0, false
}

func (m *messageReader) done() {
	m.inMsg = false
	if m.armed {
		m.armed = false
		m.disarm()
	}
}

func (m *messageReader) mapErr(err error) error {
	if err != nil && m.armed && errors.Is(err, os.ErrDeadlineExceeded) {
		return errIncompleteMessage
	}
	return err
}

// byteBudget is a server-wide count of bytes held for incoming messages.
type byteBudget struct {
	mu         sync.Mutex
	limit, use int64
	peak       int64
}

// reserve takes n bytes (n may be negative); false when they would pass
// the limit.
func (b *byteBudget) reserve(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > 0 && b.use+n > b.limit {
		return false
	}
	b.use += n
	b.peak = max(b.peak, b.use)
	return true
}

func (b *byteBudget) release(n int64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	b.use -= n
	b.mu.Unlock()
}

// inUse reports the bytes held now and the most ever held.
func (b *byteBudget) inUse() (now, peak int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.use, b.peak
}

// messageTypeName names a frontend message type as pgproto3's errors do
// (the loop decides from it how to resynchronize).
func messageTypeName(t byte) string {
	switch t {
	case 'Q':
		return "Query"
	case 'F':
		return "FunctionCall"
	case 'P':
		return "Parse"
	case 'B':
		return "Bind"
	case 'd':
		return "CopyData"
	}
	return fmt.Sprintf("message %q", t)
}
