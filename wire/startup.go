package wire

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// Startup packet codes (the first 4 bytes after the length).
const (
	codeCancelRequest = 80877102
	codeSSLRequest    = 80877103
	codeGSSEncRequest = 80877104
)

// Protocol versions wire speaks: 3.0 and 3.2 (3.2 adds 32-byte cancel keys).
const (
	protocolMajor       = 3
	protocolLatestMinor = 2
	maxStartupPacketLen = 10000 // PostgreSQL's MAX_STARTUP_PACKET_LENGTH
)

// startupPacket is a decoded untyped first message.
type startupPacket struct {
	code         uint32
	major, minor uint16
	params       map[string]string
	order        []string // parameter names in the order sent
	cancelPID    uint32
	cancelKey    []byte
}

// StartupError is a malformed startup packet.
type StartupError struct{ Msg string }

func (e *StartupError) Error() string { return "wire: invalid startup packet: " + e.Msg }

// readStartupPacket reads one length-prefixed startup packet without
// buffering past it (the next bytes may be a TLS handshake).
func readStartupPacket(r io.Reader) (*startupPacket, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[:])))
	if n < 8 || n > maxStartupPacketLen {
		return nil, &StartupError{fmt.Sprintf("length %d", n)}
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return decodeStartupPacket(body)
}

// decodeStartupPacket decodes the body of a startup packet (after the
// length word).
func decodeStartupPacket(body []byte) (*startupPacket, error) {
	if len(body) < 4 {
		return nil, &StartupError{"too short"}
	}
	p := &startupPacket{code: binary.BigEndian.Uint32(body)}
	rest := body[4:]
	switch p.code {
	case codeSSLRequest, codeGSSEncRequest:
		if len(rest) != 0 {
			return nil, &StartupError{"trailing bytes in encryption request"}
		}
		return p, nil
	case codeCancelRequest:
		if len(rest) < 8 || len(rest) > 4+256 {
			return nil, &StartupError{"bad cancel request length"}
		}
		p.cancelPID = binary.BigEndian.Uint32(rest)
		p.cancelKey = append([]byte(nil), rest[4:]...)
		return p, nil
	}
	p.major, p.minor = uint16(p.code>>16), uint16(p.code)
	if p.major != protocolMajor {
		return p, nil // the caller answers with the unsupported-version error
	}
	p.params = map[string]string{}
	for {
		if len(rest) == 0 {
			return nil, &StartupError{"missing terminator"}
		}
		if rest[0] == 0 {
			if len(rest) != 1 {
				return nil, &StartupError{"trailing bytes after terminator"}
			}
			return p, nil
		}
		name, r2, ok := cutCString(rest)
		if !ok {
			return nil, &StartupError{"unterminated parameter name"}
		}
		value, r3, ok := cutCString(r2)
		if !ok {
			return nil, &StartupError{"unterminated value of parameter " + name}
		}
		if _, dup := p.params[name]; !dup {
			p.order = append(p.order, name)
		}
		p.params[name] = value
		rest = r3
	}
}

func cutCString(b []byte) (string, []byte, bool) {
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), b[i+1:], true
		}
	}
	return "", nil, false
}

// parseOptions splits the "options" startup parameter (command-line style
// switches, backslash escapes a space) and returns the -c name=value and
// --name=value settings in order.
func parseOptions(s string) ([][2]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	var out [][2]string
	for i := 0; i < len(words); i++ {
		w := words[i]
		var kv string
		switch {
		case w == "-c":
			if i+1 >= len(words) {
				return nil, fmt.Errorf("-c requires a name=value argument")
			}
			i++
			kv = words[i]
		case strings.HasPrefix(w, "-c"):
			kv = w[2:]
		case strings.HasPrefix(w, "--"):
			kv = w[2:]
		default:
			return nil, fmt.Errorf("invalid command-line argument \"%s\"", w)
		}
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("-c %s requires a value", kv)
		}
		out = append(out, [2]string{strings.ReplaceAll(name, "-", "_"), value})
	}
	return out, nil
}
