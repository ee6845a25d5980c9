//go:build unix

package wire

import (
	"net"
	"syscall"
)

// peerClosed reports whether the peer of nc has closed or reset the
// connection, without consuming bytes (a peek that does not wait; it
// runs under Control, so it never waits for a read of the connection
// goroutine).
func peerClosed(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	rc.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil:
			closed = n == 0
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINTR:
		default:
			closed = true
		}
	})
	return closed
}
